#include "agent/topology_key.hpp"

#include <cstdint>
#include <span>
#include <string_view>

#include "common/text_format.hpp"

#include "common/text.hpp"

namespace mpilaunch::agent {
namespace {

// FNV-1a, 64 bits: a file name, not a security boundary (the cache directory is private).
std::uint64_t fnv1a(std::string_view data, std::uint64_t hash = 0xcbf29ce484222325ULL) {
  for (const unsigned char c : data) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// The entries of `names` in `environment`, one per line in the order given, absent ones named
// as such; the last entry of a name wins, as in the environment itself.
std::string named_entries(const std::vector<std::string>& environment,
                          std::span<const std::string_view> names) {
  std::string text;
  for (std::string_view name : names) {
    const std::string* value = nullptr;
    for (const std::string& entry : environment)
      if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
          entry[name.size()] == '=')
        value = &entry;
    text += value != nullptr ? *value + '\n' : std::string(name) + " unset\n";
  }
  return text;
}

}  // namespace

std::string topology_cache_file(const TopologyFacts& facts) {
  // What the file holds is part of its name: the lean XML of earlier versions (no I/O
  // devices) is never taken for the complete one the ranks are given.
  std::uint64_t hash = fnv1a("complete", 0xcbf29ce484222325ULL);
  // Each fact with its length, so that no two different fact lists hash the same text.
  for (const std::string* fact :
       {&facts.boot_id, &facts.cgroup, &facts.cpus_online, &facts.cpus_allowed, &facts.mems_allowed,
        &facts.hwloc, &facts.gpus, &facts.plugins}) {
    hash = fnv1a(mpilaunch::format("{}:", fact->size()), hash);
    hash = fnv1a(*fact, hash);
  }
  return mpilaunch::format("topology-{:016x}.xml", hash);
}

std::string gpu_visibility(const std::vector<std::string>& environment) {
  static constexpr std::string_view kNames[] = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                                "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
                                                "ZE_AFFINITY_MASK"};
  return named_entries(environment, kNames);
}

std::string hwloc_plugin_choice(const std::vector<std::string>& environment) {
  static constexpr std::string_view kNames[] = {"HWLOC_PLUGINS_BLACKLIST"};
  return named_entries(environment, kNames);
}

bool hwloc_customised(const std::vector<std::string>& environment) {
  for (const std::string& entry : environment) {
    const std::string_view e(entry);
    if (e.substr(0, 6) != "HWLOC_") continue;
    if (e.substr(0, e.find('=')) == "HWLOC_PLUGINS_BLACKLIST") continue;
    return true;
  }
  return false;
}

std::vector<std::string> cpuset_files(const std::string& proc_self_cgroup) {
  std::string unified;
  std::string_view text(proc_self_cgroup);
  while (!text.empty()) {
    const std::size_t eol = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(std::min(eol + 1, text.size()));
    // "ID:CONTROLLERS:PATH"; the path may itself hold colons.
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string path(trim(line.substr(second + 1)));
    if (controllers.empty()) {
      unified = path;
      continue;
    }
    std::string_view rest = controllers;
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      if (rest.substr(0, comma) == "cpuset")
        return {"/sys/fs/cgroup/cpuset" + path + "/cpuset.effective_cpus",
                "/sys/fs/cgroup/cpuset" + path + "/cpuset.effective_mems"};
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
  }
  if (unified.empty()) return {};
  return {"/sys/fs/cgroup" + unified + "/cpuset.cpus.effective",
          "/sys/fs/cgroup" + unified + "/cpuset.mems.effective"};
}

std::string status_field(const std::string& status_text, const std::string& field) {
  const std::string_view text(status_text);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, eol - at);
    if (line.size() > field.size() && line.substr(0, field.size()) == field &&
        line[field.size()] == ':')
      return std::string(trim(line.substr(field.size() + 1)));
    at = eol + 1;
  }
  return {};
}

}  // namespace mpilaunch::agent
