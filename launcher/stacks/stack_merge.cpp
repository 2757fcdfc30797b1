#include "launcher/stacks/stack_merge.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/text_format.hpp"

#include "launcher/stacks/call_path.hpp"

namespace mpilaunch::launcher {
namespace {

std::vector<std::string> path_of(const ProcessStack& p) {
  const ThreadStack* t = main_thread(p.threads, p.pid);
  return t == nullptr ? std::vector<std::string>{} : call_path(t->frames);
}

std::string note_of(const ProcessStack& p, const std::vector<std::string>& path) {
  if (!p.note.empty()) return p.note;
  return path.empty() ? std::string("no frames the tool could name") : std::string();
}

std::set<std::string> hosts_of(const std::vector<ProcessStack>& stacks) {
  std::set<std::string> hosts;
  for (const ProcessStack& p : stacks) hosts.insert(p.host);
  return hosts;
}

std::string tools_of(const std::vector<ProcessStack>& stacks) {
  std::set<std::string> tools;
  for (const ProcessStack& p : stacks) {
    if (!p.tool.empty()) tools.insert(p.tool);
    if (!p.python_frames.empty()) tools.insert("gdb py-bt");
  }
  return tools.empty() ? std::string("no tool") : mpilaunch::format("{}", fmt::join(tools, ", "));
}

}  // namespace

std::string rank_ranges(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out +=
        j == i ? mpilaunch::format("{}", ranks[i]) : mpilaunch::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string ranks_label(int job, const std::vector<int>& ranks) {
  return mpilaunch::format("{}{} {}", job == 1 ? "" : mpilaunch::format("job {} ", job),
                           ranks.size() == 1 ? "rank" : "ranks", rank_ranges(ranks));
}

std::vector<StackGroup> merge_stacks(const std::vector<ProcessStack>& stacks) {
  std::map<std::tuple<int, std::vector<std::string>, std::string, std::vector<std::string>>,
           StackGroup>
      by_key;
  std::vector<const ProcessStack*> in_order;
  for (const ProcessStack& p : stacks) in_order.push_back(&p);
  std::sort(in_order.begin(), in_order.end(), [](const ProcessStack* a, const ProcessStack* b) {
    return std::tie(a->job, a->rank) < std::tie(b->job, b->rank);
  });
  for (const ProcessStack* p : in_order) {
    std::vector<std::string> path = path_of(*p);
    std::string note = note_of(*p, path);
    if (!note.empty()) path.clear();
    std::vector<std::string> python(p->python_frames.rbegin(), p->python_frames.rend());
    StackGroup& g = by_key[{p->job, path, note, python}];
    g.job = p->job;
    g.path = path;
    g.python_path = std::move(python);
    g.note = note;
    if (!note.empty())
      g.reason = p->reason != StackReason::None ? p->reason : StackReason::NoFrames;
    g.ranks.push_back(p->rank);
    if (std::find(g.hosts.begin(), g.hosts.end(), p->host) == g.hosts.end()) {
      g.hosts.push_back(p->host);
    }
  }
  std::vector<StackGroup> groups;
  for (auto& [key, g] : by_key) groups.push_back(std::move(g));
  std::sort(groups.begin(), groups.end(), [](const StackGroup& a, const StackGroup& b) {
    if (a.ranks.size() != b.ranks.size()) return a.ranks.size() < b.ranks.size();
    return std::tie(a.job, a.ranks.front()) < std::tie(b.job, b.ranks.front());
  });
  return groups;
}

std::vector<StackGroup> stragglers(const std::vector<StackGroup>& groups) {
  if (groups.size() < 2) return {};
  const std::size_t largest = groups.back().ranks.size();
  if (groups[groups.size() - 2].ranks.size() == largest) return {};
  return {groups.begin(), groups.end() - 1};
}

std::string render_group(const StackGroup& group, bool several_hosts) {
  std::string out =
      mpilaunch::format("{} ({})", ranks_label(group.job, group.ranks), group.ranks.size());
  if (several_hosts && group.hosts.size() <= 3) {
    out += mpilaunch::format(" on {}", fmt::join(group.hosts, ","));
  }
  out += ": ";
  out += group.note.empty() ? join_path(group.path) : mpilaunch::format("({})", group.note);
  if (!group.python_path.empty())
    out += mpilaunch::format(" [python: {}]", fmt::join(group.python_path, " > "));
  return out;
}

std::string render_stack_tree(const std::vector<ProcessStack>& stacks) {
  const std::vector<StackGroup> groups = merge_stacks(stacks);
  const bool several_hosts = hosts_of(stacks).size() > 1;
  std::string out = mpilaunch::format(
      "stacks of {} rank{} ({}; main threads, calls into MPI shown as the MPI call, the odd "
      "ones first):\n",
      stacks.size(), stacks.size() == 1 ? "" : "s", tools_of(stacks));
  for (const StackGroup& g : groups) out += "  " + render_group(g, several_hosts) + "\n";
  std::map<std::pair<std::string, int>, std::vector<int>> python_notes;  // why not, job -> ranks
  for (const ProcessStack& p : stacks)
    if (!p.python_note.empty()) python_notes[{p.python_note, p.job}].push_back(p.rank);
  for (auto& [key, ranks] : python_notes) {
    std::sort(ranks.begin(), ranks.end());
    out += mpilaunch::format("  {}: {}\n", ranks_label(key.second, ranks), key.first);
  }
  return out;
}

nlohmann::json stacks_to_json(const std::vector<ProcessStack>& stacks) {
  nlohmann::json groups = nlohmann::json::array();
  for (const StackGroup& g : merge_stacks(stacks)) {
    nlohmann::json j = {{"ranks", g.ranks},
                        {"ranks_text", rank_ranges(g.ranks)},
                        {"hosts", g.hosts},
                        {"path", g.path}};
    if (g.job != 1) j["job"] = g.job;
    if (!g.note.empty()) j["note"] = g.note;
    if (g.reason != StackReason::None) j["reason"] = reason_name(g.reason);
    if (!g.python_path.empty()) j["python_path"] = g.python_path;
    groups.push_back(std::move(j));
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (const ProcessStack& p : stacks) {
    nlohmann::json j = {
        {"rank", p.rank}, {"host", p.host}, {"pid", p.pid}, {"tool", p.tool}, {"raw", p.raw}};
    if (p.job != 1) j["job"] = p.job;
    if (!p.note.empty()) j["note"] = p.note;
    if (p.reason != StackReason::None) j["reason"] = reason_name(p.reason);
    if (!p.python_frames.empty()) j["python_frames"] = p.python_frames;
    if (!p.python_note.empty()) j["python_note"] = p.python_note;
    ranks.push_back(std::move(j));
  }
  return {{"groups", std::move(groups)}, {"ranks", std::move(ranks)}};
}

}  // namespace mpilaunch::launcher
