#pragma once
/// [io] SshSession: one host's libssh session in non-blocking mode, driven by coroutines on the
/// caller's Asio executor: every wait is for the session's socket (and a local descriptor) to
/// become ready, so any number of sessions share one event loop. open() resolves, connects,
/// checks the host key, authenticates and execs the agent, all within one deadline; pump() then
/// bridges the channel and a local socket. Blocking steps (name resolution, SFTP) run on a
/// helper thread while the coroutine waits; the session is never used by two at once.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/asio.hpp"
#include "common/result.hpp"
#include "launcher/hosts/host_entry.hpp"
#include "launcher/start/agent_deploy.hpp"
#include "launcher/start/ssh_failure.hpp"

struct ssh_session_struct;
struct ssh_channel_struct;

namespace mpilaunch::launcher {

struct SshSettings {
  std::string config_file;  // -F/--ssh-config; empty: ~/.ssh/config then /etc/ssh/ssh_config
  std::chrono::milliseconds connect_timeout{10'000};
  std::string agent_path;              // the agent's path on the remote host
  std::string agent_mode = "--stdio";  // the agent's argument: --stdio, or --self-check (doctor)
  /// --wait-for-hosts: a host that does not resolve or accept connections yet is retried, with
  /// backoff, until this much time has passed; one line on stderr says it is being waited for.
  std::chrono::milliseconds wait_for_hosts{0};
  /// --deploy-agent (docs/ssh.md "Agent deployment"); Never keeps the agent at agent_path.
  DeployMode deploy = DeployMode::Never;
  std::string local_agent;  // this machine's agent binary, the copy that gets uploaded
  /// SHA-256 (hex) of local_agent, computed once when first needed and shared by every host.
  std::function<Result<std::string>()> local_agent_sha256;
};

/// What a session did about the agent's binary, for the events file.
struct DeployOutcome {
  DeployAction action = DeployAction::UseInstalled;
  std::string reason;
  std::string path;    // the agent that was started
  std::string sha256;  // of the uploaded or cached copy
};

class SshSession {
 public:
  /// `stop` is polled at least every 100 ms: when set, every wait ends and the session closes.
  SshSession(HostEntry host, SshSettings settings, std::shared_ptr<const std::atomic<bool>> stop);
  ~SshSession();
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  /// Resolve, connect, host key, auth, exec. Errors: UnknownHost, or AgentStartFailed with
  /// phase resolve, connect, hostkey, auth or exec, and libssh's words in detail.
  asio::awaitable<Status> open();
  /// Moves bytes both ways between `local_fd` (non-blocking, not owned) and the channel, with
  /// bounded buffers, until the remote side ends or `local_fd` reaches EOF (then the agent gets
  /// EOF on its stdin). Returns what the remote side said on the way out.
  asio::awaitable<RemoteExit> pump(int local_fd);
  /// The remote command line, as shown in errors.
  const std::string& command() const { return command_; }
  /// Set by open() when deployment was on.
  const std::optional<DeployOutcome>& deployment() const { return deployment_; }

 private:
  using Clock = std::chrono::steady_clock;
  Error failure(std::string_view phase, std::string detail) const;
  bool stopping() const { return stop_->load(); }
  Status configure();
  /// configure, resolve and connect, within deadline_.
  asio::awaitable<Status> reach();
  /// getaddrinfo's answer for target_, or nullopt when none came by deadline_ (or stop).
  asio::awaitable<std::optional<int>> resolve_within_deadline();
  void reset();
  Status check_host_key();
  asio::awaitable<Status> authenticate();
  asio::awaitable<Status> exec();
  /// Opens a session channel on `channel` and runs `command` there: SSH_OK, SSH_AGAIN when
  /// `deadline` passed, or libssh's error code.
  asio::awaitable<int> start_command(ssh_channel_struct* channel, const std::string& command,
                                     Clock::time_point deadline);
  /// Reads the channel's stdout and stderr into `out` (capped) until it ends; false when the
  /// connection failed, stop was asked or `deadline` passed.
  asio::awaitable<bool> read_to_end(ssh_channel_struct* channel, std::string& out,
                                    Clock::time_point deadline);
  /// Why read_to_end() stopped early, as a phase-deploy failure.
  Error unfinished(Clock::time_point deadline) const;
  // Agent deployment (ssh_session_deploy.cpp): probe, decide, upload over SFTP, publish.
  asio::awaitable<Status> deploy();
  /// auto: one exec that runs an installed agent of our version or prints the probe; only in
  /// the second case does deployment (and a second exec) follow.
  asio::awaitable<Status> exec_or_deploy();
  asio::awaitable<Status> deploy_with_probe(const std::string& probe_output);
  struct RemoteRun {
    int exit_status = -1;
    std::string out;  // stdout and stderr, capped
  };
  asio::awaitable<Result<RemoteRun>> run_remote(const std::string& command,
                                                Clock::time_point deadline);
  /// Blocking (libssh's SFTP has no non-blocking writes): run off the event loop.
  Status upload(const std::string& remote_path, Clock::time_point deadline);
  // Calls `step` until it stops answering "again", waiting for the session's socket between.
  template <class Step>
  asio::awaitable<int> until_done(Step step, int again, Clock::time_point deadline);
  /// Until the session's socket is ready for what libssh waits for (or `extra_fd` for
  /// `extra_events`), at most `at_most` and never more than 100 ms, so stop is seen.
  asio::awaitable<void> wait_socket(Clock::duration at_most, int extra_fd = -1,
                                    short extra_events = 0);
  void drain_stderr(std::string& tail);

  HostEntry host_;
  SshSettings settings_;
  std::shared_ptr<const std::atomic<bool>> stop_;
  std::string command_;
  std::string target_;  // the address actually dialled, after ssh_config's HostName
  Clock::time_point deadline_{};
  ssh_session_struct* session_ = nullptr;
  ssh_channel_struct* channel_ = nullptr;
  std::optional<DeployOutcome> deployment_;
  std::string pending_;  // bytes read from the agent's stdout by open(), forwarded first by pump()
};

template <class Step>
asio::awaitable<int> SshSession::until_done(Step step, int again, Clock::time_point deadline) {
  for (;;) {
    const int rc = step();
    if (rc != again || stopping() || Clock::now() >= deadline) co_return rc;
    co_await wait_socket(deadline - Clock::now());
  }
}

}  // namespace mpilaunch::launcher
