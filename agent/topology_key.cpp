#include "agent/topology_key.hpp"

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

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

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::string topology_cache_file(const TopologyFacts& facts) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  // Each fact with its length, so that no two different fact lists hash the same text.
  for (const std::string* fact : {&facts.boot_id, &facts.cgroup, &facts.cpus_online,
                                  &facts.cpus_allowed, &facts.mems_allowed, &facts.hwloc}) {
    hash = fnv1a(fmt::format("{}:", fact->size()), hash);
    hash = fnv1a(*fact, hash);
  }
  return fmt::format("topology-{:016x}.xml", hash);
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
