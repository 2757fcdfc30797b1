#include "launcher/cli/option_docs.hpp"

#include "common/text_format.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/error_catalog.hpp"
#include "common/exit_codes.hpp"
#include "launcher/cli/options.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::string_view kIgnoredGroup = "mpirun options accepted without effect";
constexpr std::string_view kRefusedGroup = "mpirun options refused";

constexpr OptionDoc kDocs[] = {
    // Mapping
    {"-n", "Mapping", "N", "number of processes", "one per slot",
     "Starts N ranks. Without -n (or with -n 0, as in mpirun), every slot of every host gets "
     "one rank (with -N, N per node). More ranks than slots is an error (not-enough-slots) "
     "unless --oversubscribe."},
    {"-N", "Mapping", "N", "processes per node", "",
     "Places N ranks on each node; with -n too, the total must fit."},
    {"--map-by", "Mapping", "POLICY[:MOD]", "where ranks go: slot, node, an object, ppr:N:OBJ",
     "core (2 ranks or fewer), numa",
     "slot fills a node's slots before the next node; node deals ranks one per node in turn; "
     "an object (hwthread, core, l1cache, l2cache, l3cache, numa, socket, board) deals a "
     "node's ranks round robin over its objects of that kind; ppr:N:OBJ puts N ranks on each. "
     "Modifiers as Open MPI's: PE=n (n CPUs per rank), SPAN, OVERSUBSCRIBE, NOOVERSUBSCRIBE, "
     "DISPLAY. Each node's objects are those its agent found there."},
    {"--rank-by", "Mapping", "slot|node|OBJ", "the order of ranks over the mapped places",
     "the mapping's object",
     "By the mapping's object, ranks go round robin over a node's objects; by slot (or core), "
     "each object's ranks are consecutive, as Open MPI ranks them."},
    {"--bind-to", "Mapping", "none|OBJ[:MOD]", "the CPUs each rank may run on",
     "core (2 ranks or fewer), numa; none when oversubscribed",
     "Binds every rank before it starts to an object (hwthread, core, l1cache, l2cache, "
     "l3cache, numa, socket, board) where it was mapped, as mpirun 4.1 does. A binding that "
     "would put more ranks on an object than it has CPUs is refused unless :overload-allowed; "
     "an object a node lacks is refused unless :if-supported. Without --bind-to, a binding that "
     "would overload is dropped for the job, as mpirun drops it."},
    {"--report-bindings", "Mapping", "", "print each rank's binding as mpirun does", "",
     "One line per rank on stderr, in mpirun's words ('MCW rank 0 bound to socket 0[core "
     "0[hwt 0]]: [B/.]'); the events file gets the same as 'binding' events."},
    {"--display-map", "Mapping", "", "print the job map as mpirun does", "",
     "mpirun's JOB MAP table on stdout before the ranks start: each node's slots and each "
     "rank's binding; the events file gets a 'job-map' event."},
    {"--use-hwthread-cpus", "Mapping", "", "a CPU is a hardware thread, not a core", "",
     "Binds to hardware threads where it would bind to cores, and counts them as CPUs."},
    {"--cpus-per-proc", "Mapping", "N", "N CPUs per rank (also --cpus-per-rank)", "1",
     "The same as the :PE=N modifier of --map-by: each rank is bound to N cores (hardware "
     "threads with --use-hwthread-cpus)."},
    {"--oversubscribe", "Mapping", "", "allow more processes than slots", "",
     "Lets a node run more ranks than it has slots (Open MPI then yields the CPU when idle)."},
    // Hosts
    {"--nooversubscribe", "Mapping", "", "never more processes than slots", "the default", ""},
    {"--pernode", "Mapping", "", "one process per node (-N 1)", "", ""},
    {"--byslot", "Mapping", "", "--map-by slot", "", ""},
    {"--bycore", "Mapping", "", "--map-by core", "", ""},
    {"--bynode", "Mapping", "", "--map-by node", "", ""},
    {"--npersocket", "Mapping", "N", "N processes per socket (--map-by ppr:N:socket)", "",
     "mpirun 4.1.4's spelling of --map-by ppr:N:socket; a --map-by given too wins."},
    {"--bind-to-core", "Mapping", "", "--bind-to core", "", ""},
    {"--bind-to-socket", "Mapping", "", "--bind-to socket", "", ""},
    {"-rf", "Mapping", "FILE",
     "rank file: 'rank N=HOST slot=CPUS' per rank (CPUS: 1, 0-2, 0,3 or socket:cores)", "", ""},
    {"--cpu-list", "Mapping", "LIST", "bind every rank to these CPUs (N, N-M, N,M or S:C)", "",
     "Logical cores (hardware threads with --use-hwthread-cpus) of each node, as a rankfile "
     "slot names them: ranks fill the slots in order and each is bound to all of the list's "
     "CPUs, as mpirun 4.1.4 does (so no --map-by with it). --bind-to cpu-list:ordered maps as "
     "usual and binds each node's k-th rank to the k-th CPU of the list."},
    {"--cpu-set", "Mapping", "LIST", "--cpu-list (mpirun's older name)", "", ""},
    {"--ppr", "Mapping", "N:OBJ", "N processes per resource (--map-by ppr:N:OBJ)", "",
     "mpirun 4.1.4's deprecated spelling of --map-by ppr:N:OBJ, with a warning; with --map-by "
     "too it is refused (mpirun 4.1.4 exits 1)."},
    {"--nolocal", "Mapping", "", "no ranks on this host", "",
     "Maps the ranks on the other hosts only; this machine's slots still count in the universe "
     "size, as under mpirun. With no other host the job cannot start (not-enough-slots)."},
    {"--display-devel-map", "Mapping", "",
     "print the detailed map (refused: use --display-map, --display-diffable-map or --dry-run)", "",
     ""},
    {"--display-diffable-map", "Mapping", "", "print the job map in mpirun's diffable form", "",
     "mpirun 4.1.4's <map> text on stdout before the ranks start: one <host num=N> per node "
     "with each rank's application context, local and node rank and binding ([B/.], UNBOUND), "
     "then how much of the machine each other rank of the first node shares with its first "
     "rank (CL:CU:N:B:Nu:S:L3...). As mpirun, an unbound job's text stops after the last "
     "</host>, and it takes the place of --display-map's table. "
     "OMPI_MCA_rmaps_base_display_diffable_map=1 asks for it too."},
    {"--display-topo", "Mapping", "", "accepted: prints nothing more, as mpirun 4.1.4", "",
     "mpirun 4.1.4 prints no topology for it (alone nothing, with --display-map the same "
     "table); the ranks get OMPI_MCA_rmaps_base_display_topo_with_map=1 as under mpirun."},
    {"--display-allocation", "Mapping", "", "print the allocated hosts and their slots", "",
     "mpirun's ALLOCATED NODES block on stdout, once every agent is up (slots a host file left "
     "out are the node's cores, counted by its agent), before the ranks start; every host given, "
     "with ranks or not. OMPI_MCA_orte_display_alloc=1 asks for it too. --events records the "
     "same as an allocation event in any case."},
    {"--display-devel-allocation", "Mapping", "", "the same as --display-allocation", "",
     "mpirun 4.1.4 prints the same block for it; the ranks get "
     "OMPI_MCA_orte_display_devel_alloc=1 instead of OMPI_MCA_orte_display_alloc=1."},
    {"-H", "Hosts", "H[:N],...", "hosts with N slots each (1 when not given); repeatable",
     "this machine",
     "Comma-separated hosts, each with an optional slot count: -H node1:4,node2:4. A repeated "
     "name adds slots. With --hostfile too, -H picks hosts out of the file. Inside a resource "
     "manager's allocation -H only picks among its hosts, N capped by their slots, as mpirun's. "
     "Also user@host and host:port forms for ssh (see docs/ssh.md)."},
    {"--hostfile", "Hosts", "FILE", "Open MPI (\"host slots=N\") or MPICH (\"host:N\") host file",
     "",
     "One host per line, '#' comments. Without -H and --hostfile, hosts come from the resource "
     "manager (Grid Engine, Slurm, PBS, LSF, HTCondor, the MPI Operator's /etc/mpi/hostfile), "
     "else the job runs on this machine alone. Inside an allocation the file only picks among "
     "its hosts, whose slots are the allocation's, as mpirun's."},
    {"--default-hostfile", "Hosts", "FILE", "the host file when --hostfile is not given", "",
     "Ignored inside a resource manager's allocation, as by mpirun."},
    {"--launcher", "Hosts", "local|ssh|srun", "how agents start",
     "srun inside a Slurm allocation, local without hosts, else ssh",
     "local starts one agent per named host on this machine (virtual nodes, each with its own "
     "PMIx hostname); ssh starts them over ssh with libssh; srun starts one job step per node "
     "of the Slurm allocation (docs/slurm.md)."},
    {"--agent-path", "Hosts", "PATH", "mpilaunch-agent on the nodes",
     "next to mpilaunch, else PATH", "Where the agent is on every node."},
    {"--deploy-agent", "Hosts", "auto|always|never",
     "copy the agent to ssh hosts that lack this version", "auto",
     "auto runs the agent at --agent-path when it is this version, else a cached copy in "
     "${XDG_CACHE_HOME:-~/.cache}/mpilaunch/VERSION/ on that host whose SHA-256 matches, else "
     "uploads this machine's agent there over the open ssh session (SFTP), checks its SHA-256 "
     "and renames it into place. always uploads every time; never only uses --agent-path. "
     "Failures are agent-start-failed, phase deploy (docs/ssh.md)."},
    // SSH
    {"--ssh-config", "SSH", "FILE", "ssh client configuration", "~/.ssh/config",
     "An OpenSSH client config (Host, HostName, Port, User, IdentityFile); then "
     "/etc/ssh/ssh_config."},
    {"--connect-timeout", "SSH", "SECONDS",
     "per-host limit to resolve, connect, check the key, authenticate, start the agent", "10",
     "A host that does not get there in time fails as agent-start-failed with the phase it "
     "was in."},
    {"--ssh-fanout", "SSH", "N", "hosts brought up over ssh at the same time", "64", ""},
    {"--wait-for-hosts", "SSH", "SECONDS",
     "retry hosts that do not resolve or refuse connections, with backoff, for this long", "0",
     "For worker hosts that start late (MPI Operator pods): a host still missing at the "
     "deadline fails as unknown-host or agent-start-failed. Host key, authentication and exec "
     "failures are never retried."},
    // Environment
    {"-x", "Environment", "NAME[=VALUE]", "export a variable to every rank; repeatable", "",
     "NAME alone passes this environment's value on."},
    {"--mca", "Environment", "KEY VALUE", "set Open MPI parameter KEY (OMPI_MCA_KEY) in every rank",
     "", ""},
    {"--am", "Environment", "FILE[,FILE]", "Open MPI MCA parameter files for the ranks", "",
     "As mpirun 4.1.4: the ranks get OMPI_MCA_mca_base_param_file_prefix=FILE and their Open MPI "
     "reads the files (looked for in /usr/share/openmpi/amca-param-sets, then the rank's "
     "directory); --mca and OMPI_MCA_* win over them. The launcher does not read them. The last "
     "--am counts."},
    {"--tune", "Environment", "FILE[,FILE]", "-x and --mca options from files", "",
     "As mpirun 4.1.4: each line holds -x NAME[=VALUE] and --mca NAME VALUE options ('#' starts "
     "a comment); the -x go to every rank (a -x given on the command line for the same name "
     "wins; among files, the first), the --mca steer mpilaunch as OMPI_MCA_* would (after --mca "
     "and the environment) and reach the ranks through their Open MPI, which reads the files "
     "(OMPI_MCA_mca_base_envar_file_prefix). A file is looked for in "
     "/usr/share/openmpi/amca-param-sets, then here. A missing file or any other word on a line "
     "is refused (mpirun warns and runs). The last --tune counts."},
    {"--pmi", "Environment", "auto|pmix|pmi1|pmi2", "how ranks talk to their agent",
     "auto: from the program's MPI library",
     "pmix serves Open MPI (and other PMIx programs) through the agent's PMIx server; pmi1 and "
     "pmi2 give every rank a PMI_FD socket speaking the PMI-1/PMI-2 wire protocol, as MPICH "
     "expects (the client's first line picks the version, so the two behave the same). auto "
     "reads the program's ELF dependencies: libmpich or libmpi.so.12 mean PMI, Open MPI's "
     "libmpi.so.40 or libpmix mean PMIx; a script or a program linked to neither gets both. "
     "--dry-run says what was chosen and why (docs/pmi.md)."},
    {"--wdir", "Environment", "DIR", "working directory of the ranks", "the current directory", ""},
    {"--path", "Environment", "DIR[:DIR]", "look for the program in DIR first", "",
     "As mpirun 4.1.4 looks: a program name without '/' is searched in each DIR (a relative one "
     "from the working directory), then in PATH, then in the working directory, on the node of "
     "each rank. The ranks' PATH is unchanged; the context's ranks get OMPI_exec_path=DIR. It "
     "holds for its context and the later ones (not for an --app file's lines when given on the "
     "command line)."},
    {"--prefix", "Environment", "DIR",
     "DIR/bin and DIR/lib first in the ranks' PATH and LD_LIBRARY_PATH", "",
     "As mpirun 4.1.4 sets them, on every node: DIR/bin:DIR/bin:$PATH and "
     "DIR/lib:DIR/lib:$LD_LIBRARY_PATH (mpirun adds each twice), or DIR/bin:VALUE when -x gives "
     "the variable. One for the whole job: the first given before the first program (with "
     "--app: on the command line, else on the first line); a later one is ignored with a "
     "warning, as mpirun ignores it. DIR absolute. "
     "OPAL_PREFIX is left as it is, as mpirun leaves it. It does not say where mpilaunch's "
     "agent is (--agent-path)."},
    {"--index-argv-by-rank", "Environment", "", "argv[0] of rank R is '<argv[0]>-R'", "",
     "As mpirun 4.1.4 gives it: R is the rank in MPI_COMM_WORLD, in every application context "
     "('./a -n 1 : ./b' gives './a-0' and './b-1'); the program run, OMPI_COMMAND and the other "
     "arguments are unchanged."},
    {"--app", "Environment", "FILE", "run the application contexts of an appfile (MPMD)", "",
     "One context per line: mpirun's options and a program with its arguments, split at blanks "
     "(no quoting, as mpirun reads it), '#' starts a comment. The contexts form one "
     "MPI_COMM_WORLD, ranks numbered context by context; MPI_APPNUM is the line's context "
     "number. As under mpirun, the command line's -n, -x, --wdir and program are not used; "
     "its other options apply to every context. The command-line form is 'mpilaunch -n 1 ./a "
     ": -n 2 ./b'."},
    // Output
    {"--tag-output", "Output", "", "prefix lines with [1,rank]<stdout>: as mpirun does", "",
     "mpirun 4.1's format: '[1,3]<stdout>:text' on stdout, '[1,3]<stderr>:text' on stderr (1 is "
     "mpirun's job number); a rank's unterminated last line stays unterminated."},
    {"--timestamp-output", "Output", "", "prefix lines with the time, as mpirun does", "",
     "mpirun 4.1's format: ctime() in local time, then the stream: 'Fri Nov 27 08:38:06 "
     "2026<stdout>:text' (with --tag-output: '...2026[1,3]<stdout>:text')."},
    {"--output-filename", "Output", "DIR",
     "also write DIR/1/rank.R/stdout and stderr, as mpirun does", "",
     "The terminal still shows everything. With --max-restarts, each attempt gets "
     "DIR/attempt-N/1/rank.R/."},
    // Fault handling
    {"--stdin", "Output", "RANK|all|none", "which ranks read mpilaunch's stdin", "0", ""},
    {"--merge-stderr-to-stdout", "Output", "",
     "with --output-filename: stderr into the stdout file", "",
     "As mpirun: the terminal keeps the two streams apart; only the files are merged."},
    {"--rank-stdout", "Output", "pty|pipe", "what each rank's stdout is", "pty",
     "pty: a pseudo-terminal, as under mpirun, so C stdio in the rank line-buffers and "
     "progress lines appear as they are printed; bytes pass unchanged (no newline "
     "translation). pipe: a plain pipe (stdio buffers fully). stderr is a pipe either way. "
     "A node that has no pty left gives that rank a pipe, with one warning."},
    {"-q", "Output", "", "no warnings from mpilaunch itself", "", ""},
    {"--report-pid", "Output", "-|+|FILE", "print mpilaunch's pid to stdout, stderr or FILE", "",
     ""},
    {"--timeout", "Fault handling", "SECONDS", "fail the job after this long",
     "none; also MPIEXEC_TIMEOUT", "The job then ends as timeout, exit code 124."},
    {"--report-state-on-timeout", "Fault handling", "",
     "on a timeout, list the ranks still running and where", "", ""},
    {"--get-stack-traces", "Fault handling", "",
     "on a timeout, every rank's stack, merged, before the teardown", "",
     "Each node's agent runs eu-stack (else gdb in batch mode) on its running ranks, in "
     "parallel, within 10 s; ranks with the same main-thread call path are grouped as rank "
     "ranges, the odd ones first, and the timeout error names the straggler. The merged tree "
     "goes to stderr and, with every rank's raw stack, to --events as a stacks event."},
    {"--wireup-timeout", "Fault handling", "SECONDS",
     "once one rank is in MPI_Init, every rank must get there within this long", "300",
     "A rank that never reaches PMIx init, or a fence a dead peer never joins, ends the job "
     "as timeout with phase wire-up instead of a hang. When the program links MPI itself (as "
     "--pmi=auto reads it), the limit also runs from the ranks' start, so a job none of whose "
     "ranks reaches MPI_Init fails the same way."},
    {"--kill-grace", "Fault handling", "SECONDS", "SIGTERM to SIGKILL delay at teardown", "3", ""},
    {"--max-restarts", "Fault handling", "N",
     "restart the whole job up to N times after a retryable failure", "0",
     "Agents stay up; ranks are re-spawned in a fresh namespace and see MPILAUNCH_ATTEMPT and "
     "MPILAUNCH_MAX_RESTARTS. Retryable by default: rank failures, lost agents, wire-up "
     "timeouts. Also MPILAUNCH_MAX_RESTARTS or a config file."},
    {"--enable-recovery", "Fault handling", "",
     "accepted for prterun compatibility (the budget comes from --max-restarts)", "", ""},
    {"--restart-on", "Fault handling", "KIND,...", "restart only after these error kinds",
     "rank failures, lost agents, wire-up timeouts",
     "Kinds as 'mpilaunch --help errors' lists them."},
    {"--restart-backoff", "Fault handling", "S[,MAX]", "first delay before a restart and its cap",
     "1,30",
     "The delay doubles per restart up to MAX, with jitter, and starts over after a "
     "healthy run."},
    {"--status", "Fault handling", "FILE",
     "keep a live JSON job status (phase, attempts, rank counts) in FILE", "",
     "Rewritten atomically on every change, in the style of a Kubernetes job status."},
    // Debugging
    {"--disable-recovery", "Fault handling", "", "no restarts, whatever else asks for them", "",
     ""},
    {"--dry-run", "Debugging", "", "print the plan (nodes, rank map, agents, settings) and exit",
     "",
     "Also says where each setting came from: a config file line, the environment or the "
     "command line."},
    {"--do-not-launch", "Debugging", "",
     "start the agents, print mpirun's JOB MAP (each rank's node and binding, as the agents' "
     "topologies give them) and run nothing, as mpirun's --do-not-launch; --dry-run starts "
     "nothing",
     "", ""},
    {"--events", "Debugging", "FILE", "write a JSON Lines timeline of the job to FILE", "", ""},
    {"--allow-run-as-root", "Debugging", "", "silence the warning printed when ranks run as root",
     "", "OMPI_ALLOW_RUN_AS_ROOT=1 with OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 does the same."},
    {"--refuse-root", "Debugging", "", "refuse to run as root, as mpirun does", "",
     "Ends as run-as-root-refused (exit code 77) instead of the warning."},
    {"-V", "Debugging", "", "print the version", "", ""},
    {"-h", "Debugging", "[OPTION|errors|exit-codes]",
     "print this help, one option's detail, the error kinds or the exit codes", "", ""},
};

// "-n, -np, --np N": the spellings worth showing (single-dash long ones are mpirun's aliases).
std::string spellings(const OptionDoc& doc, const std::vector<OptionInfo>& infos) {
  std::string out;
  if (const OptionInfo* info = find_option_info(infos, doc.key))
    for (std::string_view name : info->names) {
      // Single-dash long spellings are mpirun's aliases; short ones (-np, -rf, -wd) are shown.
      const bool long_single_dash = name.size() > 3 && name[1] != '-';
      if (long_single_dash) continue;
      out += out.empty() ? "" : ", ";
      out += name;
    }
  if (!doc.value.empty()) out += " " + std::string(doc.value);
  return out;
}

// Words of `text` on lines of at most `width` columns, each indented by `indent` spaces.
std::string wrapped(std::string_view text, std::size_t indent, std::size_t width) {
  std::string out, line;
  auto flush = [&] {
    if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
    line.clear();
  };
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) flush();
    line += line.empty() ? "" : " ";
    line += word;
    text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
  }
  flush();
  return out;
}

std::string errors_text() {
  std::string out = "Error kinds (docs/errors.md), with mpilaunch's exit code:\n\n";
  for (ErrorKind kind : kAllErrorKinds) {
    const Error e{.kind = kind};
    out += mpilaunch::format("  {:<26} exit {:<4} {}\n", kind_name(kind), exit_codes::for_error(e),
                             hint(e));
  }
  return out;
}

std::string exit_codes_text() {
  return R"(Exit codes (docs/exit-codes.md):

  0        every rank exited 0
  1..127   a failing rank's own exit code
  128+N    a rank was killed by signal N (or mpilaunch was interrupted by it);
           141: the reader of mpilaunch's output went away (output-error)
  64       bad-option: unknown or conflicting option, bad value, bad config file line
  65       hostfile-error
  66       executable-not-found, executable-not-executable, wdir-error
  67       not-enough-slots
  69       agent-start-failed, unknown-host, unsupported-mpi-call
  70       pmix-error, protocol-mismatch, malformed-frame, unknown
  71       out-of-resources
  74       output-error: rank output could not be written (--output-filename)
  75       agent-lost
  77       run-as-root-refused
  78       component-not-found
  124      timeout
)";
}

}  // namespace

std::span<const OptionDoc> option_docs() {
  // mpirun's options without effect or refused, documented by the reason the parser gives.
  static const std::vector<OptionDoc> all = [] {
    std::vector<OptionDoc> out(std::begin(kDocs), std::end(kDocs));
    for (const OptionInfo& info : option_infos()) {
      if (info.answer == OptionAnswer::Works) continue;
      const bool ignored = info.answer == OptionAnswer::Ignored;
      out.push_back({info.names.front(), ignored ? kIgnoredGroup : kRefusedGroup,
                     info.arity > 0 ? "VALUE" : "", info.why, "",
                     ignored ? "Accepted for mpirun compatibility; it has no effect "
                               "(docs/mpirun-compat.md)."
                             : "mpilaunch stops with a bad-option error naming this option "
                               "(docs/mpirun-compat.md)."});
    }
    return out;
  }();
  return all;
}

std::string usage_text() {
  const std::vector<OptionInfo> infos = option_infos();
  std::string out =
      "Usage: mpilaunch [options] PROGRAM [ARGS...]\n"
      "       mpilaunch explain [--json] [--rc N] [FILE|-]\n"
      "       mpilaunch doctor [-H HOSTS | --hostfile FILE] [--json]\n"
      "       mpilaunch stacks [--json] [JOB]   (where a running job's ranks are)\n"
      "       mpilaunch --engine=ompi [options] PROGRAM [ARGS...]   (wrap a real mpirun)\n";
  std::string_view group;
  for (const OptionDoc& doc : option_docs()) {
    if (doc.group != group) {
      group = doc.group;
      out += mpilaunch::format("\n{}:\n", group);
    }
    std::string line(doc.summary);
    if (!doc.fallback.empty()) line += mpilaunch::format(" (default: {})", doc.fallback);
    const std::string names = spellings(doc, infos);
    std::string text = wrapped(line, 29, 96);  // every line indented to the text column
    if (names.size() <= 26)
      text.replace(0, 29, mpilaunch::format("  {:<27}", names));
    else
      text = mpilaunch::format("  {}\n", names) + text;
    out += text;
  }
  out +=
      "\nSettings also come from /etc/mpilaunch/mpilaunch.conf, "
      "~/.config/mpilaunch/mpilaunch.conf\nand MPILAUNCH_<OPTION> variables; the command line "
      "wins (docs/configuration.md).\n"
      "'mpilaunch --help OPTION' explains one option; '--help errors' and '--help exit-codes'\n"
      "list the error kinds and exit codes.\n";
  return out;
}

std::optional<std::string> help_topic_text(std::string_view topic) {
  if (topic == "errors") return errors_text();
  if (topic == "exit-codes") return exit_codes_text();
  const std::vector<OptionInfo> infos = option_infos();
  std::string spelled(topic);
  if (!spelled.starts_with('-')) spelled = (spelled.size() == 1 ? "-" : "--") + spelled;
  const OptionInfo* info = find_option_info(infos, spelled);
  if (info == nullptr) return std::nullopt;
  for (const OptionDoc& doc : option_docs()) {
    if (find_option_info(infos, doc.key) != info) continue;
    std::string out = mpilaunch::format("{}\n  {}.\n", spellings(doc, infos), doc.summary);
    if (!doc.fallback.empty()) out += mpilaunch::format("  Default: {}.\n", doc.fallback);
    if (!doc.detail.empty()) out += "\n" + wrapped(doc.detail, 2, 92);
    out += mpilaunch::format("\n  Group: {}.\n", doc.group);
    return out;
  }
  return std::nullopt;
}

}  // namespace mpilaunch::launcher
