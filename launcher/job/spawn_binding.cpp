#include "launcher/job/spawn_binding.hpp"

#include <algorithm>
#include <optional>

namespace mpilaunch::launcher {

std::vector<std::vector<std::uint32_t>> bind_spawned(const std::vector<SpawnBindingNode>& nodes,
                                                     const std::vector<int>& node_of_rank,
                                                     bool use_hwthreads, bool overload_allowed) {
  const std::vector<std::vector<std::uint32_t>> unbound(node_of_rank.size());
  const HwLevel level = node_of_rank.size() <= 2
                            ? (use_hwthreads ? HwLevel::HwThread : HwLevel::Core)
                            : HwLevel::Numa;
  // Per node: its objects of that level and how many processes are bound to each.
  std::vector<std::vector<std::vector<std::uint32_t>>> objects(nodes.size());
  std::vector<std::vector<int>> load(nodes.size());
  std::vector<int> running(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    running[n] = nodes[n].running;
    if (nodes[n].topology == nullptr) continue;
    objects[n] = nodes[n].topology->objects(level);
    load[n].assign(objects[n].size(), 0);
    for (const std::vector<std::uint32_t>& pus : nodes[n].bound) {
      const auto it = std::find(objects[n].begin(), objects[n].end(), pus);
      if (it != objects[n].end()) ++load[n][static_cast<std::size_t>(it - objects[n].begin())];
    }
  }
  std::vector<std::vector<std::uint32_t>> out;
  for (const int node : node_of_rank) {
    if (node < 0 || static_cast<std::size_t>(node) >= nodes.size()) return unbound;
    const auto n = static_cast<std::size_t>(node);
    if (objects[n].empty()) return unbound;
    // From the object where the node's processes before this one ended (the (P-1)-th for P
    // of them, round the node; this spawn's earlier ones count), the first with room (fewer
    // processes than CPUs); none: that object, overloaded. As mpirun 4.1.4 picks them on 2
    // cores (measured: -H localhost:4 -n 2 --bind-to none, spawn 1: core 1; -n 1: core 0;
    // -n 1 --oversubscribe, spawn 2: cores 1 and 1; --bind-to core:overload-allowed -n 3, the
    // parents on cores 0, 1, 0, spawn 1: core 0).
    const int before = running[n]++;
    if (nodes[n].slots > 0 && running[n] > nodes[n].slots) return unbound;
    const std::size_t count = objects[n].size();
    const std::size_t start = static_cast<std::size_t>(std::max(before - 1, 0)) % count;
    // An object's CPUs: its cores, or its hwthreads with --use-hwthread-cpus.
    const auto cpus = [&](std::size_t o) {
      const std::vector<std::uint32_t>& pus = objects[n][o];
      if (use_hwthreads) return pus.size();
      std::vector<std::int32_t> cores;
      for (const std::uint32_t pu : pus) cores.push_back(nodes[n].topology->pus[pu].core);
      std::sort(cores.begin(), cores.end());
      return static_cast<std::size_t>(std::unique(cores.begin(), cores.end()) - cores.begin());
    };
    std::optional<std::size_t> chosen;
    for (std::size_t i = 0; i < count && !chosen; ++i)
      if (const std::size_t o = (start + i) % count; static_cast<std::size_t>(load[n][o]) < cpus(o))
        chosen = o;
    if (!chosen && !overload_allowed) return unbound;
    const std::size_t object = chosen.value_or(start);
    ++load[n][object];
    const std::vector<std::uint32_t>& pus = objects[n][object];
    out.push_back(pus);
  }
  return out;
}

}  // namespace mpilaunch::launcher
