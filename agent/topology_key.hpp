#pragma once
/// Which cached topology fits this agent: the facts that decide what hwloc would discover, and
/// the cache file they name. Pure; agent/topology_cache.hpp reads the facts and the files.

#include <string>
#include <vector>

namespace mpilaunch::agent {

struct TopologyFacts {
  std::string boot_id;       // /proc/sys/kernel/random/boot_id: a reboot may change hardware
  std::string cgroup;        // the cgroup's effective CPUs and memory nodes, which hwloc reads
  std::string cpus_online;   // /sys/devices/system/cpu/online: hotplug
  std::string cpus_allowed;  // Cpus_allowed_list of /proc/self/status
  std::string mems_allowed;  // Mems_allowed_list of /proc/self/status
  std::string hwloc;         // the hwloc library's version
  std::string gpus;          // gpu_visibility() of the agent's environment
  std::string plugins;       // hwloc_plugin_choice() of the agent's environment
};

/// The GPU visibility lists in `environment` (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
/// HIP_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ZE_AFFINITY_MASK), as one text, fixed order, absent
/// ones named as such: hwloc's GPU plugins report only the devices these leave visible.
std::string gpu_visibility(const std::vector<std::string>& environment);

/// HWLOC_PLUGINS_BLACKLIST in `environment`, or that it is unset, in the same form: the plugins
/// hwloc loads decide which I/O and GPU devices the discovery reports.
std::string hwloc_plugin_choice(const std::vector<std::string>& environment);

/// "topology-<16 hex digits>.xml": a digest of every fact, so that any change names another file.
std::string topology_cache_file(const TopologyFacts& facts);

/// True when the environment steers hwloc's discovery (HWLOC_* other than the plugin list,
/// which is part of the cache file's name instead): then nothing is cached or reused.
bool hwloc_customised(const std::vector<std::string>& environment);

/// The files holding the effective cpuset of the cgroup named in /proc/self/cgroup text:
/// cgroup v1's cpuset controller if mounted, else the unified (v2) hierarchy. Their contents,
/// not the cgroup's name, go into the key: jobs in different cgroups with the same CPUs share
/// one file.
std::vector<std::string> cpuset_files(const std::string& proc_self_cgroup);

/// How many cached topologies a directory keeps: the oldest beyond this are removed.
inline constexpr std::size_t kTopologyCacheFiles = 16;

/// The value of `field` in /proc/PID/status text ("Cpus_allowed_list"), trimmed; empty if absent.
std::string status_field(const std::string& status_text, const std::string& field);

}  // namespace mpilaunch::agent
