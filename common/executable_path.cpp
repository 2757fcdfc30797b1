#include "common/executable_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

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
  auto found = find_executable(program, env, wdir, exec_path);
  if (!found) return found.error();
  return std::move(found.value().path);
}

Result<FoundExecutable> find_executable(const std::string& program,
                                        const std::vector<std::string>& env,
                                        const std::string& wdir, const std::string& exec_path) {
  if (program.empty())
    return Error{.kind = ErrorKind::ExecutableNotFound, .detail = "empty program name"};
  if (program.find('/') != std::string::npos) {
    const std::string path = program[0] == '/' || wdir.empty() ? program : wdir + "/" + program;
    const int err = check_candidate(path);
    if (err != 0) return executable_error(err, program);
    return FoundExecutable{path, program};
  }
  std::string search = env_value(env, "PATH");
  if (search.empty()) search = "/usr/local/bin:/usr/bin:/bin";
  if (!exec_path.empty()) search = exec_path + ":" + search;
  int first_error = ENOENT;
  for (const std::string_view item : split_at(search, ':')) {
    const std::string given = item.empty() ? "." : std::string(item);
    const bool relative = given[0] != '/' && !wdir.empty();
    const std::string dir = relative ? wdir + "/" + given : given;
    const std::string candidate = dir + "/" + program;
    const int err = check_candidate(candidate);
    // mpirun 4.1.4 executes a program found in a relative directory D (--path pbin, PATH=rel)
    // as ./D/NAME from the working directory, one in `.` by its absolute path (measured).
    if (err == 0)
      return FoundExecutable{candidate,
                             relative && given != "." ? "./" + given + "/" + program : candidate};
    if (err != ENOENT && err != ENOTDIR && first_error == ENOENT) first_error = err;
  }
  // Last, the working directory, as mpirun 4.1.4 finds a program there that no PATH entry
  // holds (measured: `mpirun -n 1 prog` runs ./prog, as $0 /its/wdir/prog).
  if (!wdir.empty() && check_candidate(wdir + "/" + program) == 0)
    return FoundExecutable{wdir + "/" + program, wdir + "/" + program};
  Error e = executable_error(first_error, program);
  if (first_error == ENOENT)
    e.detail = exec_path.empty() ? "not found in PATH"
                                 : mpilaunch::format("not found in --path {} nor PATH", exec_path);
  return e;
}

}  // namespace mpilaunch
