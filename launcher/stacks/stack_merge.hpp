#pragma once
/// The merge: every rank's main-thread call path, ranks with the same path grouped as rank
/// ranges, smallest group first so the odd one out leads, printed one line per group
/// ("rank 3 (1) on node2: main > read_input > read") and as JSON for the events. Pure.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher/stacks/stack_text.hpp"

namespace mpilaunch::launcher {

/// Ranks whose main threads stopped in the same place (or, with no stack, for the same reason).
struct StackGroup {
  std::vector<std::string> path;  // outermost first; empty when `note` says why there is none
  std::string note;
  StackReason reason = StackReason::None;  // the note's type
  int job = 1;                             // the ranks' job (ProcessStack::job)
  std::vector<int> ranks;                  // ascending
  std::vector<std::string> hosts;          // the hosts of those ranks, each once, in rank order
  std::vector<std::string> python_path;    // Python ranks: their py-bt functions, outermost first
};

/// "0-2,4-7".
std::string rank_ranges(const std::vector<int>& ranks);

/// "rank 3", "ranks 0-2,5"; for a spawned job "job 2 rank 0".
std::string ranks_label(int job, const std::vector<int>& ranks);

/// Groups `stacks` by job and call path (and Python ranks also by their Python call path): smallest
/// group first, then by lowest rank.
std::vector<StackGroup> merge_stacks(const std::vector<ProcessStack>& stacks);

/// The groups that stand out: every group but the largest when one group is larger than all
/// others (and there are at least two); none when the largest size is shared.
std::vector<StackGroup> stragglers(const std::vector<StackGroup>& groups);

/// "rank 3 (1) on node2: main > read_input > read": hosts are named when the job has more than
/// one and the group has at most three. Python frames follow the native ones: "... > select
/// [python: <module> > main > read_input > sleep]".
std::string render_group(const StackGroup& group, bool several_hosts);

/// A heading naming the tools used, then one line per group, then one line per reason why
/// Python ranks have no Python frames, each ending in a newline.
std::string render_stack_tree(const std::vector<ProcessStack>& stacks);

/// {"groups": [{"ranks", "ranks_text", "hosts", "path", "note"?, "reason"?}], "ranks": [{"rank",
/// "host", "pid", "tool", "note"?, "reason"?, "raw"}]}: the merged tree and each rank's raw
/// stack; groups and ranks of a spawned job say "job" (2, 3, ...), the initial job's do not;
/// "reason" is reason_name() wherever there is a note. Python ranks add "python_path" to
/// their group and "python_frames" (innermost first) or "python_note" to their rank.
nlohmann::json stacks_to_json(const std::vector<ProcessStack>& stacks);

}  // namespace mpilaunch::launcher
