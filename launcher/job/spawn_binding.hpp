#pragma once
/// How mpirun 4.1.4 binds the processes of an MPI_Comm_spawn (issue 24), measured with it: by
/// its default policy, whatever the job's --bind-to (a job run with --bind-to none or socket
/// still gets its children bound to cores): each process to a core (a hwthread with
/// --use-hwthread-cpus) when the spawn starts at most 2 processes, else to a NUMA node; each to
/// the least used such object of its node, counting the processes that still run bound to
/// exactly that object (a parent bound to a core counts there; one bound to its socket, or by
/// --bind-to cpu-list:ordered, counts on no core), of equally used ones the first from the
/// (P-1)-th object for the P processes the node ran before the spawn; the binding is dropped for
/// the whole spawn, as mpirun drops a default binding, when an object would then hold more
/// processes than it has CPUs, or when a node would hold more processes than slots. Pure.

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
/// when the spawn is not bound (then every one is).
std::vector<std::vector<std::uint32_t>> bind_spawned(const std::vector<SpawnBindingNode>& nodes,
                                                     const std::vector<int>& node_of_rank,
                                                     bool use_hwthreads);

}  // namespace mpilaunch::launcher
