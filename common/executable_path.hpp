#pragma once
/// [io] Finding a program the way execvp would, for the agent's spawn and the launcher's
/// look at the program's MPI library (--pmi=auto).

#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"

namespace mpilaunch {

/// Finds `program` relative to `wdir`, using PATH from `env` (NAME=value entries).
/// Errors: ExecutableNotFound, ExecutableNotExecutable (detail says why).
Result<std::string> resolve_executable(const std::string& program,
                                       const std::vector<std::string>& env,
                                       const std::string& wdir);

/// The error for an exec of `program` that failed with errno `err`.
Error executable_error(int err, const std::string& program);

}  // namespace mpilaunch
