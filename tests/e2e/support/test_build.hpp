#pragma once
/// MPILAUNCH_TEST_BUILD names another build directory of this source tree whose launcher,
/// agent and apps an end-to-end harness tests instead of its own build's: tools/test builds the
/// harnesses once, in the package build, and runs them against the sanitizer build too.
/// Header-only: the e2e and ssh-e2e harnesses are separate programs.

#include <cstdlib>
#include <optional>
#include <string>

namespace mpilaunch::e2e {

/// `relative` (e.g. "launcher/mpilaunch") inside MPILAUNCH_TEST_BUILD; nothing when unset.
inline std::optional<std::string> in_test_build(const char* relative) {
  const char* dir = std::getenv("MPILAUNCH_TEST_BUILD");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  return std::string(dir) + "/" + relative;
}

}  // namespace mpilaunch::e2e
