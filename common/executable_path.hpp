#pragma once
/// [io] Finding a program the way execvp would, for the agent's spawn and the launcher's
/// look at the program's MPI library (--pmi=auto).

#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"

namespace mpilaunch {

/// Finds `program` relative to `wdir`, using PATH from `env` (NAME=value entries). A name
/// without '/' is looked up as mpirun 4.1.4 looks it up for its ranks (measured): in the
/// directories of `exec_path` first (mpirun's --path, ':'-separated, a relative one taken from
/// `wdir`), then PATH's, then `wdir` itself (when not empty).
/// Errors: ExecutableNotFound, ExecutableNotExecutable (detail says why).
Result<std::string> resolve_executable(const std::string& program,
                                       const std::vector<std::string>& env, const std::string& wdir,
                                       const std::string& exec_path = {});

/// A program as resolve_executable() finds it, and the name to execute it by: the one
/// mpirun 4.1.4 uses (measured; a script sees it as `$0`). A name with '/' as given and a name
/// found in a relative --path or PATH directory D (other than `.`) as `./D/NAME`, both relative
/// to `wdir` (the process changes into it first); otherwise `path`.
struct FoundExecutable {
  std::string path;       // absolute when `wdir` is (for reading the file)
  std::string exec_name;  // for execve, from `wdir`
};
Result<FoundExecutable> find_executable(const std::string& program,
                                        const std::vector<std::string>& env,
                                        const std::string& wdir, const std::string& exec_path = {});

/// The error for an exec of `program` that failed with errno `err`.
Error executable_error(int err, const std::string& program);

}  // namespace mpilaunch
