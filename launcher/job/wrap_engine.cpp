#include "launcher/job/wrap_engine.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>
#include <string_view>
#include <thread>

#include "common/text_format.hpp"

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/exit_codes.hpp"
#include "launcher/diagnose/console_parser.hpp"
#include "launcher/diagnose/parse_worker.hpp"
#include "launcher/job/restart_policy.hpp"
#include "launcher/job/wrap_options.hpp"
#include "launcher/output/event_log.hpp"
#include "launcher/output/output_forwarder.hpp"

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

// Runs one attempt: mpirun's output goes through unchanged, and a copy to the parser's thread.
int run_attempt(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                ParseWorker& parser) {
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
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::vector<char> buffer(64 * 1024);
  int open = 2;
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int s = 0; s < 2; ++s) {
      if (fds[s].fd < 0 || fds[s].revents == 0) continue;
      const ssize_t n = ::read(fds[s].fd, buffer.data(), buffer.size());
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        ::close(fds[s].fd);
        fds[s].fd = -1;
        --open;
        parser.close(s);
        continue;
      }
      const std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
      write_all(s == 0 ? 1 : 2, chunk);  // unchanged and in real time
      parser.push(s, chunk);
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
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

  events.write("job-start", {{"engine", "ompi"},
                             {"mpirun", w.mpirun},
                             {"open_mpi", major},
                             {"argv", argv},
                             {"max_restarts", w.restart.max_restarts}});
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
    const int rc = run_attempt(argv, attempt_env, parser);
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
    std::fputs(render_framed(error).c_str(), stderr);
    // A rank's own failure keeps mpirun's code (its exit code or 128+signal); everything else
    // follows mpilaunch's contract.
    const int code = exit_codes::for_error(error);
    events.write("job-end", {{"exit_code", code}, {"status", "failed"}, {"attempts", attempt}});
    return code;
  }
}

}  // namespace mpilaunch::launcher
