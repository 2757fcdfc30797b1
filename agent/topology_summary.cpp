#include "agent/topology_summary.hpp"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>

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

std::optional<NodeTopology> load_and_summarize(hwloc_topology_t topology,
                                               const std::vector<std::uint32_t>& within,
                                               bool* narrowed = nullptr) {
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return std::nullopt;
  }
  NodeTopology out = summarize_topology(topology, within, narrowed);
  hwloc_topology_destroy(topology);
  return out;
}

}  // namespace

NodeTopology summarize_topology(hwloc_topology* topology, const std::vector<std::uint32_t>& within,
                                bool* narrowed) {
  NodeTopology out;
  const hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topology);
  auto usable = [&](hwloc_obj_t pu) {
    return allowed == nullptr || hwloc_bitmap_isset(allowed, pu->os_index);
  };
  auto within_mask = [&](hwloc_obj_t pu) {
    return std::find(within.begin(), within.end(), pu->os_index) != within.end();
  };
  // A mask that names none of this topology's usable PUs belongs to another machine.
  bool narrow = false;
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, nullptr);
       pu != nullptr && !narrow; pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu))
    narrow = usable(pu) && within_mask(pu);
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) {
    if (!usable(pu)) continue;
    if (narrow && !within_mask(pu)) {
      if (narrowed != nullptr) *narrowed = true;
      continue;
    }
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

std::optional<NodeTopology> summarize_xml(const std::string& xml,
                                          const std::vector<std::uint32_t>& within) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return std::nullopt;
  if (hwloc_topology_set_xmlbuffer(topology, xml.data(), static_cast<int>(xml.size() + 1)) != 0) {
    hwloc_topology_destroy(topology);
    return std::nullopt;
  }
  return load_and_summarize(topology, within);
}

std::vector<std::uint32_t> own_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) != 0) return {};
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online <= 0 || CPU_COUNT(&mask) >= online) return {};
  std::vector<std::uint32_t> out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask)) out.push_back(static_cast<std::uint32_t>(cpu));
  return out;
}

NodeTopology this_node_topology(const std::string& path, bool* narrowed) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return {};
  if (!path.empty() &&
      (hwloc_topology_set_xml(topology, path.c_str()) != 0 ||
       hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0)) {
    hwloc_topology_destroy(topology);
    return {};
  }
  if (narrowed != nullptr) *narrowed = false;
  return load_and_summarize(topology, own_cpus(), narrowed).value_or(NodeTopology{});
}

}  // namespace mpilaunch::agent
