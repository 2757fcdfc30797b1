// Rankfile slots (mpirun 4.1's "slot=S:C" / "slot=C" forms): parsed, and each rank bound to its
// slot's CPUs on the topology its node's agent reported. Pure.

#include "common/text.hpp"
#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include <algorithm>

#include "common/placement.hpp"

namespace mpilaunch {
namespace {

constexpr int kMaxIndex = 1 << 20;

Error bad(std::string detail) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(detail)};
}

std::optional<int> index_of(std::string_view text) {
  return parse_int<int>(text, 0, kMaxIndex);
}

// "0-2,5" -> {0, 1, 2, 5}; nullopt when it is not such a list. Not hwloc_bitmap_list_sscanf():
// it reads numbers with strtoul base 0, so "010" is CPU 8 where mpirun 4.1 (atoi) reads 10, and
// "0x3" is CPU 3; it takes "1-" as every CPU from 1 up, "-1" as CPU 4294967295 (a 512 MiB
// bitmap), "2-1,5" as {5}, and ignores "0,,1"'s empty item and "3a" whole. Checking the text
// first would be this parser again (measured with hwloc 2.9).
std::optional<std::vector<int>> index_list(std::string_view text) {
  std::vector<int> out;
  for (const std::string_view item : split_at(text, ',')) {
    const std::size_t dash = item.find('-');
    const auto first = index_of(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : index_of(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > kMaxIndex - 1) return std::nullopt;
    for (int i = *first; i <= *last; ++i) out.push_back(i);
    if (out.size() > static_cast<std::size_t>(kMaxIndex)) return std::nullopt;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Result<RankSlot> parse_rank_slot(std::string_view text) {
  RankSlot slot;
  slot.text = std::string(text);
  std::string_view cpus = text;
  if (const std::size_t colon = text.find(':'); colon != std::string_view::npos) {
    slot.socket = index_of(text.substr(0, colon));
    cpus = text.substr(colon + 1);
    if (!slot.socket)
      return bad(mpilaunch::format(
          "slot={}: '{}' is not a socket number; write slot=S:C (socket S, its cores C) or "
          "slot=C",
          text, text.substr(0, colon)));
  }
  auto list = index_list(cpus);
  if (!list)
    return bad(mpilaunch::format(
        "slot={}: '{}' is not a list of CPU numbers; write N, N-M or N,M (logical cores, or "
        "hwthreads with --use-hwthread-cpus)",
        text, cpus));
  slot.cpus = std::move(list).value();
  return slot;
}

namespace {

// The PUs of `slot` on a node: its logical cores (hwthreads with --use-hwthread-cpus) among
// those the node lets us use, of the whole node or of socket S. `what` starts each error
// ("rankfile: rank 0 slot=5").
Result<std::vector<std::uint32_t>> slot_pus(const NodeTopology& topo, const RankSlot& slot,
                                            bool hwthreads, std::string_view node,
                                            std::string_view what) {
  const HwLevel cpu = hwthreads ? HwLevel::HwThread : HwLevel::Core;
  const HwLevel unit_level = topo.count(cpu) > 0 ? cpu : HwLevel::HwThread;
  const auto units = topo.objects(unit_level);
  // The CPUs the slot counts in: the node's, or those of its socket.
  std::vector<std::size_t> candidates;
  for (std::size_t u = 0; u < units.size(); ++u)
    if (!slot.socket || topo.object_of(units[u].front(), HwLevel::Socket) == *slot.socket)
      candidates.push_back(u);
  const std::string where = slot.socket
                                ? mpilaunch::format("socket {} of node {}", *slot.socket, node)
                                : mpilaunch::format("node {}", node);
  if (candidates.empty())
    return bad(mpilaunch::format("{}: there is no {}; node {} has {} socket{} (0 to {})", what,
                                 where, node, topo.count(HwLevel::Socket),
                                 topo.count(HwLevel::Socket) == 1 ? "" : "s",
                                 topo.count(HwLevel::Socket) - 1));
  std::vector<std::uint32_t> bound;
  for (const int c : slot.cpus) {
    if (c >= static_cast<int>(candidates.size()))
      return bad(mpilaunch::format("{}: {} has {} {}{} (0 to {}), no {} {}", what, where,
                                   candidates.size(), level_name(unit_level),
                                   candidates.size() == 1 ? "" : "s", candidates.size() - 1,
                                   level_name(unit_level), c));
    const auto& pus = units[candidates[static_cast<std::size_t>(c)]];
    bound.insert(bound.end(), pus.begin(), pus.end());
  }
  std::sort(bound.begin(), bound.end());
  bound.erase(std::unique(bound.begin(), bound.end()), bound.end());
  return bound;
}

}  // namespace

Result<JobBindings> bind_rankfile(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                                  const PlacementPolicy& policy) {
  JobBindings out;
  const bool list = policy.rankfile.empty() && policy.cpu_list;
  out.policy = list ? "cpu-list" : "rankfile";
  out.pus.resize(static_cast<std::size_t>(map.node_count()));
  if (list) out.available.resize(static_cast<std::size_t>(map.node_count()));
  for (int n = 0; n < map.node_count(); ++n) {
    const NodeTopology& topo = nodes[static_cast<std::size_t>(n)].topology;
    auto& node_pus = out.pus[static_cast<std::size_t>(n)];
    if (topo.pus.empty()) {  // nothing known about this node's CPUs: unbound, as bind_ranks does
      node_pus.resize(map.ranks_on(n).size());
      continue;
    }
    if (list) {
      auto pus = slot_pus(topo, *policy.cpu_list, policy.use_hwthreads, map.node_name(n),
                          "--cpu-list " + policy.cpu_list->text);
      if (!pus) return pus.error();
      node_pus.assign(map.ranks_on(n).size(), pus.value());
      out.available[static_cast<std::size_t>(n)] = std::move(pus).value();
      out.bound = out.bound || !node_pus.empty();
      continue;
    }
    for (const int rank : map.ranks_on(n)) {
      const RankSlot& slot = policy.rankfile.at(static_cast<std::size_t>(rank));
      auto pus = slot_pus(topo, slot, policy.use_hwthreads, map.node_name(n),
                          mpilaunch::format("rankfile: rank {} slot={}", rank, slot.text));
      if (!pus) return pus.error();
      out.bound = out.bound || !pus->empty();
      node_pus.push_back(std::move(pus).value());
    }
  }
  return out;
}

Result<JobBindings> bind_ordered(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                                 const PlacementPolicy& policy) {
  JobBindings out;
  out.policy = "cpu-list";
  out.pus.resize(static_cast<std::size_t>(map.node_count()));
  out.available.resize(static_cast<std::size_t>(map.node_count()));
  for (int n = 0; n < map.node_count(); ++n) {
    const NodeTopology& topo = nodes[static_cast<std::size_t>(n)].topology;
    auto& node_pus = out.pus[static_cast<std::size_t>(n)];
    node_pus.resize(map.ranks_on(n).size());
    if (topo.pus.empty()) continue;
    std::vector<std::uint32_t> available;
    if (policy.cpu_list) {
      auto pus = slot_pus(topo, *policy.cpu_list, policy.use_hwthreads, map.node_name(n),
                          "--cpu-list " + policy.cpu_list->text);
      if (!pus) return pus.error();
      available = std::move(pus).value();
    } else {
      for (std::uint32_t p = 0; p < topo.pus.size(); ++p) available.push_back(p);
    }
    if (policy.ordered) {
      // mpirun walks the list as a bitmap: by OS index, one PU each, hwthreads included.
      std::vector<std::uint32_t> by_os = available;
      std::sort(by_os.begin(), by_os.end(), [&](std::uint32_t a, std::uint32_t b) {
        return topo.pus[a].os_index < topo.pus[b].os_index;
      });
      if (node_pus.size() > by_os.size())
        return bad(mpilaunch::format(
            "--bind-to cpu-list:ordered: node {} has {} processes but {} CPU{} in the list{}; "
            "run fewer processes there or give more CPUs",
            map.node_name(n), node_pus.size(), by_os.size(), by_os.size() == 1 ? "" : "s",
            policy.cpu_list ? " " + policy.cpu_list->text : std::string()));
      for (std::size_t i = 0; i < node_pus.size(); ++i) node_pus[i] = {by_os[i]};
    } else {
      for (auto& pus : node_pus) pus = available;
    }
    out.bound = out.bound || !node_pus.empty();
    out.available[static_cast<std::size_t>(n)] = std::move(available);
  }
  return out;
}

}  // namespace mpilaunch
