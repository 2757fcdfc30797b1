#include "common/node_topology.hpp"

#include "common/text_format.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

namespace mpilaunch {

namespace {

constexpr std::array<std::string_view, 8> kLevelNames = {"hwthread", "core", "l1cache", "l2cache",
                                                         "l3cache",  "numa", "socket",  "board"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "0-2,5" from increasing numbers.
std::string ranges(const std::vector<std::uint32_t>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? mpilaunch::format("{}", sorted[i])
                  : mpilaunch::format("{}-{}", sorted[i], sorted[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string_view level_name(HwLevel level) {
  return kLevelNames[static_cast<std::size_t>(level)];
}

std::optional<HwLevel> parse_level(std::string_view name) {
  const std::string n = lower(name);
  if (n == "package") return HwLevel::Socket;
  for (std::size_t i = 0; i < kLevelNames.size(); ++i)
    if (n == kLevelNames[i]) return static_cast<HwLevel>(i);
  return std::nullopt;
}

int NodeTopology::object_of(std::size_t pu, HwLevel level) const {
  const TopologyPu& p = pus[pu];
  switch (level) {
    case HwLevel::HwThread:
      return static_cast<int>(pu);
    case HwLevel::Core:
      return p.core;
    case HwLevel::L1:
      return p.l1;
    case HwLevel::L2:
      return p.l2;
    case HwLevel::L3:
      return p.l3;
    case HwLevel::Numa:
      return p.numa;
    case HwLevel::Socket:
      return p.socket;
    case HwLevel::Board:
      return 0;
  }
  return -1;
}

std::vector<std::vector<std::uint32_t>> NodeTopology::objects(HwLevel level) const {
  std::map<int, std::vector<std::uint32_t>> by_object;
  for (std::size_t i = 0; i < pus.size(); ++i) {
    const int object = object_of(i, level);
    if (object >= 0) by_object[object].push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::vector<std::uint32_t>> out;
  for (auto& [object, members] : by_object) out.push_back(std::move(members));
  return out;
}

int NodeTopology::count(HwLevel level) const {
  return static_cast<int>(objects(level).size());
}

std::string os_cpu_list(const NodeTopology& topology, const std::vector<std::uint32_t>& pus) {
  std::vector<std::uint32_t> os;
  for (const std::uint32_t pu : pus)
    if (pu < topology.pus.size()) os.push_back(topology.pus[pu].os_index);
  std::sort(os.begin(), os.end());
  os.erase(std::unique(os.begin(), os.end()), os.end());
  return ranges(os);
}

BindingText binding_text(const NodeTopology& topology, const std::vector<std::uint32_t>& pus) {
  BindingText out;
  std::vector<bool> bound(topology.pus.size(), false);
  for (const std::uint32_t pu : pus)
    if (pu < bound.size()) bound[pu] = true;
  out.everything = std::all_of(bound.begin(), bound.end(), [](bool b) { return b; });
  // socket -> its cores in order -> each core's PUs in order (a PU without a core is its own).
  std::map<int, std::map<int, std::vector<std::uint32_t>>> sockets;
  for (std::size_t i = 0; i < topology.pus.size(); ++i) {
    const TopologyPu& p = topology.pus[i];
    const int core = p.core >= 0 ? p.core : -1 - static_cast<int>(i);
    sockets[std::max(p.socket, 0)][core].push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::string> parts;
  std::string& map = out.map;
  // Cores are numbered across the node, as mpirun 4.1.4 numbers them (measured on two sockets
  // of 8 cores: "socket 1[core 8[hwt 0-1]]"); hwthreads within their core.
  int core_index = 0;
  for (const auto& [socket, cores] : sockets) {
    map += '[';
    bool first_core = true;
    for (const auto& [core, members] : cores) {
      if (!first_core) map += '/';
      first_core = false;
      std::vector<std::uint32_t> hwts;
      for (std::size_t h = 0; h < members.size(); ++h) {
        map += bound[members[h]] ? 'B' : '.';
        if (bound[members[h]]) hwts.push_back(static_cast<std::uint32_t>(h));
      }
      if (!hwts.empty())
        parts.push_back(
            mpilaunch::format("socket {}[core {}[hwt {}]]", socket, core_index, ranges(hwts)));
      ++core_index;
    }
    map += ']';
  }
  out.where = mpilaunch::format("{}", fmt::join(parts, ", "));
  return out;
}

std::string report_binding_line(int rank, const NodeTopology& topology,
                                const std::vector<std::uint32_t>& pus,
                                const std::vector<std::uint32_t>& available) {
  const BindingText text = binding_text(topology, pus);
  if (text.everything || pus.empty() || (!available.empty() && pus == available))
    return mpilaunch::format("MCW rank {} is not bound (or bound to all available processors)",
                             rank);
  return mpilaunch::format("MCW rank {} bound to {}: {}", rank, text.where, text.map);
}

}  // namespace mpilaunch
