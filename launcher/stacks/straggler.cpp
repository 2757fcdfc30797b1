#include "launcher/stacks/straggler.hpp"

#include "common/text_format.hpp"

#include "launcher/stacks/call_path.hpp"
#include "launcher/stacks/stack_merge.hpp"

namespace mpilaunch::launcher {

std::string describe_stragglers(const std::vector<ProcessStack>& stacks) {
  std::string out;
  for (const StackGroup& g : stragglers(merge_stacks(stacks))) {
    if (!out.empty()) out += "; ";
    out += ranks_label(g.job, g.ranks);
    if (g.hosts.size() == 1 && !g.hosts.front().empty()) out += " on " + g.hosts.front();
    out += g.note.empty() ? " in " + join_path(g.path) : " (" + g.note + ")";
  }
  return out;
}

void name_stragglers(Error& timeout, const std::vector<ProcessStack>& stacks) {
  const std::vector<StackGroup> odd = stragglers(merge_stacks(stacks));
  if (odd.empty()) return;
  const std::string text = describe_stragglers(stacks);
  timeout.detail += timeout.detail.empty() ? "straggler: " + text : "; straggler: " + text;
  if (!timeout.rank && odd.front().job == 1) {  // Error::rank names an initial rank
    timeout.rank = odd.front().ranks.front();
    if (timeout.host.empty() && odd.front().hosts.size() == 1) timeout.host = odd.front().hosts[0];
  }
}

}  // namespace mpilaunch::launcher
