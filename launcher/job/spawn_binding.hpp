#pragma once
/// How mpirun 4.1.4 binds the processes of an MPI_Comm_spawn (issue 24), measured with it: by
/// its default policy, whatever the job's --bind-to (a job run with --bind-to none or socket
/// still gets its children bound to cores): each process to a core (a hwthread with
/// --use-hwthread-cpus) when the spawn starts at most 2 processes, else to a NUMA node, counting
/// on each object of its node the processes that still run bound to exactly that object (a parent
/// bound to a core counts there; one bound to its socket, or by
/// --bind-to cpu-list:ordered, counts on no core): from the (P-1)-th object for the P processes
/// on the node before it (this spawn's earlier ones included), the first with room (fewer
/// processes than CPUs), else that (P-1)-th one, overloaded (-H localhost:4 -n 1
/// --oversubscribe, spawn 2: both on core 1). The binding is dropped for the whole spawn, as
/// mpirun drops a default binding, when a node would hold more processes than slots, or when an
/// object would hold more processes than it has CPUs unless overloading is allowed
/// (--oversubscribe, or the job's :overload-allowed). Measured on 2 cores and one NUMA node:
/// the rule for objects of several CPUs (NUMA nodes) is the same rule, not measured.
/// Pure.

#include <cstdint>
#include <vector>

#include "common/node_topology.hpp"

namespace mpilaunch::launcher {

/// One node of the job as a spawn finds it.
struct SpawnBindingNode {
  const NodeTopology* topology = nullptr;  // null: unknown (nothing there is bound)
  /// The PUs (indexes into topology->pus) of each process still running there that is bound.
  std::vector<std::vector<std::uint32_t>> bound;
  int slots = 0;    // 0: unknown (never oversubscribed)
  int running = 0;  // processes still running there, bound or not
};

/// The spawned processes' PUs, in rank order (`node_of_rank[r]` is rank r's node), each empty
/// when the spawn is not bound (then every one is). `overload_allowed`: more processes than
/// CPUs on an object keep their binding.
std::vector<std::vector<std::uint32_t>> bind_spawned(const std::vector<SpawnBindingNode>& nodes,
                                                     const std::vector<int>& node_of_rank,
                                                     bool use_hwthreads, bool overload_allowed);

}  // namespace mpilaunch::launcher
