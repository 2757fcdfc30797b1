#pragma once
/// Fence and direct-modex bookkeeping across agents. A fence completes when every agent that
/// hosts a participant has contributed; the release carries every blob in node order.
/// Pure: agents are node indexes of the job map.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/job_map.hpp"
#include "common/protocol.hpp"
#include "common/result.hpp"

namespace mpilaunch::launcher {

using protocol::kWildcardRank;

class FenceRelay {
 public:
  struct Release {
    protocol::FenceRelease message;
    std::vector<int> nodes;  // who gets it
  };

  explicit FenceRelay(const JobMap& map) : map_(&map) {}

  /// The ranks of spawned namespace `nspace` (issue 24) are on these nodes, in rank order; other
  /// namespaces are the job's (the map).
  void add_namespace(std::string nspace, std::vector<int> node_of_rank) {
    namespaces_[std::move(nspace)] = std::move(node_of_rank);
  }
  /// Records node `node`'s contribution. Returns the release once the fence is complete.
  /// Errors: MalformedFrame for a contribution that names ranks outside the job or repeats.
  Result<std::optional<Release>> contribute(int node, const protocol::FenceContribute& c);
  /// Completes every pending fence with `status` (an agent was lost, the job is ending).
  std::vector<Release> fail_all(std::int32_t status);
  std::size_t pending() const { return fences_.size(); }

  /// The nodes hosting the ranks of a "nspace:rank;..." proc set (wildcard: every node).
  Result<std::set<int>> participants(const std::string& procs) const;

 private:
  struct Pending {
    std::set<int> expected;
    std::map<int, std::vector<std::byte>> blobs;  // node -> data, kept in node order
    std::int32_t status = 0;
    std::string nspace;
  };
  using Key = std::tuple<std::string, std::string, std::uint32_t>;  // nspace, procs, seq
  const JobMap* map_;
  std::map<std::string, std::vector<int>, std::less<>> namespaces_;  // add_namespace()
  std::map<Key, Pending> fences_;
};

}  // namespace mpilaunch::launcher
