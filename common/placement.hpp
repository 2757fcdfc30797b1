#pragma once
/// Mapping, ranking and binding as Open MPI 4.1's mpirun does them: the command line's
/// placement options, parsed, and each rank's processing units on its node, computed from
/// every node's topology (common/node_topology.hpp). Pure: the launcher calls it once every
/// agent has reported its node; the agents bind to the result.
///
/// mpirun 4.1.4's defaults, measured with it (docs/placement.md):
/// at most 2 ranks: map by core, bind to core (hwthread with --use-hwthread-cpus); more:
/// map by NUMA, bind to NUMA. --map-by OBJECT binds to that object. A default binding that
/// would put more ranks on an object than it has CPUs (cores, or hwthreads) is dropped on that
/// node (kept with --oversubscribe itself, PlacementPolicy::default_overload), and any default
/// binding on an oversubscribed job (more ranks than slots) for the whole job; an explicit one
/// is refused unless :overload-allowed.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/job_map.hpp"
#include "common/node_topology.hpp"
#include "common/result.hpp"

namespace mpilaunch {

/// The placement options as written on the command line (launcher/options.cpp fills it).
struct PlacementOptions {
  std::string map_by;   // --map-by: slot|node|OBJECT|ppr:N:OBJECT, then :PE=n,SPAN,... modifiers
  std::string rank_by;  // --rank-by
  std::string bind_to;  // --bind-to: none|OBJECT, then :overload-allowed,if-supported
  bool report_bindings = false;
  bool display_map = false;
  bool use_hwthread_cpus = false;
  std::optional<int> cpus_per_proc;  // --cpus-per-proc / --cpus-per-rank (PE=n)
  std::string cpu_list;  // --cpu-list / --cpu-set (hwloc_base_cpu_list): a slot list, "0-2,5"
};

/// A rankfile's `slot=` for one rank, in mpirun 4.1's syntax: "C", "C-D", "C,E-F" are logical
/// CPUs of the node (cores, or hwthreads with --use-hwthread-cpus); "S:C..." those of socket S.
struct RankSlot {
  std::optional<int> socket;  // S of "S:C..."
  std::vector<int> cpus;      // logical indexes (within the socket when given), increasing
  std::string text;           // as written, for messages
  friend bool operator==(const RankSlot&, const RankSlot&) = default;
};

/// Errors: BadOption saying what is wrong with `text` and what is accepted.
Result<RankSlot> parse_rank_slot(std::string_view text);

/// The parsed policy.
struct PlacementPolicy {
  bool map_given = false;            // --map-by given (else mpirun's default: core or numa)
  bool by_node = false;              // --map-by node: ranks dealt round robin over nodes
  std::optional<HwLevel> map_level;  // --map-by OBJECT, or ppr's object
  int ppr = 0;                       // ppr:N:OBJECT: N ranks per object (0: not ppr)
  int pe = 1;                        // CPUs per rank (:PE=n, --cpus-per-proc)
  /// --map-by OBJECT:SPAN: mpirun 4.1.4's byobj_span. The job's processes are divided evenly
  /// over every OBJECT of every node (navg = np / objects, at least 1; the first np - navg *
  /// objects objects one more), each object's share placed together, object by object; they
  /// are numbered going round the objects (--rank-by OBJECT, or slot/node as given), and then
  /// the node's j-th placed process is moved to its object j % objects, as mpirun 4.1.4's
  /// assign_locations does (measured: -n 6 over 2 sockets lists ranks 0 2 4 1 3 5, bound to
  /// socket 0, 1, 0, 1, 0, 1).
  bool span = false;
  bool display = false;               // :DISPLAY, --display-map
  std::optional<bool> oversubscribe;  // :OVERSUBSCRIBE / :NOOVERSUBSCRIBE
  std::optional<HwLevel> rank_level;  // --rank-by OBJECT (nullopt: slot, node or default)
  bool rank_given = false;            // --rank-by given
  bool rank_by_node = false;          // --rank-by node
  bool rank_span = false;             // --rank-by OBJECT:SPAN (mpirun's rank_span)
  bool bind_given = false;            // --bind-to given
  bool bind_none = false;             // --bind-to none
  std::optional<HwLevel> bind_level;  // --bind-to OBJECT
  bool overload_allowed = false;
  /// --oversubscribe (rmaps_base_oversubscribe; not --map-by's :OVERSUBSCRIBE): a binding that
  /// --bind-to did not give (the default, or --map-by OBJECT's) may put more processes than CPUs
  /// on an object, as mpirun 4.1.4 lets it then (measured: -H localhost:4 -n 3 --oversubscribe
  /// binds to the NUMA node; --map-by core to cores 0, 1, 0); its spawned processes too.
  bool default_overload = false;
  bool if_supported = false;
  bool use_hwthreads = false;  // --use-hwthread-cpus: a CPU is a hwthread, not a core
  bool report_bindings = false;
  /// -rf/--rankfile: each rank's slot, by rank (empty: no rankfile). Binds each rank to its
  /// slot's CPUs, whatever --map-by and --bind-to say (except --bind-to none).
  std::vector<RankSlot> rankfile;
  /// --map-by seq (or --mca rmaps seq): rank i runs on the host of the i-th -H word or host file
  /// line; binding as mpirun's default (the launcher places the ranks, launch_plan.cpp).
  bool seq = false;
  /// --cpu-list/--cpu-set: the CPUs (a rankfile slot's forms) every rank of a node may use.
  /// mpirun 4.1.4 maps the ranks over the slots in order (its rank_file mapper, so no --map-by)
  /// and binds each to all of them, oversubscribed or not.
  std::optional<RankSlot> cpu_list;
  /// --bind-to cpu-list[:ordered]: bound to the CPU list (the node's CPUs without one);
  /// `ordered`: each rank to one of them, the node's local rank k to the k-th in OS order.
  bool bind_cpu_list = false;
  bool ordered = false;
  /// The nodes' topology is read from this file (HWLOC_XMLFILE, which local and srun agents
  /// inherit), not discovered: hwloc says it is not "this system", and mpirun 4.1.4 binds
  /// nothing then (measured: default and implied bindings dropped, an explicit --bind-to
  /// refused: "at least one node does NOT support binding processes to cpus"). Empty: this
  /// machine's own (or HWLOC_THISSYSTEM=1 vouches for the file).
  std::string topology_file;
  /// ppr with several application contexts: the first rank of each context after the first.
  /// mpirun 4.1.4 maps each context N per object on its own (measured), so a node's objects
  /// are filled, and checked, context by context.
  std::vector<int> context_starts;
};

/// Errors: BadOption naming the option, the value and what is accepted.
Result<PlacementPolicy> parse_placement(const PlacementOptions& options);

/// One node's part of the job: its slots and its topology (as its agent reported it).
struct NodePlacementInput {
  int slots = 1;
  NodeTopology topology;
  /// Not the launcher's own machine (a virtual node is not either): the sequential mapper binds
  /// nothing there, as mpirun 4.1.4's binds nothing on the nodes other than its own.
  bool remote = false;
};

/// Each node's ranks (in JobMap::ranks_on order): the PUs each is bound to (indexes into that
/// node's topology), empty when the rank is not bound.
struct JobBindings {
  std::vector<std::vector<std::vector<std::uint32_t>>> pus;  // [node][local rank] -> PUs
  bool bound = false;       // at least one rank is bound (OMPI_MCA_orte_bound_at_launch)
  std::string policy;       // "core", "numa", ... or "none": what was applied
  std::string why_unbound;  // when a default binding was dropped: why
  /// [node] the PUs the job may use there, when a CPU list narrows them (else empty: all):
  /// a rank bound to all of them is reported "not bound", as mpirun 4.1.4 reports it.
  std::vector<std::vector<std::uint32_t>> available;
  /// --bind-to none with a CPU list: `pus` keep each rank on the list's CPUs, but the ranks are
  /// not told they are bound (no OMPI_MCA_orte_bound_at_launch), as mpirun 4.1.4 runs them.
  bool not_bound = false;
  /// [node] its local ranks in the order mpirun 4.1.4's mapper placed them (its JOB MAP lists a
  /// node's processes in that order, not by rank: `--map-by socket --rank-by core -n 4` on two
  /// sockets lists ranks 0 2 1 3). Empty for a node: by rank.
  std::vector<std::vector<int>> mapped_order;
  /// [node] the default binding was dropped there (it would overload an object) while other
  /// nodes keep theirs, as mpirun 4.1.4 decides node by node; empty when no node was dropped
  /// or every node was (then `policy` is "none"). Such a node's ranks report themselves.
  std::vector<bool> dropped;
  /// [node] its ranks, unbound, are told they are bound all the same
  /// (OMPI_MCA_orte_bound_at_launch=1), as mpirun 4.1.4 tells them where its binding policy
  /// holds but it binds nothing: on a saved topology (HWLOC_XMLFILE; measured: the default,
  /// implied and :if-supported bindings, not --bind-to none nor an oversubscribed job), and on
  /// the sequential mapper's nodes other than the launcher's own (also with --mca rmaps seq and
  /// with --bind-to core; not --bind-to none). Such a rank reports itself ("MCW rank N not
  /// bound", from its Open MPI). Empty: none.
  std::vector<bool> told_bound;
};

/// Binds every rank of `map`. `shared_machine`: the nodes are virtual nodes of one machine
/// (same topology): their ranks share its CPUs, so a node's ranks continue where the previous
/// node's ended instead of all starting at the first core; when that would overload an object,
/// each node is bound on its own, as mpirun's daemon per node binds it. A default binding that
/// overloads an object of a node is dropped on that node only. Errors: BadOption when an explicit
/// binding cannot be honoured (more ranks than CPUs on an object without :overload-allowed,
/// an object the node lacks without :if-supported, more PEs than the node has CPUs; a rankfile
/// slot naming a socket or CPU its node does not have).
Result<JobBindings> bind_ranks(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                               const PlacementPolicy& policy, bool shared_machine);

/// bind_ranks() with a rankfile or a CPU list: each rank to its slot's CPUs
/// (placement_rankfile.cpp).
Result<JobBindings> bind_rankfile(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                                  const PlacementPolicy& policy);

/// bind_ranks() with --bind-to cpu-list:ordered: local rank k of each node to the k-th PU (in OS
/// order) of the CPU list there (all the node's PUs without a list). Errors: BadOption when a
/// node has more ranks than those PUs, or lacks a CPU of the list.
Result<JobBindings> bind_ordered(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                                 const PlacementPolicy& policy);

}  // namespace mpilaunch

namespace mpilaunch {

/// What the reports say about one node.
struct ReportNode {
  std::string name;  // as mpirun names it: the node's own hostname, short
  int pid = 0;       // the agent's, in place of mpirun's daemon's
  int slots = 0;
  int max_slots = 0;  // 0: none
  const NodeTopology* topology = nullptr;
  /// Not the launcher's own machine (virtual nodes are not either): under mpirun 4.1.4 the
  /// node's daemon binds its ranks, so mpirun's maps, made before, show them unbound (measured:
  /// `-H node1:1,node2:1 -n 2 --display-map` prints "Bound: N/A" for both ranks, bound to core 0).
  bool remote = false;
};

/// mpirun's --report-bindings lines, one per rank in rank order, each ending in '\n':
/// "[vm:1234] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]". None when the job is not
/// bound; an empty string for a rank of a node whose default binding was dropped (mpirun's
/// daemon prints nothing for it; an MPI rank prints its own line).
std::vector<std::string> report_bindings_lines(const JobMap& map,
                                               const std::vector<ReportNode>& nodes,
                                               const JobBindings& bindings);

/// The same lines joined.
std::string report_bindings_text(const JobMap& map, const std::vector<ReportNode>& nodes,
                                 const JobBindings& bindings);

/// mpirun's --display-map table ("========================   JOB MAP   ========================"),
/// with `job` in place of its job id and `total_slots` every host's slots. `app_of_rank`: each
/// rank's application context ("App: N"; empty: every rank's is 0). A remote node's ranks are
/// "Bound: N/A", as mpirun shows them.
std::string display_map_text(const std::string& job, int total_slots, const JobMap& map,
                             const std::vector<ReportNode>& nodes, const JobBindings& bindings,
                             const std::vector<int>& app_of_rank = {});

/// How much of the machine two PU sets of one node share, as Open MPI 4.1 prints a relative
/// locality: "CL:CU:N:B" (same node), then ":Nu", ":S", ":L3", ":L2", ":L1", ":C", ":Hwt" for
/// each level where one object holds PUs of both.
std::string relative_locality_text(const NodeTopology& topology,
                                   const std::vector<std::uint32_t>& a,
                                   const std::vector<std::uint32_t>& b);

/// mpirun 4.1.4's --display-diffable-map text (measured): "<map>", per node "\t<host num=N>" with
/// one "\t\t<process rank=R app_idx=A local_rank=L node_rank=L binding=[B/.]>" line per rank
/// ("UNBOUND" for every PU, and on a remote node), "\t</host>"; then, when the first node's
/// first rank is bound (mpirun's own node, measured), the locality of each other rank of the
/// first node to its first rank and "\t</locality>\n</map>". Otherwise mpirun stops after the
/// last "\t</host>", and so does this.
std::string display_diffable_map_text(const JobMap& map, const std::vector<ReportNode>& nodes,
                                      const JobBindings& bindings,
                                      const std::vector<int>& app_of_rank = {});

}  // namespace mpilaunch
