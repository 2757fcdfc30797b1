#include "launcher/job/name_service.hpp"

#include <algorithm>

namespace mpilaunch::launcher {

using protocol::NameLookup;
using protocol::NamePersistence;
using protocol::NameRange;
using protocol::NameReply;
using protocol::NameStatus;

namespace {

// mpirun 4.1 keeps node-local names in each node's own server, the rest in mpirun's: a lookup
// searches one of the two, chosen by its own range.
bool node_local(NameRange range) {
  return range == NameRange::Node || range == NameRange::Process;
}

// How many of its keys a lookup needs before it is answered.
std::size_t wanted(const NameLookup& request) {
  return std::clamp<std::size_t>(request.wait, 1, std::max<std::size_t>(request.keys.size(), 1));
}

}  // namespace

std::vector<std::list<NameService::Record>::iterator> NameService::matches(
    int node, const NameLookup& request) {
  std::vector<std::list<Record>::iterator> found;
  for (const std::string& key : request.keys) {
    for (auto it = records_.begin(); it != records_.end(); ++it) {
      const Record& r = *it;
      if (r.entry.key != key || node_local(r.range) != node_local(request.range)) continue;
      if (node_local(r.range) && r.node != node) continue;
      if (r.range == NameRange::Process && (r.nspace != request.nspace || r.rank != request.rank))
        continue;
      if (r.range == NameRange::Namespace && r.nspace != request.nspace) continue;
      if (std::find(found.begin(), found.end(), it) != found.end()) continue;
      found.push_back(it);
      break;
    }
  }
  return found;
}

NameReply NameService::take(const std::vector<std::list<Record>::iterator>& found) {
  NameReply reply;
  for (const auto& it : found) reply.found.push_back({it->nspace, it->rank, it->entry});
  for (const auto& it : found)
    if (it->persistence == NamePersistence::FirstRead) records_.erase(it);
  return reply;
}

std::vector<NameService::Answer> NameService::publish(int node, std::uint32_t id,
                                                      const protocol::NamePublish& request) {
  std::vector<Answer> answers;
  if (request.entries.empty()) {
    answers.push_back({node, id, NameReply{NameStatus::BadRequest, {}}});
    return answers;
  }
  for (const protocol::NameEntry& entry : request.entries)
    records_.push_back(
        {node, request.nspace, request.rank, request.range, request.persistence, entry});
  answers.push_back({node, id, NameReply{}});
  // The waiting lookups in arrival order: a name read once goes to the first that waited.
  for (auto w = waiting_.begin(); w != waiting_.end();) {
    const auto found = matches(w->node, w->request);
    if (found.size() < wanted(w->request)) {
      ++w;
      continue;
    }
    answers.push_back({w->node, w->id, take(found)});
    w = waiting_.erase(w);
  }
  return answers;
}

std::optional<NameReply> NameService::lookup(int node, std::uint32_t id, const NameLookup& request,
                                             TimePoint now) {
  if (request.keys.empty()) return NameReply{NameStatus::BadRequest, {}};
  const auto found = matches(node, request);
  if (request.wait == 0) {
    if (found.empty()) return NameReply{NameStatus::NotFound, {}};
    return take(found);
  }
  if (found.size() >= wanted(request)) return take(found);
  const Duration limit = request.timeout_ms > 0
                             ? Duration(std::chrono::milliseconds(request.timeout_ms))
                             : Duration(kNameWaitDefault);
  waiting_.push_back({node, id, request, now + limit});
  return std::nullopt;
}

NameReply NameService::unpublish(int, const protocol::NameUnpublish& request) {
  std::erase_if(records_, [&](const Record& r) {
    return r.nspace == request.nspace && r.rank == request.rank && r.range == request.range &&
           (request.keys.empty() ||
            std::ranges::find(request.keys, r.entry.key) != request.keys.end());
  });
  return NameReply{};
}

std::vector<NameService::Answer> NameService::expire(TimePoint now) {
  std::vector<Answer> answers;
  for (auto w = waiting_.begin(); w != waiting_.end();) {
    if (w->deadline > now) {
      ++w;
      continue;
    }
    answers.push_back({w->node, w->id, NameReply{NameStatus::TimedOut, {}}});
    w = waiting_.erase(w);
  }
  return answers;
}

std::optional<TimePoint> NameService::next_deadline() const {
  std::optional<TimePoint> first;
  for (const Waiter& w : waiting_)
    if (!first || w.deadline < *first) first = w.deadline;
  return first;
}

void NameService::proc_ended(const std::string& nspace, std::uint32_t rank) {
  std::erase_if(records_, [&](const Record& r) {
    return r.persistence == NamePersistence::Proc && r.nspace == nspace && r.rank == rank;
  });
}

void NameService::namespace_ended(const std::string& nspace) {
  std::erase_if(records_, [&](const Record& r) {
    return r.nspace == nspace &&
           (r.persistence == NamePersistence::App || r.persistence == NamePersistence::Proc);
  });
}

void NameService::node_lost(int node) {
  std::erase_if(waiting_, [node](const Waiter& w) { return w.node == node; });
}

std::vector<NameService::Answer> NameService::end_all(NameStatus why) {
  std::vector<Answer> answers;
  for (const Waiter& w : waiting_) answers.push_back({w.node, w.id, NameReply{why, {}}});
  waiting_.clear();
  records_.clear();
  return answers;
}

}  // namespace mpilaunch::launcher
