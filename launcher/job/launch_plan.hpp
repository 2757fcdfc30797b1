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
  std::string exec_path;  // --path: searched for argv[0] before PATH, on the ranks' node
};

/// What the mapper needs of one application context: its -n and its hosts (its -H, after a host
/// file narrowed them; empty: every host of the job).
struct MapContext {
  std::optional<int> np;
  std::vector<std::string> hosts;
  std::string program;  // for errors
};

/// One line of a rankfile (-rf), with the node its host is in the plan.
struct RankfilePlace {
  int rank = 0;
  int node = -1;  // index into LaunchPlan::nodes; -1: a host that runs no rank of the job
  std::string host;
  RankSlot slot;
};

struct LaunchPlan {
  LauncherKind launcher = LauncherKind::Local;
  bool isolated = false;     // no hosts were given: one local agent
  std::string hosts_source;  // where the hosts came from
  /// One per agent: the map's nodes first, in node order (index = node id), then the idle
  /// hosts of the allocation, which get no rank but an agent, as mpirun 4.1.4 starts a daemon on
  /// every allocated host: a spawn can place children there (docs/dynamic-processes.md).
  std::vector<HostEntry> nodes;
  JobMap map;
  int universe_size = 0;  // slots of every host, with ranks or not (MPI_UNIVERSE_SIZE)
  /// A host's slots are its cores (a host file line without slots=, HostEntry::count_cores),
  /// known once its agent has reported: until map_on_reported_slots(), `nodes` holds every host,
  /// `map` has no ranks and apps[0].num_procs is 0; every host gets an agent. One application
  /// context only, unless ppr_object: make_plan refuses MPMD with such hosts.
  bool slots_from_agents = false;
  /// --nolocal without -n: every slot of the allocation is asked for, this machine's too.
  bool np_is_allocation = false;
  /// --nolocal with this machine in the allocation: the last of `nodes` is this machine, which
  /// gets no rank but an agent (started here whatever the launcher, as mpirun's own node needs
  /// no ssh), because mpirun 4.1.4 places spawned children there (measured).
  bool idle_local_node = false;
  /// --map-by ppr:N:OBJECT below the node (--npersocket N is ppr:N:socket) on several hosts, or
  /// ppr:N:socket without -n: each node takes N per OBJECT of its own, as mpirun 4.1.4 maps them
  /// (common/job_map.hpp map_ppr), so the map waits for every agent's report of its node
  /// (slots_from_agents is set too; `request.per_node` is N). Unset: not so.
  std::optional<HwLevel> ppr_object;
  /// --map-by OBJECT:SPAN on several hosts: mpirun 4.1.4 divides the processes over every
  /// host's OBJECTs (common/job_map.hpp MapRequest::span), so the map waits for every agent's
  /// report of its node (slots_from_agents is set too). Unset: not so.
  std::optional<HwLevel> span_object;
  /// Every application context's -n and hosts, for the map made once the agents have reported
  /// (ppr_object).
  std::vector<MapContext> contexts;
  /// -rf/--rankfile: every line of the file, those past the job's ranks too (empty: no
  /// rankfile). mpirun 4.1.4 places spawned processes through the same file
  /// (spawn_placement.hpp's place_spawn_by_rankfile()).
  std::vector<RankfilePlace> rankfile;
  std::string rankfile_path;
  MapRequest request;               // what `map` was (or will be) made from
  PlacementPolicy placement;        // mapping, ranking, binding (common/placement.hpp)
  std::vector<std::string> env;     // NAME=value for every rank (--mca)
  std::string prefix;               // --prefix DIR: the ranks' PATH and LD_LIBRARY_PATH (JobSpec)
  bool index_argv_by_rank = false;  // --index-argv-by-rank (JobSpec)
  /// Every host of the allocation, with or without ranks, in the order given (mpirun's
  /// ALLOCATED NODES); slots of hosts counted by their agents once map_on_reported_slots() ran.
  std::vector<HostEntry> allocation;
  bool display_diffable_map = false;  // --display-diffable-map (or its MCA parameter)
  bool display_allocation = false;    // --display-allocation (or OMPI_MCA_orte_display_alloc)
  /// --tag-output, --timestamp-output, -q, or their parameters (orte_tag_output, ...) from the
  /// environment, a --tune file or Open MPI's parameter files, as they steer mpirun 4.1.4; a
  /// --mca of the parameter wins over the option.
  bool tag_output = false;
  bool timestamp_output = false;
  bool quiet = false;
  /// orte_abort_on_non_zero_status (--mca, OMPI_MCA_*, --tune, parameter files; Open MPI's
  /// boolean, true unless set): false lets a rank's non-zero exit end only that rank, the job
  /// running on and exiting 0 as mpirun 4.1.4's does (docs/mpirun-compat.md).
  bool abort_on_nonzero = true;
  std::string hostname;       // this machine's (MachineFacts)
  std::vector<PlanApp> apps;  // every application context, in rank order; at least one
  PmiChoice pmi;              // filled in by run() from --pmi and the program's libraries
  std::vector<std::string> warnings;
};

/// The index in `plan.apps` of the application context that `rank` belongs to (0 for a
/// negative rank), and that context.
int app_index_of_rank(const LaunchPlan& plan, int rank);
const PlanApp& app_of_rank(const LaunchPlan& plan, int rank);

/// `hosts` is empty for isolated local mode. Errors: BadOption, NotEnoughSlots.
Result<LaunchPlan> make_plan(const Options& options, const HostList& hosts,
                             const MachineFacts& machine, const EnvLookup& getenv);

/// Completes a plan made with slots_from_agents once every host's agent has reported:
/// `cores[i]` is what host i's agent counts (its cores, or hwthreads with
/// --use-hwthread-cpus). Sets those hosts' slots, the universe size, the map and apps[0].num_procs,
/// and keeps in `nodes` only the hosts that received ranks, which are always the first ones
/// (mapping by slot or by node fills hosts in order). Errors: as make_plan's (NotEnoughSlots,
/// BadOption).
/// `objects[i]` (needed with ppr_object) is how many of that object host i's agent reports.
Status map_on_reported_slots(LaunchPlan& plan, const std::vector<int>& cores,
                             const std::vector<int>& objects = {});

/// The value mpirun 4.1.4 reads for MCA parameter `key`: the last --mca, else OMPI_MCA_<key> in
/// the environment, else the first --tune file line, else Open MPI's parameter files
/// (o.param_file_mca; the user's file wins over the system's).
std::optional<std::string> mca_setting(const Options& o, const EnvLookup& getenv,
                                       const std::string& key);
/// mca_setting without the command line's --mca: what the environment, a --tune file or the
/// parameter files say.
std::optional<std::string> mca_setting_beyond_command_line(const Options& o,
                                                           const EnvLookup& getenv,
                                                           const std::string& key);

/// The parameters of mpirun's placement options, given as --mca, in the environment, a --tune
/// file or a parameter file, take effect as the options do when the options are not given
/// (measured: `--mca rmaps_base_n_pernode 2` maps as -N 2, `hwloc_base_bind_to_core 1` binds
/// as --bind-to core, `orte_rankfile F` as -rf F, `orte_do_not_launch 1` as --do-not-launch):
/// -N/--pernode/--npersocket/--ppr, --bycore/--byslot/--bynode, --bind-to-core/-socket,
/// --cpus-per-proc, --rankfile, --do-not-launch. Errors: a count that is not one (BadOption).
Status apply_option_parameters(Options& o, const EnvLookup& getenv);

/// mpirun 4.1.4's --display-allocation block for `plan.allocation`: a blank line, the
/// "ALLOCATED NODES" banner, one line per host and a closing rule. A host that is this machine
/// (`plan.hostname`) is named by the short hostname, as mpirun names its own node.
/// `in_use[i]` is the processes running on host i of the allocation (mpirun prints the block
/// again at each spawn, with them: measured); missing ones are 0.
std::string allocation_text(const LaunchPlan& plan, const std::vector<int>& in_use = {});

/// The --dry-run text: hosts and their source, the rank map, the agent commands.
std::string render_plan(const LaunchPlan& plan, const std::string& agent_command);

}  // namespace mpilaunch::launcher
