// Supervisor: signals to mpilaunch (SIGINT, SIGTERM, SIGHUP end the job, a second one without
// grace; SIGUSR1/2 go to the ranks) and its children reaped (SIGCHLD).

#include <sys/wait.h>

#include <cerrno>
#include <csignal>

#include "launcher/job/supervisor.hpp"

namespace mpilaunch::launcher {

// Reaps every child: our local agents, and, when mpilaunch is PID 1 in a container or a
// subreaper, the orphans the kernel hands to us. Agents' statuses are kept for their links.
void Supervisor::reap_children() {
  sigchld_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    for (;;) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0) break;
      reaped_[pid] = status;
    }
    reap_children();
  });
}

std::optional<int> Supervisor::wait_status_of(pid_t pid, bool kill_first) {
  int status = 0;
  if (const auto it = reaped_.find(pid); it != reaped_.end()) {
    status = it->second;
    reaped_.erase(it);
    return status;
  }
  if (::waitpid(pid, &status, WNOHANG) == pid) return status;
  if (kill_first) ::kill(pid, SIGKILL);
  // The blocking wait is interrupted by any SIGCHLD (asio's handler is not SA_RESTART): an
  // EINTR here used to lose the agent's status ("the connection closed" instead of the signal).
  pid_t got;
  while ((got = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (got == pid) return status;
  return std::nullopt;  // reaped meanwhile by reap_children(): the status is in reaped_
}

void Supervisor::wait_for_signals() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    if (signal == SIGUSR1 || signal == SIGUSR2) {
      kill_ranks(signal);
    } else if (draining_) {
      // The ranks are gone; only the reader is waited for: no more.
      give_up_output(Error{.kind = ErrorKind::Interrupted, .signal = signal});
      return;
    } else if (++interrupts_ == 1) {
      fail(Error{.kind = ErrorKind::Interrupted, .signal = signal}, JobEvent::Interrupted);
    } else {
      kill_ranks(SIGKILL);  // a second interrupt: no more grace
      // ... and no long wait for an agent that cannot pass the SIGKILL on.
      if (state_ == JobState::TearingDown &&
          teardown_timer_.expiry() > std::chrono::steady_clock::now() + kTeardownAnswer)
        arm_teardown_timer(kTeardownAnswer);
    }
    wait_for_signals();
  });
}

}  // namespace mpilaunch::launcher
