#include "launcher/diagnose/finding_set.hpp"

#include <algorithm>

namespace mpilaunch::launcher {
namespace {

// "node-b" and "node-b.example.org" name one host: ssh prints what the user typed, ORTE the
// short name.
bool same_host(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty() || a == b) return true;
  return a.substr(0, a.find('.')) == b.substr(0, b.find('.'));
}

template <class T>
bool agree(const std::optional<T>& a, const std::optional<T>& b) {
  return !a || !b || *a == *b;
}

bool agree(const std::string& a, const std::string& b) {
  return a.empty() || b.empty() || a == b;
}

bool compatible(const Error& a, const Error& b) {
  return a.kind == b.kind && same_host(a.host, b.host) && agree(a.rank, b.rank) &&
         agree(a.signal, b.signal) && agree(a.exit_code, b.exit_code) && agree(a.pid, b.pid) &&
         agree(a.executable, b.executable) && agree(a.phase, b.phase);
}

template <class T>
void fill(std::optional<T>& into, const std::optional<T>& from) {
  if (!into) into = from;
}
void fill(std::string& into, const std::string& from) {
  if (into.empty()) into = from;
}

void fill_fields(Error& into, const Error& from) {
  fill(into.host, from.host);
  fill(into.rank, from.rank);
  fill(into.signal, from.signal);
  fill(into.exit_code, from.exit_code);
  fill(into.pid, from.pid);
  fill(into.executable, from.executable);
  fill(into.phase, from.phase);
  fill(into.detail, from.detail);
}

bool is_agent_kind(ErrorKind k) {
  return k == ErrorKind::AgentStartFailed || k == ErrorKind::AgentLost;
}

}  // namespace

void append_evidence(std::vector<std::string>& evidence, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    if (evidence.size() >= kMaxEvidenceLines) return;
    evidence.push_back(line.substr(0, kMaxEvidenceLineBytes));
  }
}

bool topic_matches(std::string_view printed, std::string_view pattern_topic) {
  if (pattern_topic.empty() || printed.size() < pattern_topic.size()) return false;
  if (printed == pattern_topic) return true;
  return printed.ends_with(pattern_topic) &&
         printed[printed.size() - pattern_topic.size() - 1] == ':';
}

void FindingSet::add(Finding f) {
  // A daemon banner after an ssh or shell line reports the same failure: keep the line's kind.
  if (is_agent_kind(f.error.kind) && !f.from_raw_line) {
    for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
      Error& earlier = it->error;
      const bool agent_like = earlier.kind == ErrorKind::UnknownHost || is_agent_kind(earlier.kind);
      if (it->from_raw_line && agent_like && same_host(earlier.host, f.error.host)) {
        fill(earlier.phase, f.error.phase);
        fill(earlier.exit_code, f.error.exit_code);
        append_evidence(earlier.evidence, f.error.evidence);
        return;
      }
    }
  }
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
    if (it->role == f.role && it->marked_root == f.marked_root && compatible(it->error, f.error)) {
      fill_fields(it->error, f.error);
      append_evidence(it->error.evidence, f.error.evidence);
      it->from_raw_line = it->from_raw_line || f.from_raw_line;
      if (it->topic.empty()) it->topic = f.topic;
      return;
    }
  }
  if (items_.size() < kMaxFindings) items_.push_back(std::move(f));
}

bool FindingSet::aggregate(std::string_view topic, int n) {
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
    if (!topic_matches(topic, it->topic)) continue;
    it->error.count = it->error.count.value_or(1) + std::max(n, 0);
    return true;
  }
  return false;
}

}  // namespace mpilaunch::launcher
