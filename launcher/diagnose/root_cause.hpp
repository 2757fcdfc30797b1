#pragma once
/// Picks the root cause among a log's findings (rules of runtime-failures.md §4) and falls
/// back on the runtime's exit code when the text is gone (§5). Pure.

#include <optional>
#include <vector>

#include "launcher/diagnose/console_pattern.hpp"
#include "launcher/diagnose/explanation.hpp"
#include "launcher/diagnose/finding_set.hpp"

namespace mpilaunch::launcher {

/// What the parser kept of the most error-like block that no pattern recognised.
struct UnmatchedBlock {
  std::string first_line;
  std::vector<std::string> evidence;
  bool bannered = false;  // it stood between banner lines, as runtime messages do
};

/// Root cause first, the rest in log order. `rc` is the runtime's exit code, when known.
Explanation choose_root_cause(const std::vector<Finding>& findings, Runtime runtime,
                              std::optional<int> rc,
                              const std::optional<UnmatchedBlock>& unmatched);

}  // namespace mpilaunch::launcher
