#include "agent/stack_tool.hpp"

#include "common/text.hpp"
#include "common/text_format.hpp"

namespace mpilaunch::agent {
namespace {

// Where Debian's -dbg packages put gdb's auto-load scripts, one per program path below it.
constexpr std::string_view kAutoLoadDir = "/usr/share/gdb/auto-load";

// gdb --batch with `options`, attaching to each target in turn (a fresh inferior each, so
// ranks of different programs get their own symbols), a marker line before each, running
// `command` there and detaching.
std::vector<std::string> gdb_each(const std::string& gdb, const std::vector<std::string>& options,
                                  const std::vector<GdbTarget>& targets,
                                  const std::string& command) {
  std::vector<std::string> argv = {gdb, "--nx", "--batch", "-q"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-ex", "set pagination off", "-ex", "set width 0"});
  int inferior = 1;
  for (const GdbTarget& t : targets) {
    if (inferior > 1) {
      argv.insert(argv.end(),
                  {"-ex", "add-inferior", "-ex", mpilaunch::format("inferior {}", inferior)});
    }
    argv.insert(argv.end(), {"-ex", mpilaunch::format("echo \\n{}{}\\n", kStackMarker, t.pid)});
    if (t.replaced) argv.insert(argv.end(), {"-ex", mpilaunch::format("file /proc/{}/exe", t.pid)});
    argv.insert(argv.end(), {"-ex", mpilaunch::format("attach {}", t.pid)});
    if (!t.extension.empty()) argv.insert(argv.end(), {"-ex", "source " + t.extension});
    argv.insert(argv.end(), {"-ex", command, "-ex", "detach"});
    ++inferior;
  }
  return argv;
}

}  // namespace

RunningProgram running_program(std::string_view exe_link) {
  constexpr std::string_view kDeleted = " (deleted)";
  if (!exe_link.ends_with(kDeleted)) return {std::string(exe_link), false};
  exe_link.remove_suffix(kDeleted.size());
  return {std::string(exe_link), true};
}

std::vector<std::string> gdb_stack_argv(const std::string& gdb,
                                        const std::vector<GdbTarget>& targets) {
  return gdb_each(gdb, {"-iex", "set auto-load off"}, targets, "thread apply all bt");
}

std::vector<std::string> gdb_python_argv(const std::string& gdb,
                                         const std::vector<GdbTarget>& targets) {
  return gdb_each(gdb,
                  {"-iex", mpilaunch::format("set auto-load safe-path {}", kAutoLoadDir), "-iex",
                   mpilaunch::format("add-auto-load-scripts-directory {}", kAutoLoadDir)},
                  targets, "py-bt");
}

bool is_python_interpreter(std::string_view exe) {
  const std::size_t slash = exe.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? exe : exe.substr(slash + 1);
  if (!name.starts_with("python")) return false;
  // python, python3, python3.11 (and python3.11d, a debug build): digits and dots after it.
  for (const char c : name.substr(6))
    if (!(c == '.' || c == 'd' || (c >= '0' && c <= '9'))) return false;
  return true;
}

std::string python_gdb_extension(std::string_view exe) {
  return mpilaunch::format("{}{}-gdb.py", kAutoLoadDir, exe);
}

std::string no_python_frames_note(const std::string& host, bool gdb_found, std::string_view exe) {
  if (!gdb_found)
    return mpilaunch::format(
        "no Python frames: gdb is not installed on {} (Debian/Ubuntu: apt install gdb "
        "python3-dbg)",
        host);
  return mpilaunch::format(
      "no Python frames: gdb's extension for {} is not installed on {} (Debian/Ubuntu: apt "
      "install python3-dbg)",
      exe, host);
}

bool python_frames_unreadable(std::string_view py_bt) {
  return py_bt.find("File \"") == std::string_view::npos &&
         py_bt.find("unable to read python frame information") != std::string_view::npos;
}

std::string unreadable_python_frames_note(const std::string& host, std::string_view exe,
                                          bool replaced) {
  if (replaced)
    return mpilaunch::format(
        "no Python frames: gdb cannot read the frames on {} of {}, which was replaced on disk "
        "since the rank started (an upgrade?): the running interpreter's debug symbols may have "
        "gone with it; ranks started since have them",
        host, exe);
  return mpilaunch::format(
      "no Python frames: gdb cannot read {}'s frames on {} (optimized out in this release "
      "build; its debug build, e.g. python3-dbg's {}d, keeps them)",
      exe, host, exe.substr(exe.rfind('/') + 1));
}

std::vector<std::string> eu_stack_argv(const std::string& eu_stack, long pid) {
  return {eu_stack, "-p", std::to_string(pid)};
}

std::map<long, std::string> split_gdb_output(std::string_view out, bool tool_finished) {
  std::map<long, std::string> texts;
  std::size_t at = out.find(kStackMarker);
  while (at != std::string_view::npos) {
    std::string_view rest = out.substr(at + kStackMarker.size());
    const auto pid = leading_int<long>(rest);
    const std::size_t body = rest.find('\n');
    if (!pid || body == std::string_view::npos) break;
    rest.remove_prefix(body + 1);
    const std::size_t next = rest.find(kStackMarker);
    if (next == std::string_view::npos && !tool_finished) break;
    texts[*pid] = std::string(rest.substr(0, std::min(next, kMaxStackText)));
    at = next == std::string_view::npos ? next : at + kStackMarker.size() + body + 1 + next;
  }
  return texts;
}

std::string no_stack_tool_note(const std::string& host) {
  return mpilaunch::format(
      "neither gdb nor eu-stack is installed on {} (Debian/Ubuntu: apt install gdb, or elfutils "
      "for eu-stack; RHEL/Fedora: dnf install gdb or elfutils)",
      host);
}

std::string no_answer_note(double seconds) {
  return mpilaunch::format("did not answer within {:g} s", seconds);
}

}  // namespace mpilaunch::agent
