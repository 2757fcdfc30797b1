#pragma once
/// A node's processing units and the objects that contain each: what the launcher needs to map
/// and bind ranks on a node it has never seen. Each agent reads it from hwloc
/// (agent/topology_summary.hpp) and reports it in its hello. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch {

/// The objects ranks are mapped to and bound to, from the smallest (mpirun's names).
enum class HwLevel : std::uint8_t { HwThread, Core, L1, L2, L3, Numa, Socket, Board };

/// mpirun's spelling: hwthread, core, l1cache, l2cache, l3cache, numa, socket, board.
std::string_view level_name(HwLevel level);
/// The level named `name` (mpirun's spellings, any case; "package" is socket).
std::optional<HwLevel> parse_level(std::string_view name);

/// One processing unit (hardware thread): its OS index (what the kernel's affinity calls use)
/// and the logical index of each object that contains it, -1 where the node has none.
struct TopologyPu {
  std::uint32_t os_index = 0;
  std::int32_t core = -1;
  std::int32_t l1 = -1;
  std::int32_t l2 = -1;
  std::int32_t l3 = -1;
  std::int32_t numa = -1;
  std::int32_t socket = -1;
  friend bool operator==(const TopologyPu&, const TopologyPu&) = default;
};

struct NodeTopology {
  std::vector<TopologyPu> pus;  // the PUs ranks may use, in hwloc's logical order

  /// The object of `level` that holds PU `pu` (an index into pus): HwThread is the PU itself,
  /// Board the whole node, -1 when the node has no object of that level.
  int object_of(std::size_t pu, HwLevel level) const;
  /// How many objects of `level` hold at least one PU (0: the node has none of that level).
  int count(HwLevel level) const;
  /// The objects of `level` in logical order, each as the indexes of its PUs.
  std::vector<std::vector<std::uint32_t>> objects(HwLevel level) const;
  friend bool operator==(const NodeTopology&, const NodeTopology&) = default;
};

/// A set of PUs (indexes into NodeTopology::pus, increasing) as the kernel's CPU list of their
/// OS indexes ("0-3,8"), the form the agent binds with.
std::string os_cpu_list(const NodeTopology& topology, const std::vector<std::uint32_t>& pus);

/// How mpirun describes a binding to `pus` (--report-bindings, --display-map).
struct BindingText {
  bool everything = false;  // every PU of the node: mpirun says "not bound"
  std::string where;        // "socket 1[core 8[hwt 0]]" parts (cores numbered across the
                            // node, hwts within their core) joined by ", "
  std::string map;          // one [..] per socket, cores separated by '/', 'B' bound: "[./B]"
};
BindingText binding_text(const NodeTopology& topology, const std::vector<std::uint32_t>& pus);

/// mpirun's --report-bindings line after "[host:pid] ": "MCW rank 0 bound to socket 0[core
/// 0[hwt 0]]: [B/.]", or "MCW rank 0 is not bound (or bound to all available processors)" when
/// `pus` is every PU of the node, or exactly `available` when a CPU list narrowed the node to
/// those (mpirun 4.1.4 compares with its available set).
std::string report_binding_line(int rank, const NodeTopology& topology,
                                const std::vector<std::uint32_t>& pus,
                                const std::vector<std::uint32_t>& available = {});

}  // namespace mpilaunch
