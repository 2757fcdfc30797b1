#pragma once
/// Ranks -> nodes -> local ranks and peers: where every rank of a job runs.
/// Pure: computed by the launcher from hosts and mapping options, shipped to agents in JobSpec.

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch {

struct NodeSlots {
  std::string name;
  int slots = 1;
  std::optional<int> max_slots;  // shown, not enforced (as mpirun 4.1.4)
};

enum class MapBy { Slot, Node };

/// --rank-by: Mapping keeps the order the mapper placed the processes in (mpirun's default);
/// Slot and Node renumber the placed processes (rank_places).
enum class RankBy { Mapping, Slot, Node };

struct MapRequest {
  std::optional<int> np;        // -n; default: every slot (or per_node x objects)
  std::optional<int> per_node;  // -N, --npernode, ppr:N:OBJECT: N per node, or per object
  MapBy map_by = MapBy::Slot;
  bool oversubscribe = false;
  RankBy rank_by = RankBy::Mapping;
  /// ppr:N:OBJECT below the node: each host's count of OBJECT (as `hosts`); empty: N per node.
  std::vector<int> objects;
  std::string object = "node";  // OBJECT's name, for errors
  /// --map-by OBJECT:SPAN (with `objects`): mpirun 4.1.4's byobj_span divides the processes
  /// evenly over every host's objects (np / objects each, at least 1, the first objects one
  /// more), host after host, whatever each host's slots (only the total is checked).
  bool span = false;
};

/// The placement of one job. Only nodes that received ranks are kept, in host order, so node
/// ids are contiguous. Ranks on a node are in increasing order.
class JobMap {
 public:
  JobMap() = default;
  JobMap(std::vector<std::string> nodes, std::vector<int> node_of_rank);

  int size() const { return static_cast<int>(node_of_rank_.size()); }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  const std::vector<std::string>& nodes() const { return nodes_; }
  const std::string& node_name(int node) const { return nodes_[static_cast<std::size_t>(node)]; }
  int node_of(int rank) const { return node_of_rank_[static_cast<std::size_t>(rank)]; }
  const std::vector<int>& ranks_on(int node) const {
    return ranks_on_[static_cast<std::size_t>(node)];
  }
  /// Index of `rank` among the ranks of its node (PMIX_LOCAL_RANK; also the node rank here).
  int local_rank(int rank) const { return local_rank_[static_cast<std::size_t>(rank)]; }

  /// PMIx_generate_regex input: node names in node order, comma-separated.
  std::string node_list() const;
  /// PMIx_generate_ppn input: per node the comma-separated ranks, nodes separated by ';'.
  std::string proc_list() const;
  /// MPICH PMI_process_mapping: "(vector,(start,count,ppn),...)" over rank blocks.
  std::string pmi_process_mapping() const;

 private:
  std::vector<std::string> nodes_;
  std::vector<int> node_of_rank_;
  std::vector<std::vector<int>> ranks_on_;
  std::vector<int> local_rank_;
};

/// --rank-by over one job's placed processes (`node_of_place`: the node of each process in
/// the order the mapper placed them; only how many each node got matters). mpirun 4.1.4,
/// measured on virtual nodes: Slot numbers them node by node (all of the first node's, then the
/// next node's); Node deals the numbers round the nodes, one per node with processes left, in
/// node order (-H a:2,b:2 -n 3: a,b,a; -H a:1,b:2,c:2 -n 4: a,b,c,b). Mapping returns them as
/// placed. Returns the node of each rank.
std::vector<int> rank_places(std::vector<int> node_of_place, RankBy rank_by);

/// mpirun 4.1.4's ppr mapper (-N, --npernode, --npersocket, --map-by ppr:N:OBJECT) for one
/// application context, measured on virtual nodes: its hosts are those of `hosts` with a free
/// slot (`used`: each host's processes of the contexts before; every host with
/// --oversubscribe); from the first, each gets N per object (per node without `objects`) of this
/// context's processes until `np` are placed (without np: N per object on every one of `hosts`,
/// as mpirun counts them before mapping). Errors, as mpirun refuses: NotEnoughSlots when every
/// host is full or a host would hold more processes than its slots (without --oversubscribe);
/// BadOption when the hosts cannot hold np at N per object (also with --oversubscribe). Returns
/// the host of each process in the order placed; `used` grows by them.
Result<std::vector<int>> map_ppr(const std::vector<NodeSlots>& hosts, std::vector<int>& used,
                                 const MapRequest& request);

/// Places ranks on `hosts`. Errors: BadOption for impossible requests (np < 1, -N < 1, no
/// hosts), NotEnoughSlots (detail says how many were asked and available, and how to fix it).
Result<JobMap> map_job(const std::vector<NodeSlots>& hosts, const MapRequest& request);

}  // namespace mpilaunch
