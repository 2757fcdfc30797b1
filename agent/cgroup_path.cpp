#include "agent/cgroup_path.hpp"

#include <vector>

#include "common/text_split.hpp"

namespace mpilaunch::agent {

std::optional<std::string> cgroup2_dir(std::string_view mountinfo, std::string_view proc_cgroup) {
  std::optional<std::string_view> path;
  for (std::string_view line : split_at(proc_cgroup, '\n'))
    if (line.starts_with("0::")) path = line.substr(3);
  if (!path || !path->starts_with('/') || path->find('\\') != std::string_view::npos)
    return std::nullopt;
  for (std::string_view line : split_at(mountinfo, '\n')) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS"
    std::vector<std::string_view> fields;
    for (std::string_view f : split_at(line, ' '))
      if (!f.empty()) fields.push_back(f);
    std::size_t dash = 0;
    for (std::size_t i = 6; i < fields.size(); ++i)
      if (fields[i] == "-") {
        dash = i;
        break;
      }
    if (dash == 0 || dash + 1 >= fields.size() || fields[dash + 1] != "cgroup2") continue;
    const std::string_view root = fields[3];
    const std::string_view mountpoint = fields[4];
    if (root.find('\\') != std::string_view::npos ||
        mountpoint.find('\\') != std::string_view::npos)
      continue;
    std::string_view rest = *path;
    if (root != "/") {
      if (!rest.starts_with(root) || (rest.size() > root.size() && rest[root.size()] != '/'))
        continue;
      rest.remove_prefix(root.size());
    }
    std::string dir(mountpoint);
    if (rest != "/" && !rest.empty()) dir += rest;
    return dir;
  }
  return std::nullopt;
}

}  // namespace mpilaunch::agent
