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
#include "common/result.hpp"
#include "launcher/cli/deploy_mode.hpp"

namespace mpilaunch::launcher {

enum class LauncherKind { Auto, Local, Ssh, Srun };
/// How ranks reach their agent: PMIx (Open MPI), the PMI-1/PMI-2 wire protocol (MPICH), or
/// auto: read from the program's linked MPI library (launcher/job/program_pmi.hpp).
enum class PmiKind { Auto, Pmix, Pmi1, Pmi2 };

struct Options {
  // Mapping
  std::optional<int> np;
  std::optional<int> per_node;
  MapBy map_by = MapBy::Slot;
  bool oversubscribe = false;
  // Hosts
  std::vector<std::string> hosts;  // each -H value, unparsed
  std::string hostfile;
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
  std::string wdir;
  PmiKind pmi = PmiKind::Auto;
  // Output
  bool tag_output = false;
  bool timestamp_output = false;
  std::string output_filename;
  // Fault handling
  std::optional<double> timeout_seconds;
  double kill_grace_seconds = 3.0;
  double wireup_timeout_seconds = 300.0;  // first rank in PMIx_Init -> every rank in it
  bool report_state_on_timeout = false;
  std::optional<int> max_restarts;    // --max-restarts (MPILAUNCH_MAX_RESTARTS otherwise)
  bool enable_recovery = false;       // prterun spelling: accepted, budget from max_restarts
  std::vector<ErrorKind> restart_on;  // --restart-on KIND,...: overrides the retry classes
  std::optional<double> restart_backoff_seconds;
  std::optional<double> restart_backoff_max_seconds;
  std::string status_file;
  // Debugging and reporting
  bool dry_run = false;
  std::string events_file;
  bool allow_run_as_root = false;
  bool refuse_root = false;  // Open MPI's refusal instead of a warning
  bool help = false;
  std::string help_topic;  // --help TOPIC
  bool version = false;
  // What to run
  std::vector<std::string> program;  // program and its arguments
};

/// Parses everything after argv[0]. BadOption errors name the option and say how to fix it.
Result<Options> parse_options(const std::vector<std::string>& args);

/// The --help text, grouped as mpirun groups its options (option_docs.cpp).
std::string usage_text();
/// `--help TOPIC`: one option's detail, "errors" or "exit-codes"; nullopt for an unknown topic.
std::optional<std::string> help_topic_text(std::string_view topic);

/// Every option as the parser knows it: its spellings (dashes included) and value count.
struct OptionInfo {
  std::vector<std::string_view> names;
  int arity = 0;
};
std::vector<OptionInfo> option_infos();
/// A bad-option error with `detail` (what, where, how to fix).
Error bad_option(std::string detail);
/// The entry of `infos` that has `spelling` among its names, or nullptr.
const OptionInfo* find_option_info(const std::vector<OptionInfo>& infos, std::string_view spelling);

/// The closest known option to `unknown` when it is a likely misspelling, else empty.
std::string suggest_option(std::string_view unknown);

}  // namespace mpilaunch::launcher
