#include "agent/topology_summary.hpp"

#include <hwloc.h>

namespace mpilaunch::agent {

namespace {

std::int32_t ancestor(hwloc_topology_t topology, hwloc_obj_type_t type, hwloc_obj_t pu) {
  const hwloc_obj_t obj = hwloc_get_ancestor_obj_by_type(topology, type, pu);
  return obj == nullptr ? -1 : static_cast<std::int32_t>(obj->logical_index);
}

// NUMA nodes hang beside the CPU tree in hwloc 2: the one whose CPUs include the PU.
std::int32_t numa_of(hwloc_topology_t topology, hwloc_obj_t pu) {
  for (hwloc_obj_t numa = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr);
       numa != nullptr; numa = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, numa))
    if (numa->cpuset != nullptr && hwloc_bitmap_isset(numa->cpuset, pu->os_index))
      return static_cast<std::int32_t>(numa->logical_index);
  return -1;
}

std::optional<NodeTopology> load_and_summarize(hwloc_topology_t topology) {
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return std::nullopt;
  }
  NodeTopology out = summarize_topology(topology);
  hwloc_topology_destroy(topology);
  return out;
}

}  // namespace

NodeTopology summarize_topology(hwloc_topology* topology) {
  NodeTopology out;
  const hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topology);
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) {
    if (allowed != nullptr && !hwloc_bitmap_isset(allowed, pu->os_index)) continue;
    out.pus.push_back(TopologyPu{.os_index = pu->os_index,
                                 .core = ancestor(topology, HWLOC_OBJ_CORE, pu),
                                 .l1 = ancestor(topology, HWLOC_OBJ_L1CACHE, pu),
                                 .l2 = ancestor(topology, HWLOC_OBJ_L2CACHE, pu),
                                 .l3 = ancestor(topology, HWLOC_OBJ_L3CACHE, pu),
                                 .numa = numa_of(topology, pu),
                                 .socket = ancestor(topology, HWLOC_OBJ_PACKAGE, pu)});
  }
  return out;
}

std::optional<NodeTopology> summarize_xml(const std::string& xml) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return std::nullopt;
  if (hwloc_topology_set_xmlbuffer(topology, xml.data(), static_cast<int>(xml.size() + 1)) != 0) {
    hwloc_topology_destroy(topology);
    return std::nullopt;
  }
  return load_and_summarize(topology);
}

NodeTopology this_node_topology(const std::string& path) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return {};
  if (!path.empty() &&
      (hwloc_topology_set_xml(topology, path.c_str()) != 0 ||
       hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0)) {
    hwloc_topology_destroy(topology);
    return {};
  }
  return load_and_summarize(topology).value_or(NodeTopology{});
}

}  // namespace mpilaunch::agent
