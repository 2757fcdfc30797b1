#include "tests/e2e/support/background.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <thread>
#include <vector>

namespace mpilaunch::e2e {

Background::Background(const Command& command, const std::string& out_path,
                       const std::string& err_path) {
  std::vector<char*> argv, envp;
  for (const auto& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : command.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  // stdin first: with descriptor 0 closed it becomes 0, where it goes anyway.
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    install_standard_descriptors(in, out, err);
    if (!command.cwd.empty() && ::chdir(command.cwd.c_str()) != 0) ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
  ::close(in);
}

Background::~Background() {
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::optional<int> Background::wait(Millis deadline) {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  int status = 0;
  const bool exited =
      eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, deadline);
  if (!exited) return std::nullopt;
  reaped_ = true;
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

bool eventually(const std::function<bool()>& condition, Millis deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace mpilaunch::e2e
