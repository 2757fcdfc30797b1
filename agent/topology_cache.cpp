#include "agent/topology_cache.hpp"

#include <fcntl.h>
#include <hwloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/text_format.hpp"

#include "agent/topology_key.hpp"
#include "common/file_text.hpp"

extern char** environ;

namespace mpilaunch::agent {
namespace {

TopologyFacts read_facts(const std::vector<std::string>& environment) {
  const std::string status = file_text("/proc/self/status");
  const unsigned version = hwloc_get_api_version();
  // The cgroup's cpuset by content; its name only where the files cannot be read.
  const std::string cgroup_text = file_text("/proc/self/cgroup");
  std::string cgroup;
  for (const std::string& file : cpuset_files(cgroup_text)) {
    std::ifstream in(file);
    if (!in) {
      cgroup = cgroup_text;
      break;
    }
    cgroup += file_text(file) + ";";
  }
  if (cgroup.empty()) cgroup = cgroup_text;
  return TopologyFacts{.boot_id = file_text("/proc/sys/kernel/random/boot_id"),
                       .cgroup = cgroup,
                       .cpus_online = file_text("/sys/devices/system/cpu/online"),
                       .cpus_allowed = status_field(status, "Cpus_allowed_list"),
                       .mems_allowed = status_field(status, "Mems_allowed_list"),
                       .hwloc = mpilaunch::format("{:x}", version),
                       .gpus = gpu_visibility(environment),
                       .plugins = hwloc_plugin_choice(environment)};
}

// Ours and not a symlink; the default place must also be closed to others.
bool usable_dir(const std::string& dir, bool private_only) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
    return false;
  return !private_only || (st.st_mode & 077) == 0;
}

// Written whole by store() (renamed into place); anything else is replaced.
bool complete_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  constexpr std::string_view kEnd = "</topology>\n";
  char tail[kEnd.size()];
  struct stat st {};
  const bool whole = ::fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(kEnd.size()) &&
                     ::pread(fd, tail, sizeof tail, st.st_size - static_cast<off_t>(sizeof tail)) ==
                         static_cast<ssize_t>(sizeof tail) &&
                     std::string_view(tail, sizeof tail) == kEnd;
  ::close(fd);
  return whole;
}

// Everything any reader could ask for: a reader's filters drop what it does not keep.
hwloc_topology_t discover() {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return nullptr;
  if (hwloc_topology_set_all_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_ALL) != 0 ||
      hwloc_topology_set_type_filter(topology, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_STRUCTURE) !=
          0 ||
      hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0 ||
      hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return nullptr;
  }
  return topology;
}

// Keeps the newest kTopologyCacheFiles files: machines whose CPU sets change (containers,
// hotplug) do not fill the directory.
void prune(const std::string& dir) {
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("topology-") && name.ends_with(".xml"))
      files.emplace_back(entry.last_write_time(ec), entry.path());
  }
  if (files.size() <= kTopologyCacheFiles) return;
  std::sort(files.begin(), files.end());
  for (std::size_t i = 0; i + kTopologyCacheFiles < files.size(); ++i)
    std::filesystem::remove(files[i].second, ec);
}

// Written aside, then renamed into place: a reader never sees half a file.
bool store(hwloc_topology_t topology, const std::string& dir, const std::string& path) {
  std::string temp = dir + "/.topology-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return false;
  ::close(fd);
  if (hwloc_topology_export_xml(topology, temp.c_str(), 0) != 0 ||
      ::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

}  // namespace

std::string topology_cache_dir() {
  const char* configured = std::getenv("MPILAUNCH_TOPOLOGY_CACHE");
  if (configured != nullptr && *configured != '\0') {
    if (std::string(configured) == "off") return {};
    return usable_dir(configured, false) ? std::string(configured) : std::string();
  }
  std::string base = "/dev/shm";
  if (::access(base.c_str(), W_OK | X_OK) != 0) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  const std::string dir = mpilaunch::format("{}/mpilaunch-topology-{}", base, ::geteuid());
  return usable_dir(dir, true) ? dir : std::string();
}

std::string topology_file() {
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  if (hwloc_customised(environment)) return {};
  const std::string dir = topology_cache_dir();
  if (dir.empty()) return {};
  const std::string path = dir + "/" + topology_cache_file(read_facts(environment));
  if (complete_file(path)) return path;
  hwloc_topology_t topology = discover();
  if (topology == nullptr) return {};
  const bool stored = store(topology, dir, path);
  hwloc_topology_destroy(topology);
  if (!stored) return {};
  prune(dir);
  return path;
}

hwloc_topology* load_topology(const std::string& path) {
  if (path.empty()) return nullptr;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return nullptr;
  // The XML describes this very machine: binding and cpuset queries stay valid.
  if (hwloc_topology_set_xml(topology, path.c_str()) != 0 ||
      hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0 ||
      hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return nullptr;
  }
  return topology;
}

}  // namespace mpilaunch::agent
