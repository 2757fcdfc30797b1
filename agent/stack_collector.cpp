#include "agent/stack_collector.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "agent/stack_tool.hpp"
#include "common/executable_path.hpp"
#include "common/stack_sections.hpp"
#include "common/text_format.hpp"

extern char** environ;

namespace mpilaunch::agent {
namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  pid_t pid = -1;
  int fd = -1;
  std::string out;
  bool eof = false;       // the tool closed its output (it is exiting)
  bool finished = false;  // ... and was reaped before the deadline killed it
};

// The tool with stdout and stderr on one pipe, stdin on /dev/null, LC_ALL=C.
Run start(const std::vector<std::string>& argv) {
  Run run;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return run;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text = {"LC_ALL=C"};
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).starts_with("LC_ALL=")) continue;
    env_text.emplace_back(*e);
  }
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  const int rc = ::posix_spawn(&run.pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    run.pid = -1;
    return run;
  }
  run.fd = fds[0];
  return run;
}

// At most this many eu-stack processes run at once on a node: a node of many ranks gets its
// stacks a batch at a time rather than one process per rank all at once.
std::size_t parallel_tools() {
  return std::max(4U, std::thread::hardware_concurrency());
}

// Runs the tool of every argv, at most `limit` at once (the next starts as one closes its
// output), and reads each one's output until it closes it or the deadline passes; kills the
// rest. A run not started by the deadline keeps pid -1 and counts as unfinished.
std::vector<Run> run_all(const std::vector<std::vector<std::string>>& argvs, std::size_t limit,
                         Clock::time_point deadline) {
  std::vector<Run> runs(argvs.size());
  std::size_t next = 0;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Run*> open;
    for (Run& r : runs) {
      if (r.fd < 0) continue;
      fds.push_back({r.fd, POLLIN, 0});
      open.push_back(&r);
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    if (fds.size() < limit && next < argvs.size()) {
      runs[next] = start(argvs[next]);
      ++next;
      continue;
    }
    if (fds.empty()) break;
    if (::poll(fds.data(), fds.size(), static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      char buf[16 * 1024];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        // gdb's text for every rank of the node, each cut to kMaxStackText later.
        if (open[i]->out.size() < 64 * kMaxStackText) open[i]->out.append(buf, std::size_t(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(open[i]->fd);
        open[i]->fd = -1;
        open[i]->eof = n == 0;
      }
    }
  }
  for (Run& r : runs) {
    if (r.fd >= 0) {
      ::close(r.fd);
      r.fd = -1;
    }
    if (r.pid <= 0) continue;
    // A tool that closed its output is exiting: wait for it. One still writing at the
    // deadline is killed (a rank gdb stopped resumes when gdb dies).
    if (!r.eof) ::kill(r.pid, SIGKILL);
    int status = 0;
    while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.finished = r.eof;
  }
  return runs;
}

std::optional<std::string> find_tool(const char* name) {
  const char* path = std::getenv("PATH");
  auto found = resolve_executable(
      name, {std::string("PATH=") + (path != nullptr ? path : "/usr/bin:/bin")}, "");
  if (!found) return std::nullopt;
  return found.value();
}

// Each rank's program, from /proc/PID/exe (an empty path when it cannot be read).
std::vector<RunningProgram> running_programs(const std::vector<StackTarget>& targets) {
  std::vector<RunningProgram> programs;
  for (const StackTarget& t : targets) {
    std::error_code ec;
    const std::string link =
        std::filesystem::read_symlink(mpilaunch::format("/proc/{}/exe", t.pid), ec).string();
    programs.push_back(ec ? RunningProgram{} : running_program(link));
  }
  return programs;
}

// The interpreter of each Python rank ("" for the others).
std::vector<std::string> python_interpreters(const std::vector<RunningProgram>& programs) {
  std::vector<std::string> exes;
  for (const RunningProgram& p : programs)
    exes.push_back(is_python_interpreter(p.path) ? p.path : std::string());
  return exes;
}

// The gdb run for the Python ranks that gdb can give Python frames for (none: an empty argv),
// and in `notes`, for each Python rank without, the section that says why not.
std::vector<std::string> python_run(const std::vector<StackTarget>& targets,
                                    const std::vector<RunningProgram>& programs,
                                    const std::vector<std::string>& exes, const std::string& host,
                                    std::vector<std::string>& notes) {
  std::vector<GdbTarget> runs;
  const auto gdb = find_tool("gdb");
  notes.assign(targets.size(), "");
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (exes[i].empty()) continue;
    std::error_code ec;
    const std::string extension = python_gdb_extension(exes[i]);
    if (gdb && std::filesystem::exists(extension, ec)) {
      const bool replaced = programs[i].replaced;
      runs.push_back({targets[i].pid, replaced, replaced ? extension : std::string()});
      continue;
    }
    notes[i] = mpilaunch::format("\n{}{}\n", kPythonSectionNone,
                                 no_python_frames_note(host, gdb.has_value(), exes[i]));
  }
  if (runs.empty()) return {};
  return gdb_python_argv(*gdb, runs);
}

// Appends each Python rank's py-bt text from `run` (its output cut at the markers).
void add_python_frames(std::vector<protocol::RankStack>& out,
                       const std::vector<RunningProgram>& programs,
                       const std::vector<std::string>& exes, const Run& run, double seconds,
                       const std::string& host) {
  const std::map<long, std::string> texts = split_gdb_output(run.out, run.finished);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (exes[i].empty() || out[i].text.find(kPythonSection) != std::string::npos) continue;
    const auto it = texts.find(out[i].pid);
    if (it == texts.end()) {
      out[i].text += mpilaunch::format("\n{}no Python frames: gdb {}\n", kPythonSectionNone,
                                       no_answer_note(seconds));
    } else if (python_frames_unreadable(it->second)) {
      out[i].text +=
          mpilaunch::format("\n{}{}\n", kPythonSectionNone,
                            unreadable_python_frames_note(host, exes[i], programs[i].replaced));
    } else {
      out[i].text += mpilaunch::format("\n{}\n{}", kPythonSection, it->second);
    }
  }
}

std::vector<protocol::RankStack> collect_now(const std::vector<StackTarget>& targets,
                                             std::chrono::milliseconds deadline,
                                             const std::string& host) {
  const auto until = Clock::now() + deadline;
  const double seconds = std::chrono::duration<double>(deadline).count();
  std::vector<protocol::RankStack> out;
  for (const StackTarget& t : targets) out.push_back({t.rank, t.pid, "", "", ""});
  if (targets.empty()) return out;
  // Read first: a replaced program (an upgrade, a rebuild) is given to gdb as /proc/PID/exe.
  const std::vector<RunningProgram> programs = running_programs(targets);
  std::vector<std::vector<std::string>> argvs;
  // MPILAUNCH_STACK_TOOL=gdb or eu-stack: only that tool (docs/configuration.md). By default
  // eu-stack, the fastest with every thread's stack (docs/stacks.md), else gdb.
  const char* chosen = std::getenv("MPILAUNCH_STACK_TOOL");
  const std::string only = chosen != nullptr ? chosen : "";
  const auto eu = only.empty() || only == "eu-stack" ? find_tool("eu-stack") : std::nullopt;
  const auto gdb = !eu && (only.empty() || only == "gdb") ? find_tool("gdb") : std::nullopt;
  if (eu) {
    for (const StackTarget& t : targets) argvs.push_back(eu_stack_argv(*eu, t.pid));
  } else if (gdb) {
    // One gdb for the node's ranks, attaching to each in turn: one gdb per rank in parallel
    // took 1.6 times as long on this 2-CPU machine (docs/benchmarks.md, case 12).
    std::vector<GdbTarget> attach;
    for (std::size_t i = 0; i < targets.size(); ++i)
      attach.push_back({targets[i].pid, programs[i].replaced, ""});
    argvs.push_back(gdb_stack_argv(*gdb, attach));
  }
  const std::vector<Run> runs = run_all(argvs, parallel_tools(), until);
  if (eu) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Run& run = runs[i];
      out[i].tool = "eu-stack";
      out[i].text = run.out.substr(0, kMaxStackText);
      if (!run.finished) out[i].note = no_answer_note(seconds);
    }
  } else if (gdb) {
    const std::map<long, std::string> texts = split_gdb_output(runs[0].out, runs[0].finished);
    for (protocol::RankStack& s : out) {
      s.tool = "gdb";
      const auto it = texts.find(s.pid);
      if (it != texts.end()) s.text = it->second;
      if (it == texts.end()) s.note = no_answer_note(seconds);
    }
  } else {
    for (protocol::RankStack& s : out) s.note = no_stack_tool_note(host);
  }
  // Python ranks also get their Python frames from gdb's py-bt where the interpreter's gdb
  // extension is installed (docs/stacks.md): after the native tool, as a process has one
  // tracer at a time, within what is left of the deadline.
  const std::vector<std::string> exes = python_interpreters(programs);
  std::vector<std::string> python_notes;
  const std::vector<std::string> python_argv =
      python_run(targets, programs, exes, host, python_notes);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].text += python_notes[i];
  if (!python_argv.empty())
    add_python_frames(out, programs, exes, run_all({python_argv}, 1, until)[0], seconds, host);
  return out;
}

}  // namespace

StackCollector::~StackCollector() {
  for (std::thread& t : threads_) t.join();
}

void StackCollector::collect(std::vector<StackTarget> targets, std::chrono::milliseconds deadline,
                             std::string host, Done done) {
  threads_.emplace_back([this, targets = std::move(targets), deadline, host = std::move(host),
                         done = std::move(done)]() mutable {
    std::vector<protocol::RankStack> stacks = collect_now(targets, deadline, host);
    asio::post(io_, [done = std::move(done), stacks = std::move(stacks)]() mutable {
      done(std::move(stacks));
    });
  });
}

}  // namespace mpilaunch::agent
