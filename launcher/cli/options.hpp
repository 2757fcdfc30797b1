#pragma once
/// The mpirun-compatible command line: -n/-np/--np, -N, -H/--host, --hostfile, -x, --mca,
/// --wdir, output, launcher and fault-handling options. Pure: argv in, Options or an Error out.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/job_map.hpp"
#include "common/placement.hpp"
#include "common/result.hpp"
#include "launcher/cli/deploy_mode.hpp"

namespace mpilaunch::launcher {

enum class LauncherKind { Auto, Local, Ssh, Srun };
/// How ranks reach their agent: PMIx (Open MPI), the PMI-1/PMI-2 wire protocol (MPICH), or
/// auto: read from the program's linked MPI library (launcher/job/program_pmi.hpp).
enum class PmiKind { Auto, Pmix, Pmi1, Pmi2 };

/// What mpilaunch does with an option of mpirun(1) (docs/mpirun-compat.md).
enum class OptionAnswer { Works, Ignored, Refused };

/// The largest -n / -N (more ranks than any launcher here could start) and the longest
/// duration any option accepts (one year): larger values are refused by name, never wrapped.
inline constexpr int kMaxRanks = 1 << 20;
inline constexpr double kMaxSeconds = 365.0 * 24 * 3600;

/// One application context: mpirun's `a : b` (MPMD) or one line of an appfile (--app). Its
/// ranks follow those of the contexts before it; MPI_APPNUM is its index.
struct AppOptions {
  std::optional<int> np;             // -n of this context
  std::vector<std::string> hosts;    // -H values of this context: it runs only there
  std::vector<std::string> exports;  // -x of this context
  std::string wdir;                  // --wdir of this context
  std::vector<std::string> program;  // program and its arguments
  /// --hostfile of this context: with several contexts every context's file adds its hosts to
  /// the job's (the first file naming a host gives its slots) and the context runs only on its
  /// file's hosts, as under mpirun 4.1.4.
  std::string hostfile;
  /// --path DIR[:DIR] in effect for this context: its program is looked up there first. As
  /// under mpirun 4.1.4 (measured) a context's --path stays in effect for the later contexts
  /// (`path_given` false there: their ranks get no OMPI_exec_path).
  std::string exec_path;
  bool path_given = false;  // this context's own --path (its ranks get OMPI_exec_path=DIR)
  /// The MCA parameters of the options given with a later context (after the first program):
  /// mpirun 4.1.4 (measured) gives them to that context's ranks only (Options::option_mca has
  /// the first context's, which every rank gets).
  std::vector<std::pair<std::string, std::string>> option_mca;
};

/// Where the options ask for oversubscription or forbid it, in the contexts mpirun 4.1.4 weighs
/// them by (measured, docs/placement.md "Oversubscription with several contexts").
struct OversubscribeSources {
  // In the context being read (reset before each context).
  bool flag = false;     // --oversubscribe
  bool no_flag = false;  // --nooversubscribe
  bool map_by = false;   // --map-by (or --bycore, --byslot, --bynode)
  // The job's, once its contexts are read.
  bool flag_first = false;     // --oversubscribe before the first program (--app: command line)
  bool no_flag_first = false;  // --nooversubscribe before the first program
  bool map_by_first = false;   // --map-by before the first program
  bool flag_later = false;     // --oversubscribe in a later context or on an appfile line
  bool map_by_last = false;    // the last context, a later one, gave --map-by
  /// The counted --map-by's :OVERSUBSCRIBE (true) or :NOOVERSUBSCRIBE (false): the last
  /// context's, else the one given before the first program.
  std::optional<bool> modifier;
};

/// mpirun 4.1.4's answer (measured): --oversubscribe given before the first program counts; one
/// given later counts unless a mapping policy given before the first program (--map-by or the
/// rmaps_base_mapping_policy parameter: `policy_first`) decides alone, the last context giving
/// none. A later --nooversubscribe changes nothing.
bool oversubscribe_flag_counts(const OversubscribeSources& s, bool policy_first);
/// The flag when it counts, else the counted mapping policy's modifier (`modifier`), else the
/// rmaps_base_oversubscribe parameter (`mca_yes`).
bool oversubscribe_allowed(const OversubscribeSources& s, bool policy_first,
                           std::optional<bool> modifier, bool mca_yes);

/// Why two of them are refused together, as mpirun 4.1.4 refuses them ("Conflicting directives
/// for mapping policy"): `first` and `second` as the user gave them.
std::string conflicting_directives_text(std::string_view first, std::string_view second);

struct Options {
  // Mapping
  std::optional<int> np;
  std::optional<int> per_node;
  MapBy map_by = MapBy::Slot;
  /// Whether the options alone let the job oversubscribe (oversubscribe_allowed() without MCA
  /// parameters); the launch plan adds rmaps_base_oversubscribe and rmaps_base_mapping_policy.
  bool oversubscribe = false;
  OversubscribeSources oversubscribe_sources;
  std::vector<std::string> by_options;  // --byslot, --bycore, --bynode as given, in order
  // Mapping, ranking and binding as mpirun spells them, recognised so that the rest of the
  // line parses; unsupported_options() refuses what the launcher does not implement yet.
  std::string map_by_text;        // --map-by as given (also set by --bynode, --byslot, --bycore)
  std::string rank_by;            // --rank-by
  std::string bind_to;            // --bind-to (also --bind-to-core, --bind-to-socket)
  std::string rankfile;           // -rf/--rankfile
  std::string cpu_list;           // --cpu-list
  std::string cpu_set;            // --cpu-set
  std::string ppr;                // --ppr
  std::string cpus_per_proc;      // --cpus-per-proc/--cpus-per-rank
  std::optional<int> per_socket;  // --npersocket
  bool use_hwthread_cpus = false;
  bool report_bindings = false;
  bool display_map = false;           // --display-map
  bool display_devel_map = false;     // --display-devel-map (refused)
  bool display_diffable_map = false;  // --display-diffable-map
  bool display_allocation = false;    // --display-allocation, --display-devel-allocation
  bool nolocal = false;
  // Hosts
  std::vector<std::string> hosts;  // each -H value, unparsed
  /// The job's host file: the first context's --hostfile (else a later context's), the command
  /// line's with --app, or --default-hostfile. Each context's own is in `contexts`.
  std::string hostfile;
  std::string context_hostfile;  // --hostfile of the context being parsed
  std::string default_hostfile;  // --default-hostfile: the host file when none is given
  LauncherKind launcher = LauncherKind::Auto;
  std::string agent_path;
  DeployMode deploy_agent = DeployMode::Auto;  // ssh: copy the agent where it is missing
  std::string ssh_config;                      // -F/--ssh-config; empty: ~/.ssh/config
  double connect_timeout_seconds = 10.0;       // per host: resolve, connect, host key, auth, exec
  double wait_for_hosts_seconds = 0;  // retry resolve/connect this long before failing a host
  int ssh_fanout = 64;                // hosts brought up over ssh at the same time
  // Environment
  std::vector<std::string> exports;  // -x NAME or NAME=value
  std::vector<std::pair<std::string, std::string>> mca;
  /// --mca/--gmca given after the first program or on an appfile line ("NAME VALUE (where)"):
  /// ignored, as mpirun 4.1.4 ignores them (measured: no rank gets them, nothing changes), with
  /// one warning each.
  std::vector<std::string> ignored_mca;
  /// Other options mpirun 4.1.4 ignores where they were given (measured), each "OPTION VALUE
  /// (where): why" for one warning: --ppr, --cpus-per-proc, --use-hwthread-cpus, --cpu-list and
  /// --cpu-set after the first program or on an appfile line; a --prefix after the first; the
  /// command line's -H and --hostfile with --app.
  std::vector<std::string> ignored_options;
  /// The MCA parameters mpirun 4.1.4 gives its ranks for the options given (--bind-to is
  /// hwloc_base_binding_policy, --map-by rmaps_base_mapping_policy, ...; measured): each value
  /// as given, the last one of a parameter only. They win over --mca's, as under mpirun.
  std::vector<std::pair<std::string, std::string>> option_mca;
  /// --am FILE[,FILE]: Open MPI's MCA parameter files, read by each rank's Open MPI (the ranks
  /// get OMPI_MCA_mca_base_param_file_prefix), not by the launcher, as under mpirun 4.1.4.
  std::string am;
  /// --tune FILE[,FILE]: the files' -x go to the ranks (apply_tune), their --mca steer the
  /// launcher as OMPI_MCA_* would; the ranks get OMPI_MCA_mca_base_envar_file_prefix.
  std::string tune;
  std::vector<std::pair<std::string, std::string>> tune_mca;  // --tune files' --mca, in order
  /// Open MPI's MCA parameter files (the system's, then $HOME's; common/mca_params.hpp), read by
  /// run() before the plan: they steer mpilaunch after --mca, OMPI_MCA_* and --tune files, as
  /// they steer mpirun 4.1.4.
  std::vector<std::pair<std::string, std::string>> param_file_mca;
  std::string wdir;
  std::string exec_path;    // --path DIR[:DIR], the last given (see AppOptions::exec_path)
  bool path_given = false;  // --path given since the last program
  /// --prefix DIR: absolute, without trailing '/'; one for the whole job, the first given before
  /// the first program (with --app: the command line's, else the first line's), as mpirun 4.1.4.
  std::string prefix;
  bool index_argv_by_rank = false;  // --index-argv-by-rank: argv[0] "<argv[0]>-<rank>"
  PmiKind pmi = PmiKind::Auto;
  // Output
  bool tag_output = false;
  bool timestamp_output = false;
  std::string output_filename;
  std::string stdin_target;  // --stdin rank|all|none as given; empty: rank 0
  bool merge_stderr_to_stdout = false;
  std::string rank_stdout = "pty";  // --rank-stdout pty|pipe: what each rank's stdout is
  bool quiet = false;               // -q: no warnings from mpilaunch itself
  std::string report_pid;           // --report-pid: '-' stdout, '+' stderr, else a file
  // Fault handling
  std::optional<double> timeout_seconds;
  double kill_grace_seconds = 3.0;
  double wireup_timeout_seconds = 300.0;  // first rank in PMIx_Init -> every rank in it
  bool report_state_on_timeout = false;
  bool get_stack_traces = false;      // on a timeout, every rank's stack, merged (launcher/stacks/)
  std::optional<int> max_restarts;    // --max-restarts (MPILAUNCH_MAX_RESTARTS otherwise)
  bool enable_recovery = false;       // prterun spelling: accepted, budget from max_restarts
  bool disable_recovery = false;      // --disable-recovery: no restarts, whatever else says
  std::vector<ErrorKind> restart_on;  // --restart-on KIND,...: overrides the retry classes
  std::optional<double> restart_backoff_seconds;
  std::optional<double> restart_backoff_max_seconds;
  std::string status_file;
  // Debugging and reporting
  bool dry_run = false;
  bool do_not_launch = false;  // mpirun's --do-not-launch: the agents report, the JOB MAP, no rank
  std::string events_file;
  bool allow_run_as_root = false;
  bool refuse_root = false;  // Open MPI's refusal instead of a warning
  bool help = false;
  std::string help_topic;  // --help TOPIC
  bool version = false;
  std::vector<std::string> ignored;  // mpirun options given that have no effect here
  // What to run. np, hosts (every context's -H merged), exports, wdir and program above are the
  // first context's; `contexts` has every context, the first included.
  std::vector<std::string> program;  // program and its arguments
  std::vector<AppOptions> contexts;
  std::string appfile;  // --app FILE: the contexts come from its lines (apply_appfile)
};

/// Parses everything after argv[0]. BadOption errors name the option and say how to fix it.
Result<Options> parse_options(const std::vector<std::string>& args);

/// The contexts of appfile `text` (named `path` in errors): one per line, each line mpirun's
/// options and a program with its arguments, split at blanks (no quoting, as mpirun 4.1.4
/// reads it), `#` to the end of the line a comment. As under mpirun, the command line's -n,
/// -x, --wdir and program are not used; its other options apply to every context.
Result<Options> apply_appfile(const Options& command_line, std::string_view text,
                              std::string_view path);

/// Where Open MPI 4.1.4 (Debian's package) looks first for a relative --am or --tune file name,
/// before the working directory.
inline constexpr std::string_view kAmcaParamSets = "/usr/share/openmpi/amca-param-sets";

/// One --tune file: the name as shown in errors and its text.
struct TuneFile {
  std::string path;
  std::string text;
};

/// mpirun 4.1.4's --tune files, in the order given, read by Open MPI's parameter file parser
/// (read_tune_file(), common/mca_params.hpp): `-x NAME[=VALUE]` and `--mca NAME VALUE` (or
/// `-mca`), several to a line, and `NAME = VALUE` lines. Their -x go to every context that does
/// not export the name itself (the first file wins among files); their parameters go to
/// `tune_mca`. What the parser skips, mpirun 4.1.4 skips and runs: a warning each here
/// (`ignored_options`).
Result<Options> apply_tune(const Options& command_line, const std::vector<TuneFile>& files);

/// Options the parser recognises (so the rest of the line is read right) whose meaning the
/// launcher does not implement yet: a BadOption error naming the first one, else success.
Status unsupported_options(const Options& o);

/// --cpu-list, else --cpu-set (mpirun 4.1.4: one MCA parameter, hwloc_base_cpu_list).
std::string cpu_list_of(const Options& o);

/// The --help text, grouped as mpirun groups its options (option_docs.cpp).
std::string usage_text();
/// `--help TOPIC`: one option's detail, "errors" or "exit-codes"; nullopt for an unknown topic.
std::optional<std::string> help_topic_text(std::string_view topic);

/// Every option as the parser knows it: its spellings (dashes included) and value count.
struct OptionInfo {
  std::vector<std::string_view> names;
  int arity = 0;
  OptionAnswer answer = OptionAnswer::Works;
  std::string_view why;  // Ignored or Refused: the reason, for --help and the docs
};
std::vector<OptionInfo> option_infos();
/// A bad-option error with `detail` (what, where, how to fix).
Error bad_option(std::string detail);
/// The entry of `infos` that has `spelling` among its names, or nullptr.
const OptionInfo* find_option_info(const std::vector<OptionInfo>& infos, std::string_view spelling);

/// The closest known option to `unknown` when it is a likely misspelling, else empty.
std::string suggest_option(std::string_view unknown);

}  // namespace mpilaunch::launcher
