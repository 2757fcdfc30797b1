#include "agent/stack_tool.hpp"

#include <charconv>

#include "common/text_format.hpp"

namespace mpilaunch::agent {

std::vector<std::string> gdb_stack_argv(const std::string& gdb, const std::vector<long>& pids) {
  std::vector<std::string> argv = {gdb,       "--nx",
                                   "--batch", "-q",
                                   "-iex",    "set auto-load off",
                                   "-ex",     "set pagination off",
                                   "-ex",     "set width 0"};
  int inferior = 1;
  for (const long pid : pids) {
    if (inferior > 1) {
      argv.insert(argv.end(),
                  {"-ex", "add-inferior", "-ex", mpilaunch::format("inferior {}", inferior)});
    }
    argv.insert(argv.end(), {"-ex", mpilaunch::format("echo \\n{}{}\\n", kStackMarker, pid), "-ex",
                             mpilaunch::format("attach {}", pid), "-ex", "thread apply all bt",
                             "-ex", "detach"});
    ++inferior;
  }
  return argv;
}

std::vector<std::string> eu_stack_argv(const std::string& eu_stack, long pid) {
  return {eu_stack, "-p", std::to_string(pid)};
}

std::map<long, std::string> split_gdb_output(std::string_view out, bool tool_finished) {
  std::map<long, std::string> texts;
  std::size_t at = out.find(kStackMarker);
  while (at != std::string_view::npos) {
    std::string_view rest = out.substr(at + kStackMarker.size());
    long pid = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
    const std::size_t body = rest.find('\n');
    if (ec != std::errc() || body == std::string_view::npos) break;
    rest.remove_prefix(body + 1);
    const std::size_t next = rest.find(kStackMarker);
    if (next == std::string_view::npos && !tool_finished) break;
    texts[pid] = std::string(rest.substr(0, std::min(next, kMaxStackText)));
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
