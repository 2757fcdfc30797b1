#include "tests/e2e/support/command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace mpilaunch::e2e {

void install_standard_descriptors(int in, int out, int err) {
  const int from[3] = {in, out, err};
  for (int to = 0; to < 3; ++to) {
    if (from[to] == to)
      ::fcntl(to, F_SETFD, 0);
    else
      ::dup2(from[to], to);
  }
}
namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Appends what is readable now; closes `fd` at end of file.
void drain(int& fd, std::string& into) {
  std::array<char, 1 << 16> buf;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      into.append(buf.data(), static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) close_fd(fd);
      return;
    }
  }
}

// Runs in the forked child: only async-signal-safe calls, everything allocated before fork().
[[noreturn]] void exec_child(const Command& c, char* const* argv, char* const* envp, int in,
                             int out, int err) {
  ::setpgid(0, 0);
  install_standard_descriptors(in, out, err);
  if (!c.cwd.empty() && ::chdir(c.cwd.c_str()) != 0) ::_exit(126);
  ::execve(argv[0], argv, envp);
  const char msg[] = "e2e: execve failed\n";
  [[maybe_unused]] const ssize_t n = ::write(2, msg, sizeof msg - 1);
  ::_exit(127);
}

void record_status(Outcome& o, int status) {
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
}

}  // namespace

std::string Outcome::summary() const {
  const std::size_t tail = 2000;
  const std::string err_tail = err.size() > tail ? "..." + err.substr(err.size() - tail) : err;
  return "status " + std::to_string(status()) + (timed_out ? " (TIMED OUT)" : "") +
         (pipes_left_open ? " (pipes left open)" : "") + " after " +
         std::to_string(elapsed.count()) + " ms; stderr:\n" + err_tail;
}

Outcome run(const Command& c) {
  if (c.argv.empty()) throw std::invalid_argument("run: empty argv");
  ::signal(SIGPIPE, SIG_IGN);  // a command that never reads its stdin must not kill the test
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  const std::vector<char*> argv = c_strings(c.argv);
  const std::vector<char*> envp = c_strings(c.env);
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0)
    exec_child(c, argv.data(), envp.data(), c.stdin_fd >= 0 ? c.stdin_fd : in[0], out[1], err[1]);
  ::setpgid(pid, pid);  // also here, so that a kill at the deadline cannot race the child
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  int fds[3] = {in[1], out[0], err[0]};
  for (int fd : fds) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  // glibc 2.36 declares pidfd_open without extern "C"; the raw syscall avoids it.
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) throw std::runtime_error(std::string("pidfd_open: ") + std::strerror(errno));

  Outcome o;
  std::size_t written = 0;
  if (c.stdin_text.empty() || c.stdin_fd >= 0) close_fd(fds[0]);
  bool exited = false;
  auto pipe_deadline = Clock::time_point::max();
  const auto deadline = start + c.deadline;
  auto reap = [&] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    record_status(o, status);
    exited = true;
    close_fd(pidfd);
    close_fd(fds[0]);
    pipe_deadline = std::min(Clock::now() + c.pipe_grace, std::max(deadline, Clock::now()));
  };
  for (;;) {
    const auto now = Clock::now();
    if (!exited && now >= deadline) {
      o.timed_out = true;
      ::kill(-pid, SIGKILL);
      reap();
    }
    if (exited && fds[1] < 0 && fds[2] < 0) break;
    if (exited && Clock::now() >= pipe_deadline) {
      o.pipes_left_open = true;
      break;
    }
    std::vector<pollfd> polled;
    if (fds[0] >= 0) polled.push_back({fds[0], POLLOUT, 0});
    if (fds[1] >= 0) polled.push_back({fds[1], POLLIN, 0});
    if (fds[2] >= 0) polled.push_back({fds[2], POLLIN, 0});
    if (pidfd >= 0) polled.push_back({pidfd, POLLIN, 0});
    const auto until = exited ? pipe_deadline : deadline;
    const auto wait = std::chrono::duration_cast<Millis>(until - Clock::now()).count() + 1;
    if (::poll(polled.data(), polled.size(), static_cast<int>(std::max<long>(wait, 0))) < 0 &&
        errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (const pollfd& p : polled) {
      if (p.revents == 0) continue;
      if (p.fd == fds[1]) drain(fds[1], o.out);
      if (p.fd == fds[2]) drain(fds[2], o.err);
      if (p.fd == fds[0]) {
        const std::string_view rest = std::string_view(c.stdin_text).substr(written);
        const ssize_t n = ::write(fds[0], rest.data(), rest.size());
        if (n > 0) written += static_cast<std::size_t>(n);
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == c.stdin_text.size())
          close_fd(fds[0]);
      }
      if (p.fd == pidfd) reap();
    }
  }
  for (int& fd : fds) close_fd(fd);
  close_fd(pidfd);
  o.elapsed = std::chrono::duration_cast<Millis>(Clock::now() - start);
  return o;
}

std::vector<std::string> clean_environment(const std::vector<std::string>& extra) {
  auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  auto overridden = [&](std::string_view name) {
    return std::any_of(extra.begin(), extra.end(),
                       [&](const std::string& e) { return name_of(e) == name; });
  };
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = name_of(entry);
    const bool leaks = name.starts_with("OMPI_") || name.starts_with("PMIX_") ||
                       name.starts_with("PMI_") || name.starts_with("MPILAUNCH_");
    if (!leaks && !overridden(name)) env.emplace_back(entry);
  }
  for (const std::string& e : extra)
    if (std::none_of(extra.begin(), extra.end(), [&](const std::string& later) {
          return &later > &e && name_of(later) == name_of(e);
        }))
      env.push_back(e);
  return env;
}

}  // namespace mpilaunch::e2e
