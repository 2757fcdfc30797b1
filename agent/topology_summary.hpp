#pragma once
/// The node's topology as the launcher maps and binds with it (common/node_topology.hpp),
/// read through hwloc's public API: the PUs this process may use, each with the core, caches,
/// NUMA node and socket that hold it. The agent sends it in its hello.

#include <optional>
#include <string>

#include "common/node_topology.hpp"

struct hwloc_topology;

namespace mpilaunch::agent {

/// The summary of a loaded topology: its allowed PUs in logical order.
NodeTopology summarize_topology(hwloc_topology* topology);

/// The summary of hwloc XML text (a saved machine, tests/data/topologies); nullopt when hwloc
/// cannot read it.
std::optional<NodeTopology> summarize_xml(const std::string& xml);

/// This machine's summary: from the XML file `path` (agent/topology_cache.hpp) when given,
/// else from hwloc's own discovery; an empty topology when hwloc fails (ranks then stay
/// unbound).
NodeTopology this_node_topology(const std::string& path);

}  // namespace mpilaunch::agent
