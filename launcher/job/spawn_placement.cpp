#include "launcher/job/spawn_placement.hpp"

#include <algorithm>

#include "common/text.hpp"
#include "common/text_format.hpp"

#include "launcher/job/launch_plan.hpp"

namespace mpilaunch::launcher {

Result<std::vector<int>> place_spawn(std::vector<SpawnNode>& nodes, const std::string& hosts,
                                     int count, bool oversubscribe, const std::string& hostname) {
  std::vector<int> candidates;
  if (trim(hosts).empty()) {
    for (std::size_t n = 0; n < nodes.size(); ++n) candidates.push_back(static_cast<int>(n));
  } else {
    std::size_t start = 0;
    while (start <= hosts.size()) {
      std::size_t end = hosts.find(',', start);
      if (end == std::string::npos) end = hosts.size();
      std::string_view name = trim(std::string_view(hosts).substr(start, end - start));
      start = end + 1;
      if (const auto colon = name.find(':'); colon != std::string_view::npos)
        name = name.substr(0, colon);
      if (name.empty()) continue;
      auto it = std::find_if(nodes.begin(), nodes.end(),
                             [&](const SpawnNode& node) { return node.name == name; });
      if (it == nodes.end() && is_local_name(std::string(name), hostname))
        it = std::find_if(nodes.begin(), nodes.end(),
                          [](const SpawnNode& node) { return node.this_machine; });
      if (it == nodes.end())
        return Error{
            .kind = ErrorKind::UnknownHost,
            .host = std::string(name),
            .phase = "spawn",
            .detail = mpilaunch::format(
                "MPI_Comm_spawn's info host names {}, which is not a node of this job", name)};
      const int n = static_cast<int>(it - nodes.begin());
      if (std::find(candidates.begin(), candidates.end(), n) == candidates.end())
        candidates.push_back(n);
    }
  }
  if (candidates.empty() || count <= 0)
    return Error{.kind = ErrorKind::NotEnoughSlots,
                 .phase = "spawn",
                 .detail = "MPI_Comm_spawn asked for no process or no node"};
  int free_slots = 0;
  for (int n : candidates) {
    const SpawnNode& node = nodes[static_cast<std::size_t>(n)];
    free_slots += std::max(0, std::max(node.slots, 1) - node.used);
  }
  if (free_slots < count && !oversubscribe)
    return Error{
        .kind = ErrorKind::NotEnoughSlots,
        .phase = "spawn",
        .detail = mpilaunch::format("MPI_Comm_spawn asked for {} processes; {} slots are free",
                                    count, free_slots)};
  std::vector<int> placed;
  for (int n : candidates) {
    SpawnNode& node = nodes[static_cast<std::size_t>(n)];
    while (static_cast<int>(placed.size()) < count && node.used < std::max(node.slots, 1)) {
      placed.push_back(n);
      ++node.used;
    }
  }
  for (std::size_t i = 0; static_cast<int>(placed.size()) < count; ++i) {
    const int n = candidates[i % candidates.size()];
    placed.push_back(n);
    ++nodes[static_cast<std::size_t>(n)].used;
  }
  return placed;
}

}  // namespace mpilaunch::launcher
