#pragma once
/// [io] The launcher's entry point: argv -> a finished job -> exit code.

#include <string>
#include <vector>

namespace mpilaunch::launcher {

/// `args` excludes argv[0]. Returns mpilaunch's exit code (docs/exit-codes.md).
int run(const std::vector<std::string>& args);

}  // namespace mpilaunch::launcher
