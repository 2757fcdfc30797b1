#pragma once
/// [io] Support for the ssh end-to-end tests: a throw-away sshd on 127.0.0.1-8 (started by
/// sshd_fixture.sh), running mpilaunch with a deadline, reading its events file and looking
/// for job processes left behind. Every wait has a deadline; nothing sleeps for a fixed time.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpilaunch::e2e {

class Sshd {
 public:
  /// Starts sshd (or fails the test run with the fixture's stderr).
  Sshd();
  ~Sshd();
  Sshd(const Sshd&) = delete;
  Sshd& operator=(const Sshd&) = delete;
  const std::string& dir() const { return dir_; }
  std::string ssh_config() const { return dir_ + "/ssh_config"; }

 private:
  std::string dir_;
  pid_t pid_ = -1;
};

/// The one sshd shared by every case of this executable.
Sshd& sshd();

struct Run {
  int exit_code = -1;  // 128+N when killed by signal N (never happens within the deadline)
  std::string out, err;
  std::vector<nlohmann::json> events;
  std::optional<nlohmann::json> failure;  // the job-failed event's "error"
};

/// A started mpilaunch, stdout and stderr going to files, SSH_AUTH_SOCK unset.
class Launcher {
 public:
  /// `with_events`: put "--events FILE" first (not for subcommands such as doctor). Its stdin
  /// is `stdin_path` (never the test's own, which may be a terminal or closed).
  explicit Launcher(std::vector<std::string> args, bool with_events = true,
                    const std::string& stdin_path = "/dev/null");
  ~Launcher();
  const std::string& events_path() const { return events_; }
  std::string err_path() const { return dir_ + "/err"; }
  std::string out_path() const { return dir_ + "/out"; }
  pid_t pid() const { return pid_; }
  /// Waits for the exit (killing it at the deadline) and collects output and events.
  Run wait(std::chrono::milliseconds deadline = std::chrono::seconds(30));

 private:
  std::string dir_, events_;
  pid_t pid_ = -1;
};

/// mpilaunch ARGS... to its end.
Run run_launcher(std::vector<std::string> args);
/// mpilaunch doctor ARGS... to its end.
Run run_doctor(std::vector<std::string> args);

/// The whole file ("" when it cannot be read).
std::string read_text(const std::string& path);
/// Re-checks `done` every few milliseconds until it holds; false at the deadline.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds deadline);

/// Waits until the file holds `text`; false at the deadline.
bool wait_for_text(const std::string& path, const std::string& text,
                   std::chrono::milliseconds deadline);

/// The second sshd (host "late" in the fixture's ssh_config), started on demand and stopped
/// with its session processes by stop(), or at destruction.
class LateSshd {
 public:
  LateSshd();
  ~LateSshd() { stop(); }
  LateSshd(const LateSshd&) = delete;
  LateSshd& operator=(const LateSshd&) = delete;
  /// Kills the listener and every session process under it (the connections drop).
  void stop();

 private:
  pid_t pid_ = -1;
};

/// The events file's lines, parsed (a half-written last line is skipped).
std::vector<nlohmann::json> read_events(const std::string& path);

/// Waits until the events file holds `count` events called `name`; false at the deadline.
bool wait_for_event(const std::string& path, const std::string& name, int count,
                    std::chrono::milliseconds deadline);

/// Pids of processes whose environment holds `needle` (e.g. "MPILAUNCH_E2E_MARK=x").
std::vector<pid_t> processes_with_env(const std::string& needle);
/// Waits until no process has `needle` in its environment; returns the ones left.
std::vector<pid_t> wait_until_gone(const std::string& needle, std::chrono::milliseconds deadline);

/// Waits until no process has `needle` in its command line; returns the ones left.
std::vector<pid_t> wait_until_no_cmdline(const std::string& needle,
                                         std::chrono::milliseconds deadline);

/// $NAME from the test's environment (set by meson; a program comes from the build directory
/// MPILAUNCH_TEST_BUILD names, when set), or the test fails.
std::string env_path(const char* name);

}  // namespace mpilaunch::e2e
