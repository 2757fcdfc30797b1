#include "launcher/job/wrap_engine.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string_view>
#include <thread>

#include "common/text_format.hpp"

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/exit_codes.hpp"
#include "common/process_tree.hpp"
#include "launcher/diagnose/console_parser.hpp"
#include "launcher/diagnose/parse_worker.hpp"
#include "launcher/job/restart_policy.hpp"
#include "launcher/job/wrap_options.hpp"
#include "launcher/output/event_log.hpp"
#include "launcher/output/output_forwarder.hpp"
#include "launcher/output/terminal_writer.hpp"

extern char** environ;

namespace mpilaunch::launcher {
namespace {

volatile sig_atomic_t g_child = 0;      // the running mpirun, for the signal handler
volatile sig_atomic_t g_interrupt = 0;  // the signal that interrupted us, if any

void forward_signal(int signal) {
  if (signal == SIGINT || signal == SIGTERM || signal == SIGHUP) g_interrupt = signal;
  if (g_child > 0) ::kill(g_child, signal);
}

std::string capture(const std::vector<std::string>& argv) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execvp(a[0], a.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(pipefd[0]);
  ::waitpid(pid, nullptr, 0);
  return out;
}

// The value of mpirun's --wdir (or --wd, -wdir, -wd), empty without one.
std::string wdir_of(const std::vector<std::string>& args) {
  std::string wdir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const char* name : {"--wdir", "-wdir", "--wd", "-wd"}) {
      const std::string_view a = args[i], n = name;
      if (a == n && i + 1 < args.size())
        wdir = args[i + 1];
      else if (a.size() > n.size() && a.starts_with(n) && a[n.size()] == '=')
        wdir = std::string(a.substr(n.size() + 1));
    }
  }
  return wdir;
}

// True only when this process sees the file system the ranks would have seen and the program
// is not in it: a path (not a bare name, which mpirun searches in PATH) relative to the job's
// working directory, whose directory exists here while the file does not. A wrapper that runs
// mpirun elsewhere (a container, a chroot) has its own files: there the directory is missing
// here, or the file exists, and the error stays as mpirun worded it.
bool seen_missing(const std::string& program, const std::string& wdir) {
  if (program.empty() || program.find('/') == std::string::npos) return false;
  std::filesystem::path path(program);
  if (path.is_relative() && !wdir.empty()) path = std::filesystem::path(wdir) / path;
  std::error_code ec;
  const bool dir_here = std::filesystem::is_directory(
      path.has_parent_path() ? path.parent_path() : std::filesystem::path("."), ec);
  return dir_here && ::access(path.c_str(), F_OK) != 0 && errno == ENOENT;
}

bool has_any(const std::vector<std::string>& args, std::initializer_list<const char*> names) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) {
      return a == n || a.starts_with(std::string(n) + "=");
    });
  });
}

// Our stdout and stderr, written from run_attempt()'s loop without ever blocking it.
struct WrapOutput {
  TerminalWriter terminal[2] = {TerminalWriter(1), TerminalWriter(2)};
  std::optional<Error> error;  // a terminal that failed: the job ends (EPIPE: as by SIGPIPE)

  std::size_t most_pending() const {
    return std::max(terminal[0].pending(), terminal[1].pending());
  }
};

// A stalled reader gets this long, after the job ended, to take what is queued for it; and
// mpirun this long to end after the SIGTERM that a failed terminal sends it.
constexpr auto kReaderGrace = std::chrono::seconds(5);
constexpr auto kMpirunGrace = std::chrono::seconds(5);
// mpirun gets this long to end after the SIGINT, SIGTERM or SIGHUP we passed on to it, then
// SIGKILL. mpirun 4.1 ends its job within a second or two; prterun 5.0.7 kills its ranks at once
// but then writes out, at its own slow pace for short lines, all the output it had read from
// them: measured over 60 s (two `yes` ranks), minutes when it wrote to a stalled pipe.
constexpr auto kInterruptGrace = std::chrono::seconds(10);
constexpr int kPollMillis = 200;  // how soon a signal is seen when none interrupts poll()

// Writes `text` to our stderr unless its reader stalled before, waiting kReaderGrace at most.
void final_stderr(WrapOutput& output, const std::string& text) {
  TerminalWriter& err = output.terminal[1];
  if (err.abandoned() || err.error() != 0) return;
  err.write(text);
  const auto deadline = std::chrono::steady_clock::now() + kReaderGrace;
  while (err.poll_fd() >= 0 && std::chrono::steady_clock::now() < deadline) {
    pollfd p{.fd = err.poll_fd(), .events = POLLOUT, .revents = 0};
    if (::poll(&p, 1, kPollMillis) > 0) err.flush();
  }
  err.abandon();
}

// One output-lost event per terminal that did not take everything.
void report_losses(EventLog& events, const WrapOutput& output) {
  for (int s = 0; s < 2; ++s) {
    const TerminalWriter& t = output.terminal[s];
    if (t.lost() == 0) continue;
    const int error = t.error();
    events.write("output-lost",
                 {{"stream", s == 0 ? "stdout" : "stderr"},
                  {"destination", s == 0 ? "stdout" : "stderr"},
                  {"error", error != 0 ? std::string(std::strerror(error))
                                       : "the reader took nothing more before the job ended"},
                  {"errno", error},
                  {"written_bytes", t.written()},
                  {"lost_bytes", t.lost()}});
  }
}

// `pid` and every process under it (mpirun's ranks are in process groups of their own), never
// ourselves: each is stopped (SIGSTOP) as it is found, so that none forks unseen, and the walk
// repeats until it finds none new; then all get SIGKILL.
void kill_tree(pid_t pid) {
  const pid_t self = ::getpid();
  std::set<pid_t> found;
  for (bool more = true; more;) {
    more = false;
    for (const pid_t p : process_tree(pid)) {
      if (p == self || !found.insert(p).second) continue;
      ::kill(p, SIGSTOP);
      more = true;
    }
  }
  for (const pid_t p : found) ::kill(p, SIGKILL);
}

// mpirun has ended. What it started and left running (a rank it killed that has not finished
// dying, a process a rank forked into a session of its own: mpirun 4.1.4 leaves those) was
// reparented to us, a child subreaper: each gets SIGKILL and is reaped, kMpirunGrace at most,
// so that no attempt leaves anything behind.
void end_leftovers() {
  kill_tree(::getpid());
  const auto deadline = std::chrono::steady_clock::now() + kMpirunGrace;
  for (;;) {
    const pid_t reaped = ::waitpid(-1, nullptr, WNOHANG);
    if (reaped > 0 || (reaped < 0 && errno == EINTR)) continue;
    if (reaped < 0 || std::chrono::steady_clock::now() >= deadline) return;  // none left
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Runs one attempt: mpirun's output goes through unchanged, and a copy to the parser's thread.
// The loop never blocks on our stdout or stderr: while their reader is slow, mpirun's pipes are
// not read (mpirun and its ranks then wait in their writes, and nothing is lost); once the job
// is ending (a signal, a failed terminal) they are read on and what cannot be queued is counted
// as lost. A reader that went away ends the job: mpirun gets SIGTERM, then SIGKILL (with all it
// started). An interrupt passed on to mpirun is followed by the same SIGKILL when mpirun has not
// ended kInterruptGrace later.
// After a SIGKILL, mpirun's pipes are read kReaderGrace more at most (a process it started may
// still hold them): the attempt always ends.
int run_attempt(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                ParseWorker& parser, WrapOutput& output) {
  using Clock = std::chrono::steady_clock;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return 71;
  std::vector<char*> a, e;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execvpe(a[0], a.data(), e.data());
    ::_exit(127);
  }
  g_child = pid;
  ::close(out[1]);
  ::close(err[1]);
  int source[2] = {out[0], err[0]};
  std::vector<char> buffer(64 * 1024);
  bool paused = false;  // backpressure: mpirun's pipes are not read
  constexpr Clock::time_point kNever = Clock::time_point::max();
  Clock::time_point give_up = kNever;  // the job ended: when a stalled reader is dropped
  Clock::time_point kill_at = kNever;  // a terminal failed or a signal came: mpirun's SIGKILL
  Clock::time_point drop_at = kNever;  // mpirun was killed: when its pipes are no longer read
  bool interrupt_timed = false;
  for (;;) {
    const bool ending = g_interrupt != 0 || output.error.has_value();
    if (g_interrupt != 0 && !interrupt_timed) {
      interrupt_timed = true;
      kill_at = std::min(kill_at, Clock::now() + kInterruptGrace);
    }
    if (output.most_pending() > kHighWater)
      paused = true;
    else if (output.most_pending() <= kLowWater)
      paused = false;
    const bool sources_open = source[0] >= 0 || source[1] >= 0;
    if (!sources_open) {
      if (output.most_pending() == 0) break;
      if (ending && give_up == kNever) give_up = Clock::now() + kReaderGrace;
      if (Clock::now() >= give_up) {
        for (TerminalWriter& t : output.terminal) t.abandon();
        break;
      }
    }
    if (Clock::now() >= kill_at) {
      kill_tree(pid);
      kill_at = kNever;
      drop_at = Clock::now() + kReaderGrace;
    }
    if (Clock::now() >= drop_at) {
      for (int s = 0; s < 2; ++s) {
        if (source[s] < 0) continue;
        ::close(source[s]);
        source[s] = -1;
        parser.close(s);
      }
      drop_at = kNever;
      continue;
    }
    pollfd fds[4];
    int streams[4];
    nfds_t n = 0;
    for (int s = 0; s < 2; ++s) {
      if (source[s] >= 0 && (ending || !paused)) {
        fds[n] = {source[s], POLLIN, 0};
        streams[n++] = s;
      }
    }
    for (int s = 0; s < 2; ++s) {
      if (output.terminal[s].poll_fd() >= 0) {
        fds[n] = {output.terminal[s].poll_fd(), POLLOUT, 0};
        streams[n++] = 2 + s;
      }
    }
    if (::poll(fds, n, kPollMillis) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (streams[i] >= 2) {
        output.terminal[streams[i] - 2].flush();
        continue;
      }
      const int s = streams[i];
      const ssize_t got = ::read(source[s], buffer.data(), buffer.size());
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        ::close(source[s]);
        source[s] = -1;
        parser.close(s);
        continue;
      }
      const std::string_view chunk(buffer.data(), static_cast<std::size_t>(got));
      TerminalWriter& terminal = output.terminal[s];
      if (ending && terminal.pending() > kMaxQueued)
        terminal.discard(chunk.size());
      else
        terminal.write(chunk);  // unchanged and in real time
      parser.push(s, chunk);
    }
    for (int s = 0; s < 2 && !output.error; ++s) {
      const int error = output.terminal[s].error();
      if (error == 0) continue;
      // Nothing more can reach the user: the job ends now, as mpirun's does when its stdout
      // closes; a reader that went away is what a Unix tool dies of by SIGPIPE.
      output.error =
          Error{.kind = ErrorKind::OutputError,
                .detail = mpilaunch::format("mpilaunch's {}: {}", s == 0 ? "stdout" : "stderr",
                                            std::strerror(error))};
      if (error == EPIPE) output.error->signal = SIGPIPE;
      ::kill(pid, SIGTERM);
      kill_at = std::min(kill_at, Clock::now() + kMpirunGrace);
    }
  }
  for (int& fd : source) {
    if (fd < 0) continue;
    ::close(fd);
    fd = -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  end_leftovers();
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace

int open_mpi_major(const std::string& text) {
  static const std::regex kVersion(R"(\(Open MPI\) (\d+)\.)");
  std::smatch m;
  if (!std::regex_search(text, m, kVersion)) return 0;
  return std::stoi(m[1]);
}

int run_wrapped(const std::vector<std::string>& args) {
  EventLog events;
  auto parsed = parse_wrap_options(args);
  auto fail_early = [&](const Error& e) {
    std::fputs(render_framed(e).c_str(), stderr);
    const int code = exit_codes::for_error(e);
    events.write("job-failed", {{"error", error_to_json(e)}, {"attempt", 0}, {"engine", "ompi"}});
    events.write("job-end", {{"exit_code", code}, {"status", "failed"}, {"attempts", 0}});
    return code;
  };
  if (!parsed) return fail_early(parsed.error());
  WrapOptions& w = parsed.value();
  if (Status st = events.open(w.events_file); !st) return fail_early(st.error());
  if (const char* env = std::getenv("MPILAUNCH_MAX_RESTARTS");
      env != nullptr && !w.max_restarts_given)
    w.restart.max_restarts = std::max(0, std::atoi(env));

  const std::string version = capture({w.mpirun, "--version"});
  const int major = open_mpi_major(version);
  if (major != 4 && major != 5)
    return fail_early(
        Error{.kind = ErrorKind::AgentStartFailed,
              .host = "localhost",
              .phase = "version",
              .detail = mpilaunch::format("'{} --version' is not Open MPI 4 or 5: {}", w.mpirun,
                                          version.substr(0, version.find('\n')))});

  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  auto has_env = [&](const std::string& name) {
    return std::any_of(env.begin(), env.end(),
                       [&](const std::string& e) { return e.starts_with(name + "="); });
  };
  auto env_is_one = [&](const std::string& name) {
    return std::find(env.begin(), env.end(), name + "=1") != env.end();
  };
  std::vector<std::string> argv = {w.mpirun};
  // Root: add Open MPI's switches only when the user allowed root, both spellings, because
  // some versions ignore one of them.
  const bool root_allowed =
      has_any(w.passthrough, {"--allow-run-as-root", "-allow-run-as-root"}) ||
      (env_is_one("OMPI_ALLOW_RUN_AS_ROOT") && env_is_one("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"));
  if (::geteuid() == 0 && root_allowed) {
    if (!has_any(w.passthrough, {"--allow-run-as-root", "-allow-run-as-root"}))
      argv.push_back("--allow-run-as-root");
    if (!has_env("OMPI_ALLOW_RUN_AS_ROOT")) env.push_back("OMPI_ALLOW_RUN_AS_ROOT=1");
    if (!has_env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"))
      env.push_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  }
  // One machine, no hosts named: the launch settings that work without ssh for each version.
  const bool hosts_named = has_any(w.passthrough, {"-H", "--host", "-host", "--hostfile",
                                                   "-hostfile", "--machinefile", "-machinefile"});
  if (!hosts_named) {
    // Open MPI 4 needs an ssh/rsh binary even for one node unless its plm is "isolated";
    // isolated also loses some help texts, so use it only when there is no ssh to be had.
    if (major == 4 && !has_env("OMPI_MCA_plm") && !has_env("OMPI_MCA_plm_rsh_agent") &&
        capture({"sh", "-c", "command -v ssh || command -v rsh"}).empty())
      env.push_back("OMPI_MCA_plm=isolated");
    if (major == 5 && !has_env("PRTE_MCA_plm")) {
      env.push_back("PRTE_MCA_plm=ssh");
      if (!has_env("PRTE_MCA_plm_ssh_agent")) env.push_back("PRTE_MCA_plm_ssh_agent=false");
    }
  }
  // Ranks learn the attempt number through mpirun's environment forwarding.
  argv.insert(argv.end(), {"-x", "MPILAUNCH_ATTEMPT", "-x", "MPILAUNCH_MAX_RESTARTS"});
  argv.insert(argv.end(), w.passthrough.begin(), w.passthrough.end());

  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) ::sigaction(s, &sa, nullptr);
  // What mpirun leaves running when it ends comes to us (end_leftovers()).
  (void)::prctl(PR_SET_CHILD_SUBREAPER, 1);

  events.write("job-start", {{"engine", "ompi"},
                             {"mpirun", w.mpirun},
                             {"open_mpi", major},
                             {"argv", argv},
                             {"max_restarts", w.restart.max_restarts}});
  WrapOutput output;
  RestartPolicy policy(w.restart);
  SteadyClock clock;
  std::random_device rd;
  for (int attempt = 1;; ++attempt) {
    std::vector<std::string> attempt_env = env;
    attempt_env.push_back(mpilaunch::format("MPILAUNCH_ATTEMPT={}", attempt));
    attempt_env.push_back(mpilaunch::format("MPILAUNCH_MAX_RESTARTS={}", w.restart.max_restarts));
    events.write("attempt-start", {{"attempt", attempt}});
    ParseWorker parser;
    const TimePoint started = clock.now();
    const int rc = run_attempt(argv, attempt_env, parser, output);
    const Explanation explained = parser.finish(rc);
    if (rc == 0 && !explained.error) {
      events.write("job-end", {{"exit_code", 0}, {"status", "succeeded"}, {"attempts", attempt}});
      return 0;
    }
    Error error =
        explained.error.value_or(Error{.kind = ErrorKind::Unknown,
                                       .exit_code = rc,
                                       .detail = mpilaunch::format("mpirun exited with {}", rc)});
    // Open MPI 4 words a missing file and an unexecutable one alike; on a one-machine run the
    // file system says which it is.
    if (error.kind == ErrorKind::ExecutableNotExecutable && !hosts_named &&
        seen_missing(error.executable, wdir_of(w.passthrough)))
      error.kind = ErrorKind::ExecutableNotFound;
    if (g_interrupt != 0)
      error = Error{.kind = ErrorKind::Interrupted, .signal = static_cast<int>(g_interrupt)};
    else if (output.error)
      error = *output.error;
    events.write("job-failed", {{"error", error_to_json(error)},
                                {"attempt", attempt},
                                {"rc", rc},
                                {"runtime", explained.runtime}});
    const RestartDecision decision = policy.on_failure(
        error, started, clock.now(), std::uniform_real_distribution<double>(0, 1)(rd));
    if (const auto* restart = std::get_if<Restart>(&decision)) {
      events.write(
          "attempt-failed",
          {{"attempt", attempt}, {"error", error_to_json(error)}, {"decision", "restart"}});
      std::this_thread::sleep_until(restart->not_before);  // the configured backoff
      continue;
    }
    events.write("attempt-failed", {{"attempt", attempt},
                                    {"error", error_to_json(error)},
                                    {"decision", "give-up"},
                                    {"reason", reason_name(std::get<GiveUp>(decision).reason)}});
    report_losses(events, output);
    final_stderr(output, render_framed(error));
    // A rank's own failure keeps mpirun's code (its exit code or 128+signal); everything else
    // follows mpilaunch's contract.
    const int code = exit_codes::for_error(error);
    events.write("job-end", {{"exit_code", code}, {"status", "failed"}, {"attempts", attempt}});
    return code;
  }
}

}  // namespace mpilaunch::launcher
