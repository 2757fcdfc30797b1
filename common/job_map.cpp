#include "common/job_map.hpp"

#include "common/text_format.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace mpilaunch {

JobMap::JobMap(std::vector<std::string> nodes, std::vector<int> node_of_rank)
    : nodes_(std::move(nodes)), node_of_rank_(std::move(node_of_rank)) {
  ranks_on_.resize(nodes_.size());
  local_rank_.resize(node_of_rank_.size());
  for (int rank = 0; rank < size(); ++rank) {
    auto& on_node = ranks_on_[static_cast<std::size_t>(node_of(rank))];
    local_rank_[static_cast<std::size_t>(rank)] = static_cast<int>(on_node.size());
    on_node.push_back(rank);
  }
}

std::string JobMap::node_list() const {
  return mpilaunch::format("{}", fmt::join(nodes_, ","));
}

std::string JobMap::proc_list() const {
  std::string out;
  for (std::size_t node = 0; node < ranks_on_.size(); ++node) {
    if (node > 0) out += ';';
    out += mpilaunch::format("{}", fmt::join(ranks_on_[node], ","));
  }
  return out;
}

std::string JobMap::pmi_process_mapping() const {
  // Consecutive ranks on one node form a run; runs of equal length on consecutive nodes fold
  // into one (start, count, ppn) block. Falls back to an empty string when that is not
  // describable (MPICH then works it out itself).
  struct Block {
    int start, count, ppn;
  };
  std::vector<Block> blocks;
  int rank = 0;
  while (rank < size()) {
    const int node = node_of(rank);
    int run = 0;
    while (rank + run < size() && node_of(rank + run) == node) ++run;
    if (!blocks.empty()) {
      Block& last = blocks.back();
      if (last.ppn == run && last.start + last.count == node) {
        ++last.count;
        rank += run;
        continue;
      }
    }
    blocks.push_back({node, 1, run});
    rank += run;
  }
  std::string out = "(vector";
  for (const Block& b : blocks) out += mpilaunch::format(",({},{},{})", b.start, b.count, b.ppn);
  out += ")";
  return out;
}

namespace {

Error not_enough(int wanted, int available, const std::string& how) {
  return Error{
      .kind = ErrorKind::NotEnoughSlots,
      .exit_code = std::nullopt,
      .detail = mpilaunch::format("{} processes were requested but {} {}", wanted, available, how)};
}

// The ranks a map without ppr places: -n, else every slot; more than the slots only with
// oversubscription, and never more than -n's bound.
Result<long> ranks_asked(const MapRequest& request, long total_slots) {
  const long np = request.np ? *request.np : total_slots;
  if (np > 1'000'000)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("-n {} is too large", np)};
  if (np > total_slots && !request.oversubscribe)
    return not_enough(static_cast<int>(np), static_cast<int>(total_slots),
                      "slots are available; ask for fewer, add slots (host:N, slots=N) or "
                      "pass --oversubscribe");
  return np;
}

// How many ranks a host takes. max_slots is no limit: mpirun 4.1.4 refuses "slots=1
// max_slots=2" with -n 2 (not enough slots) and runs -n 3 --oversubscribe on it, measured.
int capacity(const NodeSlots& host, bool oversubscribe) {
  return oversubscribe ? std::numeric_limits<int>::max() : host.slots;
}

}  // namespace

std::vector<int> rank_places(std::vector<int> node_of_place, RankBy rank_by) {
  if (rank_by == RankBy::Mapping || node_of_place.empty()) return node_of_place;
  std::sort(node_of_place.begin(), node_of_place.end());
  if (rank_by == RankBy::Slot) return node_of_place;
  // Count each node's processes, then deal one per node per round.
  std::vector<std::pair<int, int>> left;  // node, processes not yet ranked
  for (const int node : node_of_place)
    if (left.empty() || left.back().first != node)
      left.emplace_back(node, 1);
    else
      ++left.back().second;
  std::vector<int> out;
  out.reserve(node_of_place.size());
  while (out.size() < node_of_place.size())
    for (auto& entry : left)
      if (entry.second > 0) {
        out.push_back(entry.first);
        --entry.second;
      }
  return out;
}

Result<std::vector<int>> map_ppr(const std::vector<NodeSlots>& hosts, std::vector<int>& used,
                                 const MapRequest& request) {
  const int per = request.per_node.value_or(1);
  if (per < 1)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("ppr:{}:{}: processes per {} must be at least 1", per,
                                             request.object, request.object)};
  const auto objects_of = [&](std::size_t h) {
    return request.objects.empty() ? 1 : std::max(1, request.objects[h]);
  };
  long np = 0;
  if (request.np) {
    np = *request.np;
  } else {
    for (std::size_t h = 0; h < hosts.size(); ++h) np += static_cast<long>(per) * objects_of(h);
  }
  if (np > 1'000'000)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("ppr:{}:{}: {} processes is too many", per,
                                             request.object, np)};
  std::vector<int> out;
  int targets = 0;
  for (std::size_t h = 0; h < hosts.size() && static_cast<long>(out.size()) < np; ++h) {
    const NodeSlots& host = hosts[h];
    if (used[h] >= host.slots && !request.oversubscribe) continue;  // full: not a target
    ++targets;
    const long room = static_cast<long>(per) * objects_of(h);
    const long take = std::min(room, np - static_cast<long>(out.size()));
    used[h] += static_cast<int>(take);
    out.insert(out.end(), static_cast<std::size_t>(take), static_cast<int>(h));
    if (used[h] > host.slots && !request.oversubscribe)
      return Error{
          .kind = ErrorKind::NotEnoughSlots,
          .exit_code = std::nullopt,
          .detail = mpilaunch::format(
              "ppr:{}:{} puts {} processes on {}, which has {} slot{}{}; ask for fewer, add "
              "slots (host:N, slots=N) or pass --oversubscribe (mpirun 4.1.4: \"not enough "
              "slots available in the system to satisfy the {} slots\")",
              per, request.object, used[h], host.name, host.slots, host.slots == 1 ? "" : "s",
              used[h] > take
                  ? mpilaunch::format(" ({} of them of the contexts before)", used[h] - take)
                  : "",
              used[h])};
  }
  if (targets == 0)
    return Error{.kind = ErrorKind::NotEnoughSlots,
                 .exit_code = std::nullopt,
                 .detail =
                     "all nodes which are allocated for this job are already filled (the "
                     "application contexts before this one took every slot); add slots "
                     "or pass --oversubscribe"};
  if (static_cast<long>(out.size()) < np)
    return Error{
        .kind = ErrorKind::BadOption,
        .detail = mpilaunch::format(
            "{} is more than ppr:{}:{} places on {} (room for {}); ask for fewer "
            "processes or give more hosts (mpirun 4.1.4: \"more processes than the ppr "
            "for this topology can support\", also with --oversubscribe)",
            request.np ? mpilaunch::format("-n {}", np)
                       : mpilaunch::format("{} processes ({} per {} of every host)", np, per,
                                           request.object),
            per, request.object,
            mpilaunch::format("{} host{}{}", targets, targets == 1 ? "" : "s",
                              targets < static_cast<int>(hosts.size()) ? " with a free slot" : ""),
            out.size())};
  return out;
}

Result<JobMap> map_job(const std::vector<NodeSlots>& hosts, const MapRequest& request) {
  if (hosts.empty()) return Error{.kind = ErrorKind::BadOption, .detail = "no hosts to run on"};
  if (request.np && *request.np < 1)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("-n {}: the number of processes must be at least 1",
                                             *request.np)};
  if (request.per_node && *request.per_node < 1)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("-N {}: processes per node must be at least 1",
                                             *request.per_node)};
  const int n_hosts = static_cast<int>(hosts.size());
  const long total_slots = std::accumulate(
      hosts.begin(), hosts.end(), 0L, [](long sum, const NodeSlots& h) { return sum + h.slots; });
  std::vector<int> load(hosts.size(), 0);
  std::vector<int> node_of_rank;

  if (request.span && request.objects.size() == hosts.size() && !request.per_node) {
    const auto asked = ranks_asked(request, total_slots);
    if (!asked) return asked.error();
    const long np = *asked;
    const long objects =
        std::accumulate(request.objects.begin(), request.objects.end(), 0L,
                        [](long sum, int count) { return sum + std::max(0, count); });
    if (objects == 0)
      return Error{.kind = ErrorKind::BadOption,
                   .detail = mpilaunch::format("--map-by {}:SPAN: no host has a {}", request.object,
                                               request.object)};
    const long navg = std::max(1L, np / objects);
    long extra = std::max(0L, np - navg * objects);
    for (int h = 0; h < n_hosts && static_cast<long>(node_of_rank.size()) < np; ++h)
      for (int o = 0; o < request.objects[static_cast<std::size_t>(h)] &&
                      static_cast<long>(node_of_rank.size()) < np;
           ++o) {
        const long take =
            std::min(np - static_cast<long>(node_of_rank.size()), navg + (extra > 0 ? 1 : 0));
        if (extra > 0) --extra;
        node_of_rank.insert(node_of_rank.end(), static_cast<std::size_t>(take), h);
      }
  } else if (request.per_node) {
    std::vector<int> used(hosts.size(), 0);
    auto placed = map_ppr(hosts, used, request);
    if (!placed) return placed.error();
    node_of_rank = std::move(placed).value();
  } else {
    const auto asked = ranks_asked(request, total_slots);
    if (!asked) return asked.error();
    const long np = *asked;
    // First fill the slots, in the order of the mapping policy; then, when oversubscribing,
    // hand out the rest round-robin over the hosts.
    auto place = [&](int h) {
      node_of_rank.push_back(h);
      ++load[static_cast<std::size_t>(h)];
    };
    if (request.map_by == MapBy::Node && np > total_slots) {
      // mpirun 4.1.4 (measured on virtual nodes): by node with more processes than slots deals
      // round all the nodes, whatever their slots (-H a:1,b:3 -n 5 --oversubscribe: a,b,a,b,a).
      while (static_cast<long>(node_of_rank.size()) < np)
        for (int h = 0; h < n_hosts && static_cast<long>(node_of_rank.size()) < np; ++h) place(h);
    } else if (request.map_by == MapBy::Slot) {
      for (int h = 0; h < n_hosts && static_cast<long>(node_of_rank.size()) < np; ++h)
        while (load[static_cast<std::size_t>(h)] < hosts[static_cast<std::size_t>(h)].slots &&
               static_cast<long>(node_of_rank.size()) < np)
          place(h);
    } else {
      bool placed = true;
      while (placed && static_cast<long>(node_of_rank.size()) < np) {
        placed = false;
        for (int h = 0; h < n_hosts && static_cast<long>(node_of_rank.size()) < np; ++h)
          if (load[static_cast<std::size_t>(h)] < hosts[static_cast<std::size_t>(h)].slots) {
            place(h);
            placed = true;
          }
      }
    }
    while (static_cast<long>(node_of_rank.size()) < np)
      for (int h = 0; h < n_hosts && static_cast<long>(node_of_rank.size()) < np; ++h)
        if (load[static_cast<std::size_t>(h)] < capacity(hosts[static_cast<std::size_t>(h)], true))
          place(h);
    // Slot mapping keeps ranks of a node contiguous: renumber by node when oversubscribed.
    if (request.map_by == MapBy::Slot) {
      std::vector<int> sorted = node_of_rank;
      std::sort(sorted.begin(), sorted.end());
      node_of_rank = sorted;
    }
  }

  node_of_rank = rank_places(std::move(node_of_rank), request.rank_by);

  // Keep only nodes that received ranks; renumber them densely in host order.
  std::vector<int> new_index(hosts.size(), -1);
  std::vector<std::string> used;
  for (int node : node_of_rank)
    if (new_index[static_cast<std::size_t>(node)] < 0) {
      new_index[static_cast<std::size_t>(node)] = 0;
    }
  for (std::size_t h = 0; h < hosts.size(); ++h)
    if (new_index[h] == 0) {
      new_index[h] = static_cast<int>(used.size());
      used.push_back(hosts[h].name);
    }
  for (int& node : node_of_rank) node = new_index[static_cast<std::size_t>(node)];
  return JobMap(std::move(used), std::move(node_of_rank));
}

}  // namespace mpilaunch
