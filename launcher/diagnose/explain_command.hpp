#pragma once
/// [io] `mpilaunch explain [--json] [--rc N] [FILE|-]`: reads a runtime's console output or an
/// mpilaunch events file (stdin for "-" or no FILE), streams it through the console parser and
/// prints the explanation. Exit codes (docs/errors.md): 0 an error was explained, 1 the log
/// shows no failure, 64 bad usage, 66 the file cannot be read.

#include <string>
#include <vector>

namespace mpilaunch::launcher {

/// `args` are the words after "explain".
int run_explain(const std::vector<std::string>& args);

}  // namespace mpilaunch::launcher
