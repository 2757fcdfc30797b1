#pragma once
/// What `explain` found in a runtime's console output: the root cause and its follow-ons.

#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace mpilaunch::launcher {

struct Explanation {
  std::string runtime = "unknown";  // "orte-4", "prrte-5", "hydra", "mpilaunch" or "unknown"
  std::optional<int> rc;            // the runtime's exit code, when known
  std::optional<Error> error;       // the root cause; empty when nothing failed
  std::vector<Error> secondary;     // consequences and other failures, in log order
};

}  // namespace mpilaunch::launcher
