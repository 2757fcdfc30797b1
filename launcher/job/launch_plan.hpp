#pragma once
/// From options and hosts to a plan: which nodes, which ranks where, what every rank gets.
/// Pure; `--dry-run` prints render_plan() and stops.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/job_map.hpp"
#include "common/result.hpp"
#include "launcher/cli/options.hpp"
#include "launcher/hosts/host_entry.hpp"
#include "launcher/job/program_pmi.hpp"

namespace mpilaunch::launcher {

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

struct MachineFacts {
  std::string hostname;  // this machine's name
  int cpus = 1;
  std::string cwd;
};

/// One application context of the plan (mpirun's MPMD `a : b`, an appfile line): its ranks
/// follow the previous contexts' (MPI_APPNUM is its index).
struct PlanApp {
  std::vector<std::string> argv;  // program and arguments
  std::vector<std::string> env;   // NAME=value of its -x, after the job's env
  std::string wdir;               // absolute
  int num_procs = 0;
};

struct LaunchPlan {
  LauncherKind launcher = LauncherKind::Local;
  bool isolated = false;         // no hosts were given: one local agent
  std::string hosts_source;      // where the hosts came from
  std::vector<HostEntry> nodes;  // one per node of the map, in node order
  JobMap map;
  int universe_size = 0;         // slots of every host, with ranks or not (MPI_UNIVERSE_SIZE)
  PlacementPolicy placement;     // mapping, ranking, binding (common/placement.hpp)
  std::vector<std::string> env;  // NAME=value for every rank (--mca)
  std::vector<PlanApp> apps;     // every application context, in rank order; at least one
  PmiChoice pmi;                 // filled in by run() from --pmi and the program's libraries
  std::vector<std::string> warnings;
};

/// The application context that `rank` belongs to.
const PlanApp& app_of_rank(const LaunchPlan& plan, int rank);

/// `hosts` is empty for isolated local mode. Errors: BadOption, NotEnoughSlots.
Result<LaunchPlan> make_plan(const Options& options, const HostList& hosts,
                             const MachineFacts& machine, const EnvLookup& getenv);

/// True when `name` denotes this machine (localhost, 127.x, its hostname).
bool is_local_name(const std::string& name, const std::string& hostname);

/// The --dry-run text: hosts and their source, the rank map, the agent commands.
std::string render_plan(const LaunchPlan& plan, const std::string& agent_command);

}  // namespace mpilaunch::launcher
