#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include "common/text_format.hpp"

#include "launcher/start/agent_starter.hpp"
#include "launcher/start/srun_command.hpp"

namespace mpilaunch::launcher {

namespace {
// failure_for() is asked when the agent's stream closes; srun closes its stderr at about the
// same moment. Wait this long for the last lines so the reason is not lost to the race.
constexpr auto kStderrGrace = std::chrono::seconds(2);
}  // namespace

SrunAgentStarter::~SrunAgentStarter() {
  for (std::thread& t : threads_) t.join();
}

std::string SrunAgentStarter::describe() const {
  std::string out;
  for (const std::string& a : srun_command(srun_path_, agent_path_, "NODE")) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

std::optional<Error> SrunAgentStarter::failure_for(const HostEntry& host) const {
  std::unique_lock lock(mutex_);
  stderr_done_.wait_for(lock, kStderrGrace, [&] {
    const auto it = reading_.find(host.name);
    return it == reading_.end() || !it->second;
  });
  const auto it = failures_.find(host.name);
  if (it == failures_.end()) return std::nullopt;
  return it->second;
}

void SrunAgentStarter::read_stderr(const std::string& node, int fd) {
  std::string pending;
  char buf[4096];
  auto take_line = [&](std::string_view line) {
    // slurmstepd's "CANCELLED AT" banner comes before srun's "task 0: Terminated": the first
    // recognised line names the cause.
    auto e = slurm_step_end_line(line, node);
    if (!e) e = srun_error_line(line, node);
    if (e) {
      const std::lock_guard lock(mutex_);
      if (!failures_.contains(node)) failures_[node] = *e;  // the first error is the cause
    }
    // Everything goes on to the user: srun's own words too, they name the Slurm cause.
    [[maybe_unused]] ssize_t n = ::write(2, line.data(), line.size());
  };
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      take_line(std::string_view(pending).substr(0, nl + 1));
      pending.erase(0, nl + 1);
    }
  }
  if (!pending.empty()) take_line(pending + "\n");
  ::close(fd);
  {
    const std::lock_guard lock(mutex_);
    reading_[node] = false;
  }
  stderr_done_.notify_all();
}

Result<AgentProcess> SrunAgentStarter::start(const HostEntry& host) {
  auto failed = [&](const char* what) {
    return Error{.kind = ErrorKind::AgentStartFailed,
                 .host = host.name,
                 .phase = "srun",
                 .detail = mpilaunch::format("{}: {}", what, std::strerror(errno))};
  };
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return failed("socketpair");
  widen_agent_socket(sv);
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) {
    const Error e = failed("pipe");
    ::close(sv[0]);
    ::close(sv[1]);
    return e;
  }
  const std::vector<std::string> args = srun_command(srun_path_, agent_path_, host.name);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // srun leaves the launcher's process group: signals sent to the whole group (a terminal's
    // Ctrl-C, GNU timeout, a shell's job control, a container runtime) are the launcher's to
    // handle, as for local agents. srun would pass them to the job step, whose agents and
    // ranks would die of them at once, racing the launcher's teardown (SIGTERM to every rank
    // first, then 143) into agent-lost. srun still ends with the launcher: the agent ends when
    // its link closes, and with it the step. SIGINT stays ignored for a signal sent to srun
    // alone (srun would print its own status and need a second Ctrl-C).
    ::setpgid(0, 0);
    ::signal(SIGINT, SIG_IGN);
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    ::dup2(err[1], 2);
    ::close_range(3, ~0U, 0);  // nothing else of ours reaches srun and the agent
    if (::getppid() != parent) ::_exit(127);
    ::execvp(argv[0], argv.data());
    const char msg[] = "srun: error: cannot execute srun (is Slurm installed on this node?)\n";
    [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  const int saved = errno;
  if (pid > 0) ::setpgid(pid, pid);  // as the child does, so no group signal comes before it
  ::close(sv[1]);
  ::close(err[1]);
  if (pid < 0) {
    ::close(sv[0]);
    ::close(err[0]);
    errno = saved;
    return failed("fork");
  }
  {
    const std::lock_guard lock(mutex_);
    failures_.erase(host.name);  // a restarted agent starts with a clean slate
    reading_[host.name] = true;
  }
  threads_.emplace_back([this, node = host.name, fd = err[0]] { read_stderr(node, fd); });
  return AgentProcess{sv[0], pid};
}

}  // namespace mpilaunch::launcher
