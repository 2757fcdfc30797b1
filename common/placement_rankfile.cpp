// Rankfile slots (mpirun 4.1's "slot=S:C" / "slot=C" forms): parsed, and each rank bound to its
// slot's CPUs on the topology its node's agent reported. Pure.

#include "common/text_format.hpp"

#include <algorithm>
#include <charconv>

#include "common/placement.hpp"

namespace mpilaunch {
namespace {

constexpr int kMaxIndex = 1 << 20;

Error bad(std::string detail) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(detail)};
}

std::optional<int> index_of(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > kMaxIndex)
    return std::nullopt;
  return value;
}

// "0-2,5" -> {0, 1, 2, 5}; nullopt when it is not such a list. Not hwloc_bitmap_list_sscanf():
// it reads numbers with strtoul base 0, so "010" is CPU 8 where mpirun 4.1 (atoi) reads 10, and
// "0x3" is CPU 3; it takes "1-" as every CPU from 1 up, "-1" as CPU 4294967295 (a 512 MiB
// bitmap), "2-1,5" as {5}, and ignores "0,,1"'s empty item and "3a" whole. Checking the text
// first would be this parser again (measured with hwloc 2.9).
std::optional<std::vector<int>> index_list(std::string_view text) {
  std::vector<int> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    const auto first = index_of(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : index_of(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > kMaxIndex - 1) return std::nullopt;
    for (int i = *first; i <= *last; ++i) out.push_back(i);
    if (out.size() > static_cast<std::size_t>(kMaxIndex)) return std::nullopt;
    if (comma == text.size()) break;
    start = comma + 1;
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

Result<JobBindings> bind_rankfile(const JobMap& map, const std::vector<NodePlacementInput>& nodes,
                                  const PlacementPolicy& policy) {
  JobBindings out;
  out.policy = "rankfile";
  out.pus.resize(static_cast<std::size_t>(map.node_count()));
  const HwLevel cpu = policy.use_hwthreads ? HwLevel::HwThread : HwLevel::Core;
  for (int n = 0; n < map.node_count(); ++n) {
    const NodeTopology& topo = nodes[static_cast<std::size_t>(n)].topology;
    if (topo.pus.empty()) {  // nothing known about this node's CPUs: unbound, as bind_ranks does
      out.pus[static_cast<std::size_t>(n)].resize(map.ranks_on(n).size());
      continue;
    }
    const HwLevel unit_level = topo.count(cpu) > 0 ? cpu : HwLevel::HwThread;
    const auto units = topo.objects(unit_level);
    for (const int rank : map.ranks_on(n)) {
      const RankSlot& slot = policy.rankfile.at(static_cast<std::size_t>(rank));
      // The CPUs the slot counts in: the node's, or those of its socket.
      std::vector<std::size_t> candidates;
      for (std::size_t u = 0; u < units.size(); ++u)
        if (!slot.socket || topo.object_of(units[u].front(), HwLevel::Socket) == *slot.socket)
          candidates.push_back(u);
      const std::string where =
          slot.socket ? mpilaunch::format("socket {} of node {}", *slot.socket, map.node_name(n))
                      : mpilaunch::format("node {}", map.node_name(n));
      if (candidates.empty())
        return bad(mpilaunch::format(
            "rankfile: rank {} slot={}: there is no {}; node {} has {} "
            "socket{} (0 to {})",
            rank, slot.text, where, map.node_name(n), topo.count(HwLevel::Socket),
            topo.count(HwLevel::Socket) == 1 ? "" : "s", topo.count(HwLevel::Socket) - 1));
      std::vector<std::uint32_t> bound;
      for (const int c : slot.cpus) {
        if (c >= static_cast<int>(candidates.size()))
          return bad(mpilaunch::format(
              "rankfile: rank {} slot={}: {} has {} {}{} (0 to {}), no {} {}", rank, slot.text,
              where, candidates.size(), level_name(unit_level), candidates.size() == 1 ? "" : "s",
              candidates.size() - 1, level_name(unit_level), c));
        const auto& pus = units[candidates[static_cast<std::size_t>(c)]];
        bound.insert(bound.end(), pus.begin(), pus.end());
      }
      std::sort(bound.begin(), bound.end());
      out.bound = out.bound || !bound.empty();
      out.pus[static_cast<std::size_t>(n)].push_back(std::move(bound));
    }
  }
  return out;
}

}  // namespace mpilaunch
