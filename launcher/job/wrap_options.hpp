#pragma once
/// Wrap mode's command line (`mpilaunch --engine=ompi ...`): mpilaunch's own options may stand
/// anywhere before the program, mixed with mpirun's, as users write them; they are taken out and
/// everything else reaches mpirun untouched. Pure.

#include <string>
#include <vector>

#include "common/result.hpp"
#include "launcher/job/restart_policy.hpp"

namespace mpilaunch::launcher {

struct WrapOptions {
  std::string mpirun = "mpirun";
  std::string events_file;
  RestartConfig restart;
  bool max_restarts_given = false;
  std::vector<std::string> passthrough;  // everything for mpirun, in order
};

/// Walks the options as mpirun reads them (each mpirun option with its values, by the parser's
/// table) up to the program, whose words all pass through. mpilaunch's own options that wrap
/// mode has no meaning for (--status, --launcher, ...) are refused by name.
Result<WrapOptions> parse_wrap_options(const std::vector<std::string>& args);

}  // namespace mpilaunch::launcher
