#pragma once
/// Where the processes of an MPI_Comm_spawn go (issue 24), as mpirun 4.1 places a spawned job:
/// on the job's nodes, free slots first, node after node (by slot), a node's slots counting the
/// processes still running there; beyond the free slots only with --oversubscribe, then one
/// per node in turn. The "host" info key restricts the nodes.

#include <string>
#include <vector>

#include "common/result.hpp"
#include "launcher/job/launch_plan.hpp"

namespace mpilaunch::launcher {

/// The spawn's "map_by" (MPI info key, PMIX_MAPBY). mpirun 4.1.4 (measured) does not apply the
/// job's --map-by to children: only this key changes their mapping.
enum class SpawnMapping {
  Slot,  // free slots node after node (also every hardware object: core, socket, numa, ...)
  Node,  // mpirun's by-node mapper: the processes spread evenly over the nodes with free slots
};

/// Reads a map_by value (case as given; empty is Slot). Errors: BadOption for a policy that is
/// not served for spawns (ppr, seq, rankfile, dist, a modifier).
Result<SpawnMapping> spawn_mapping(const std::string& map_by);

struct SpawnNode {
  std::string name;
  int slots = 0;  // 0: unknown (counts as 1)
  int used = 0;   // processes of the run that are still there
  /// The node is this machine (host_entry.hpp's is_local_name): the info key "host" may also
  /// name it localhost, 127.0.0.1, ::1 or the machine's hostname, as under mpirun 4.1.4.
  bool this_machine = false;
};

/// The nodes that `names` (comma-separated, "name:N" taken as name; localhost, 127.0.0.1, ::1 and
/// `hostname` name this machine's node) denote, each once. Errors: UnknownHost naming the info
/// `key` ("host", "hostfile F", "add-host").
Result<std::vector<int>> spawn_nodes_named(const std::vector<SpawnNode>& nodes,
                                           const std::string& names, const std::string& hostname,
                                           const std::string& key);

/// The info keys of one spawned application context that choose its nodes.
struct SpawnHostKeys {
  std::string host;                         // "host"
  std::string hostfile;                     // "hostfile": the file's name
  std::vector<std::string> hostfile_hosts;  // and its hosts, as read
  std::string add_host;                     // "add-host"
};

/// The nodes an application context may use, as place_spawn's `hosts` (empty: every node), as
/// mpirun 4.1.4 reads the keys (measured): `hostfile` and `host` each restrict the nodes of the
/// job, both given their common ones; `add-host` naming nodes of the job restricts as `host`
/// does (add-host dyn1:3 with dyn1 full: "already filled"); a file's slots= change nothing.
/// Errors: UnknownHost (a name that is not a node), NotEnoughSlots (no node in common), BadOption
/// (add-host naming a new host: mpirun 4.1.4 starts a daemon there and the job then fails).
Result<std::string> spawn_host_filter(const std::vector<SpawnNode>& nodes,
                                      const SpawnHostKeys& keys, const std::string& hostname);

/// Places `count` processes: the node index of each, in rank order; `nodes[i].used` grows by
/// what went there. `hosts` is the info key "host" (comma-separated node names, "name:N" taken
/// as name) or empty for every node; `hostname` is this machine's. Errors: UnknownHost (a name that
/// is not a node of the job), NotEnoughSlots (no --oversubscribe and too few free slots; nothing is
/// placed then). With SpawnMapping::Node the ranks are numbered node after node, as mpirun
/// numbers them.
///
/// The nodes are taken in mpirun 4.1.4's order (measured): this machine first (mpirun's own
/// node heads its node pool), then the others in the order given. By slot, the filling starts
/// at `bookmark` (the node where the spawning job's map ended, as mpirun starts a spawned job
/// where that job's mapping ended) when it has a free slot, else at the first node with one, and
/// goes round (beyond the free slots, with --oversubscribe, the rest evenly from that node, as
/// measured); the ranks are then numbered in node order (-H dyn1:2,dyn2:2,dyn3:2 --map-by node -n
/// 3, spawn 2: rank 0 on dyn1, rank 1 on dyn3). By node likewise: the nodes are dealt from the
/// bookmark when it has a free slot (-H dyn1:2,dyn2:2,dyn3:2 --map-by node -n 2, spawn 2 with
/// map_by node: dyn2, dyn3). `rank_by_node` (the job ranks by node: --map-by node without
/// --rank-by, or --rank-by node): within the free slots the ranks are dealt one node at a time
/// in node order, whatever the spawn's own mapping, as mpirun 4.1.4 ranks them (-H dyn1:3,dyn2:3
/// --map-by node -n 2, spawn 4: dyn1, dyn2, dyn1, dyn2). When no node has a free slot
/// (--oversubscribe) the filling starts at the bookmark, or at the node before it (round the
/// list) when that one is less overloaded (measured). `last_node`, when given, gets the new
/// job's own bookmark: the node of the last process placed (by slot the last node filled, by
/// node the last dealt to; by slot in a job ranked by node, its last rank's), where a spawn by the
/// new job's processes starts (measured: spawns of spawned processes, mpirun's job 3).
Result<std::vector<int>> place_spawn(std::vector<SpawnNode>& nodes, const std::string& hosts,
                                     int count, bool oversubscribe,
                                     const std::string& hostname = {},
                                     SpawnMapping mapping = SpawnMapping::Slot, int bookmark = -1,
                                     bool rank_by_node = false, int* last_node = nullptr);

/// A spawn from a job placed by a rankfile (`lines`, LaunchPlan::rankfile, read from `path`), as
/// mpirun 4.1.4 maps it with its rank_file mapper and the same file (measured): without
/// `oversubscribe` it fails, whatever slots -H or a host file give ("All nodes which are allocated
/// for this job are already filled": its hosts have a slot per line naming them); with it,
/// spawned rank i runs where the file's line for rank i says, host and CPUs. `first` is the
/// spawn's rank of this application context's first process. Returns each process's line, in
/// rank order. Errors: NotEnoughSlots (no --oversubscribe); BadOption (a rank without a line, as
/// mpirun's "A rank is missing its location specification"; a line whose host runs no rank of
/// the job, where no agent could start it).
Result<std::vector<RankfilePlace>> place_spawn_by_rankfile(const std::vector<RankfilePlace>& lines,
                                                           const std::string& path, int first,
                                                           int count, bool oversubscribe);

}  // namespace mpilaunch::launcher
