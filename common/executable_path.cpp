#include "common/executable_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/text_format.hpp"
#include "common/text_split.hpp"

namespace mpilaunch {
namespace {

std::string env_value(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& entry : env)
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
  return {};
}

// Checks one candidate path: 0 if executable, else an errno-like reason.
int check_candidate(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (::access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

}  // namespace

Error executable_error(int err, const std::string& program) {
  if (err == ENOENT || err == ENOTDIR)
    return Error{
        .kind = ErrorKind::ExecutableNotFound, .executable = program, .detail = std::strerror(err)};
  return Error{.kind = ErrorKind::ExecutableNotExecutable,
               .executable = program,
               .detail = std::strerror(err)};
}

Result<std::string> resolve_executable(const std::string& program,
                                       const std::vector<std::string>& env, const std::string& wdir,
                                       const std::string& exec_path) {
  if (program.empty())
    return Error{.kind = ErrorKind::ExecutableNotFound, .detail = "empty program name"};
  if (program.find('/') != std::string::npos) {
    const std::string path = program[0] == '/' || wdir.empty() ? program : wdir + "/" + program;
    const int err = check_candidate(path);
    if (err != 0) return executable_error(err, program);
    return path;
  }
  std::string search = env_value(env, "PATH");
  if (search.empty()) search = "/usr/local/bin:/usr/bin:/bin";
  if (!exec_path.empty()) search = exec_path + ":" + search;
  int first_error = ENOENT;
  for (const std::string_view item : split_at(search, ':')) {
    std::string dir = item.empty() ? "." : std::string(item);
    if (dir[0] != '/' && !wdir.empty()) dir = wdir + "/" + dir;
    const std::string candidate = dir + "/" + program;
    const int err = check_candidate(candidate);
    if (err == 0) return candidate;
    if (err != ENOENT && err != ENOTDIR && first_error == ENOENT) first_error = err;
  }
  // Last, the working directory, as mpirun 4.1.4 finds a program there that no PATH entry
  // holds (measured: `mpirun -n 1 prog` runs ./prog).
  if (!wdir.empty() && check_candidate(wdir + "/" + program) == 0) return wdir + "/" + program;
  Error e = executable_error(first_error, program);
  if (first_error == ENOENT)
    e.detail = exec_path.empty() ? "not found in PATH"
                                 : mpilaunch::format("not found in --path {} nor PATH", exec_path);
  return e;
}

}  // namespace mpilaunch
