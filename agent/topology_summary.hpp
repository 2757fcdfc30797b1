#pragma once
/// The node's topology as the launcher maps and binds with it (common/node_topology.hpp),
/// read through hwloc's public API: the PUs this process may use, each with the core, caches,
/// NUMA node and socket that hold it. The agent sends it in its hello.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/node_topology.hpp"

struct hwloc_topology;

namespace mpilaunch::agent {

/// The summary of a loaded topology: its allowed PUs in logical order, and of those only the
/// ones in `within` (OS indexes) when it is not empty and names at least one of them (a CPU
/// mask of another machine than the topology's leaves it whole).
/// `narrowed`, when given, says whether `within` left out any PU the topology allows.
NodeTopology summarize_topology(hwloc_topology* topology,
                                const std::vector<std::uint32_t>& within = {},
                                bool* narrowed = nullptr);

/// The summary of hwloc XML text (a saved machine, tests/data/topologies), narrowed to `within`
/// as summarize_topology() does; nullopt when hwloc cannot read it.
std::optional<NodeTopology> summarize_xml(const std::string& xml,
                                          const std::vector<std::uint32_t>& within = {});

/// The CPUs this process may run on (sched_getaffinity: `taskset`, srun's task/affinity, a
/// cgroup's cpuset), as OS indexes; empty when that is every online CPU, so that nothing
/// narrows the topology (nor a saved one given with HWLOC_XMLFILE).
std::vector<std::uint32_t> own_cpus();

/// This machine's summary: from the XML file `path` (agent/topology_cache.hpp) when given,
/// else from hwloc's own discovery, narrowed to own_cpus(): the agent never binds a rank to a
/// CPU it may not run on itself; an empty topology when hwloc fails (ranks then stay unbound).
/// `narrowed`, when given, says whether the agent's own mask left out CPUs that hwloc (the
/// machine, its cgroup) allows: `taskset`, srun's task/affinity.
NodeTopology this_node_topology(const std::string& path, bool* narrowed = nullptr);

}  // namespace mpilaunch::agent
