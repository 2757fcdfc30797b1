#include "launcher/job/teardown_deadline.hpp"

#include <algorithm>

namespace mpilaunch::launcher {

TeardownVerdict judge_teardown_deadline(std::span<const ProcessState> processes,
                                        const std::vector<bool>& link_open) {
  TeardownVerdict verdict;
  const auto open = [&](int node) {
    return node >= 0 && static_cast<std::size_t>(node) < link_open.size() &&
           link_open[static_cast<std::size_t>(node)];
  };
  for (const ProcessState& p : processes)
    if (!p.ended && p.started && open(p.node) &&
        std::find(verdict.silent_nodes.begin(), verdict.silent_nodes.end(), p.node) ==
            verdict.silent_nodes.end())
      verdict.silent_nodes.push_back(p.node);
  std::sort(verdict.silent_nodes.begin(), verdict.silent_nodes.end());
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const ProcessState& p = processes[i];
    if (p.ended) continue;
    const auto index = static_cast<std::uint32_t>(i);
    if (!open(p.node))
      verdict.lost.push_back(index);
    else if (!std::binary_search(verdict.silent_nodes.begin(), verdict.silent_nodes.end(), p.node))
      verdict.never_started.push_back(index);
  }
  return verdict;
}

}  // namespace mpilaunch::launcher
