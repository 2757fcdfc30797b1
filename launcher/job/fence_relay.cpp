#include "launcher/job/fence_relay.hpp"

#include "common/text.hpp"
#include "common/text_format.hpp"
#include "common/text_split.hpp"

namespace mpilaunch::launcher {

Result<std::set<int>> FenceRelay::participants(const std::string& procs) const {
  std::set<int> nodes;
  for (const std::string_view item : split_at(procs, ';')) {
    if (item.empty()) continue;
    const auto colon = item.rfind(':');
    const auto parsed = colon == std::string_view::npos
                            ? std::nullopt
                            : parse_int<std::uint32_t>(item.substr(colon + 1));
    if (!parsed)
      return Error{.kind = ErrorKind::MalformedFrame,
                   .detail = mpilaunch::format("fence participant '{}' is not nspace:rank", item)};
    const std::uint32_t rank = *parsed;
    if (const auto spawned = namespaces_.find(item.substr(0, colon));
        spawned != namespaces_.end()) {
      const std::vector<int>& node_of = spawned->second;
      if (rank == kWildcardRank) {
        nodes.insert(node_of.begin(), node_of.end());
      } else if (rank < node_of.size()) {
        nodes.insert(node_of[rank]);
      } else {
        return Error{.kind = ErrorKind::MalformedFrame,
                     .detail = mpilaunch::format("fence names rank {} of a {}-rank spawned job",
                                                 rank, node_of.size())};
      }
    } else if (rank == kWildcardRank) {
      for (int n = 0; n < map_->node_count(); ++n) nodes.insert(n);
    } else if (rank < static_cast<std::uint32_t>(map_->size())) {
      nodes.insert(map_->node_of(static_cast<int>(rank)));
    } else {
      return Error{
          .kind = ErrorKind::MalformedFrame,
          .detail = mpilaunch::format("fence names rank {} of a {}-rank job", rank, map_->size())};
    }
  }
  if (nodes.empty())
    return Error{.kind = ErrorKind::MalformedFrame, .detail = "fence without participants"};
  return nodes;
}

Result<std::optional<FenceRelay::Release>> FenceRelay::contribute(
    int node, const protocol::FenceContribute& c) {
  const Key key{c.nspace, c.procs, c.seq};
  auto it = fences_.find(key);
  if (it == fences_.end()) {
    auto expected = participants(c.procs);
    if (!expected) return expected.error();
    it = fences_.emplace(key, Pending{std::move(expected).value(), {}, 0, c.nspace}).first;
  }
  Pending& p = it->second;
  if (!p.expected.contains(node) || p.blobs.contains(node))
    return Error{.kind = ErrorKind::MalformedFrame,
                 .detail = mpilaunch::format("node {} contributed twice or is not in fence {}",
                                             node, c.seq)};
  p.blobs[node] = c.data;
  if (c.status != 0 && p.status == 0) p.status = c.status;
  if (p.blobs.size() < p.expected.size()) return std::optional<Release>{};
  Release release;
  release.message = protocol::FenceRelease{c.nspace, c.procs, c.seq, p.status, {}};
  for (const auto& [from, blob] : p.blobs)
    release.message.data.insert(release.message.data.end(), blob.begin(), blob.end());
  release.nodes.assign(p.expected.begin(), p.expected.end());
  fences_.erase(it);
  return std::optional<Release>{std::move(release)};
}

std::vector<FenceRelay::Release> FenceRelay::fail_all(std::int32_t status) {
  std::vector<Release> out;
  for (auto& [key, p] : fences_) {
    Release r;
    r.message =
        protocol::FenceRelease{std::get<0>(key), std::get<1>(key), std::get<2>(key), status, {}};
    r.nodes.assign(p.expected.begin(), p.expected.end());
    out.push_back(std::move(r));
  }
  fences_.clear();
  return out;
}

}  // namespace mpilaunch::launcher
