#include "launcher/job/spawn_placement.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/text.hpp"
#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include "launcher/job/launch_plan.hpp"

namespace mpilaunch::launcher {
namespace {

int room(const SpawnNode& node) {
  return std::max(node.slots, 1) - node.used;
}

// mpirun 4.1.4's by-node mapping of a job (its round-robin mapper, measured on spawns): each
// pass divides what is left evenly over the nodes that can take some (the first ones one more
// when it does not divide), a node taking at most its free slots; when the free slots are too
// few (--oversubscribe), every node takes its share anyway, then one each in turn. The ranks go
// node after node (a spawned job is ranked by slot).
std::vector<int> place_by_node(std::vector<SpawnNode>& nodes, const std::vector<int>& candidates,
                               int count, bool short_of_slots, int& last_node) {
  std::vector<int> on(nodes.size(), 0);
  int mapped = 0;
  const auto put = [&](int n, int how_many) {
    for (int i = 0; i < how_many && mapped < count; ++i) {
      last_node = n;
      ++on[static_cast<std::size_t>(n)];
      ++nodes[static_cast<std::size_t>(n)].used;
      ++mapped;
    }
  };
  int takers = static_cast<int>(candidates.size());
  while (mapped < count && takers > 0) {
    const int left = count - mapped;
    const int share = std::max(1, left / takers);
    // The first `more` nodes that take some get one more than the share.
    int more = left > share * takers ? left - share * takers : 0;
    takers = 0;
    for (int n : candidates) {
      const SpawnNode& node = nodes[static_cast<std::size_t>(n)];
      if (!short_of_slots && room(node) <= 0) continue;
      int take = share + (more > 0 ? 1 : 0);
      if (more > 0) --more;
      if (!short_of_slots) take = std::min(take, room(node));
      ++takers;
      put(n, take);
      if (mapped == count) break;
    }
  }
  while (mapped < count)
    for (int n : candidates) {
      put(n, 1);
      if (mapped == count) break;
    }
  std::vector<int> placed;
  for (int n : candidates)
    placed.insert(placed.end(), static_cast<std::size_t>(on[static_cast<std::size_t>(n)]), n);
  return placed;
}

// The processes `placed` (a node index each) numbered in the nodes' order `candidates`: node
// after node, or with `by_node` one node at a time in turn (mpirun 4.1.4's ranking by node).
std::vector<int> rank_in_node_order(std::vector<int> placed, const std::vector<int>& candidates,
                                    bool by_node) {
  std::vector<int> left;  // per candidate, how many of `placed` are on it
  for (int n : candidates)
    left.push_back(static_cast<int>(std::count(placed.begin(), placed.end(), n)));
  std::vector<int> ranked;
  while (ranked.size() < placed.size()) {
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const int take = by_node ? std::min(left[c], 1) : left[c];
      ranked.insert(ranked.end(), static_cast<std::size_t>(take), candidates[c]);
      left[c] -= take;
    }
  }
  return ranked;
}

}  // namespace

Result<SpawnMapping> spawn_mapping(const std::string& map_by) {
  std::string policy;
  for (const char c : trim(map_by))
    policy += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (policy.empty() || policy == "slot" || policy == "core" || policy == "socket" ||
      policy == "package" || policy == "numa" || policy == "hwthread" || policy == "board" ||
      policy == "l1cache" || policy == "l2cache" || policy == "l3cache")
    return SpawnMapping::Slot;
  if (policy == "node") return SpawnMapping::Node;
  return Error{.kind = ErrorKind::BadOption,
               .phase = "spawn",
               .detail = mpilaunch::format(
                   "MPI_Comm_spawn's info map_by {}: only node, slot and hardware objects "
                   "(core, socket, numa, ...) without modifiers are served for spawned processes",
                   map_by)};
}

Result<std::vector<int>> spawn_nodes_named(const std::vector<SpawnNode>& nodes,
                                           const std::string& names, const std::string& hostname,
                                           const std::string& key) {
  std::vector<int> found;
  for (const std::string_view item : split_at(names, ',')) {
    std::string_view name = trim(item);
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
              "MPI_Comm_spawn's info {} names {}, which is not a node of this job", key, name)};
    const int n = static_cast<int>(it - nodes.begin());
    if (std::find(found.begin(), found.end(), n) == found.end()) found.push_back(n);
  }
  return found;
}

Result<std::string> spawn_host_filter(const std::vector<SpawnNode>& nodes,
                                      const SpawnHostKeys& keys, const std::string& hostname) {
  std::optional<std::vector<int>> allowed;  // none: every node
  const auto restrict_to = [&](const std::string& names, const std::string& key) -> Status {
    auto named = spawn_nodes_named(nodes, names, hostname, key);
    if (!named) return named.error();
    if (!allowed) {
      allowed = std::move(named).value();
    } else {
      std::erase_if(*allowed, [&](int n) {
        return std::find(named->begin(), named->end(), n) == named->end();
      });
    }
    return {};
  };
  if (!keys.hostfile.empty()) {
    std::string names;
    for (const std::string& h : keys.hostfile_hosts) names += (names.empty() ? "" : ",") + h;
    if (names.empty())
      return Error{.kind = ErrorKind::HostfileError,
                   .phase = "spawn",
                   .detail = mpilaunch::format("MPI_Comm_spawn's info hostfile {} names no host",
                                               keys.hostfile)};
    if (Status s = restrict_to(names, "hostfile " + keys.hostfile); !s) return s.error();
  }
  if (!trim(keys.host).empty())
    if (Status s = restrict_to(keys.host, "host"); !s) return s.error();
  if (!trim(keys.add_host).empty()) {
    auto named = spawn_nodes_named(nodes, keys.add_host, hostname, "add-host");
    if (!named)
      return Error{.kind = ErrorKind::BadOption,
                   .host = named.error().host,
                   .phase = "spawn",
                   .detail = mpilaunch::format(
                       "MPI_Comm_spawn's info add-host {}: adding a host that is not a node of "
                       "this job is not served (mpirun 4.1.4 starts a daemon there, then its job "
                       "fails); list every host at launch (-H, --hostfile)",
                       named.error().host)};
    if (Status s = restrict_to(keys.add_host, "add-host"); !s) return s.error();
  }
  if (!allowed) return std::string();
  if (allowed->empty())
    return Error{.kind = ErrorKind::NotEnoughSlots,
                 .phase = "spawn",
                 .detail =
                     "all nodes which are allocated for this job are already filled: "
                     "MPI_Comm_spawn's info keys host, hostfile and add-host have no node "
                     "in common"};
  std::sort(allowed->begin(), allowed->end());  // place_spawn takes them in node order anyway
  std::string names;
  for (int n : *allowed)
    names += (names.empty() ? "" : ",") + nodes[static_cast<std::size_t>(n)].name;
  return names;
}

Result<std::vector<int>> place_spawn(std::vector<SpawnNode>& nodes, const std::string& hosts,
                                     int count, bool oversubscribe, const std::string& hostname,
                                     SpawnMapping mapping, int bookmark, bool rank_by_node,
                                     int* last_node) {
  std::vector<int> candidates;
  if (trim(hosts).empty()) {
    for (std::size_t n = 0; n < nodes.size(); ++n) candidates.push_back(static_cast<int>(n));
  } else {
    auto named = spawn_nodes_named(nodes, hosts, hostname, "host");
    if (!named) return named.error();
    candidates = std::move(named).value();
  }
  // mpirun's node order whatever the order named: this machine first, then as given.
  std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    const bool here_a = nodes[static_cast<std::size_t>(a)].this_machine;
    const bool here_b = nodes[static_cast<std::size_t>(b)].this_machine;
    return here_a != here_b ? here_a : a < b;
  });
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
  // From the bookmark when it has room, else from the first node with room, round the nodes
  // (by slot and by node alike; beyond the free slots too, measured with --oversubscribe).
  // When no node has room (--oversubscribe), from the bookmark, or from the node before it
  // (round the list) when that one is less overloaded, as mpirun 4.1.4 (measured, 7 lines:
  // -H dyn1:1,dyn2:1,dyn3:1 -n 3, a child on dyn1, its spawn of 1: dyn3; child on dyn2: dyn1).
  std::vector<int> order = candidates;
  auto start = std::find(order.begin(), order.end(), bookmark);
  if (start == order.end() || room(nodes[static_cast<std::size_t>(*start)]) <= 0) {
    const auto at = start == order.end() ? order.begin() : start;
    start = std::find_if(order.begin(), order.end(),
                         [&](int n) { return room(nodes[static_cast<std::size_t>(n)]) > 0; });
    if (start == order.end()) {
      const auto before = at == order.begin() ? order.end() - 1 : at - 1;
      const auto overload = [&](int n) { return -room(nodes[static_cast<std::size_t>(n)]); };
      start = overload(*before) < overload(*at) ? before : at;
    }
  }
  std::rotate(order.begin(), start, order.end());
  const bool short_of_slots = free_slots < count;
  // The new job's own bookmark (where a spawn of ITS processes starts, measured on 4.1.4): the
  // node that got the last process placed: by slot the last one filled (a job ranked by node:
  // its last rank's, as its ranks are dealt node by node), by node the last one dealt to.
  int last = order.front();
  const auto ranked = [&](std::vector<int> placed) {
    std::vector<int> out = rank_in_node_order(std::move(placed), candidates, rank_by_node);
    if (last_node != nullptr)
      *last_node = rank_by_node && mapping == SpawnMapping::Slot ? out.back() : last;
    return out;
  };
  if (mapping == SpawnMapping::Node)
    return ranked(place_by_node(nodes, order, count, short_of_slots, last));
  std::vector<int> placed;
  for (int n : order) {
    SpawnNode& node = nodes[static_cast<std::size_t>(n)];
    while (static_cast<int>(placed.size()) < count && node.used < std::max(node.slots, 1)) {
      placed.push_back(n);
      ++node.used;
    }
  }
  for (std::size_t i = 0; static_cast<int>(placed.size()) < count; ++i) {
    const int n = order[i % order.size()];
    placed.push_back(n);
    ++nodes[static_cast<std::size_t>(n)].used;
  }
  last = placed.back();
  // Ranked in the nodes' order (measured, also beyond the free slots).
  return ranked(std::move(placed));
}

Result<std::vector<RankfilePlace>> place_spawn_by_rankfile(const std::vector<RankfilePlace>& lines,
                                                           const std::string& path, int first,
                                                           int count, bool oversubscribe) {
  if (!oversubscribe)
    return Error{.kind = ErrorKind::NotEnoughSlots,
                 .phase = "spawn",
                 .detail = mpilaunch::format(
                     "all nodes which are allocated for this job are already filled: the job is "
                     "placed by the rankfile {}, which gives its hosts a slot per line, and "
                     "mpirun 4.1.4 fails such a spawn whatever slots -H or a host file give; "
                     "with --oversubscribe spawned rank i runs where the file's line for rank i "
                     "says",
                     path)};
  std::vector<RankfilePlace> placed;
  for (int r = first; r < first + count; ++r) {
    const auto line = std::find_if(lines.begin(), lines.end(),
                                   [&](const RankfilePlace& l) { return l.rank == r; });
    if (line == lines.end())
      return Error{.kind = ErrorKind::BadOption,
                   .phase = "spawn",
                   .detail = mpilaunch::format(
                       "the rankfile {} has no line for rank {}: spawned rank i runs where the "
                       "file's line for rank i says, as under mpirun 4.1.4 ('A rank is missing "
                       "its location specification'); add 'rank {}=HOST slot=CPUS'",
                       path, r, r)};
    if (line->node < 0)
      return Error{.kind = ErrorKind::BadOption,
                   .host = line->host,
                   .phase = "spawn",
                   .detail = mpilaunch::format(
                       "the rankfile {} puts spawned rank {} on {}, which runs no rank of the "
                       "job: spawned processes start only on the job's nodes here",
                       path, r, line->host)};
    placed.push_back(*line);
  }
  return placed;
}

}  // namespace mpilaunch::launcher
