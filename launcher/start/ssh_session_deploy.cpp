// SshSession: agent deployment over the session that is already open (docs/ssh.md, "Agent
// deployment"). The decisions are launcher/start/agent_deploy.cpp's; this file runs the remote
// commands on extra channels of the same session and copies the binary over SFTP.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include "common/os_hostname.hpp"
#include "common/text_format.hpp"
#include "launcher/start/fd_wait.hpp"
#include "launcher/start/libssh_loader.hpp"
#include "launcher/start/ssh_failure.hpp"
#include "launcher/start/ssh_session.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::launcher {
namespace {

constexpr std::size_t kRemoteOutputCap = 64 * 1024;
// OpenSSH's sftp-server takes messages up to 256 KiB; each write waits for its status.
constexpr std::size_t kSftpChunk = 128 * 1024;
// An upload may take longer than a connection: its own budget, at least this long.
constexpr auto kUploadBudget = std::chrono::seconds(120);

std::string upload_token() {
  static std::atomic<unsigned> counter{0};
  std::string safe;
  for (const char c : os_hostname())
    safe += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-') ? c : '_';
  return mpilaunch::format("{}-{}-{}", safe, ::getpid(), ++counter);
}

}  // namespace

asio::awaitable<Result<SshSession::RemoteRun>> SshSession::run_remote(const std::string& command,
                                                                      Clock::time_point deadline) {
  ssh_channel channel = ssh_channel_new(session_);
  if (channel == nullptr) co_return failure("deploy", ssh_get_error(session_));
  struct Closer {
    ssh_channel c;
    ~Closer() {
      ssh_channel_close(c);
      ssh_channel_free(c);
    }
  } closer{channel};
  const int rc = co_await start_command(channel, command, deadline);
  if (rc != SSH_OK)
    co_return failure("deploy",
                      mpilaunch::format("running a deployment command was refused: {}",
                                        rc == SSH_AGAIN ? "no answer" : ssh_get_error(session_)));
  RemoteRun run;
  if (!co_await read_to_end(channel, run.out, deadline)) co_return unfinished(deadline);
  // The exit status may follow the EOF.
  while ((run.exit_status = channel_exit_status(channel)) == -1 &&
         ssh_channel_is_closed(channel) == 0 && !stopping() && Clock::now() < deadline)
    co_await wait_socket(deadline - Clock::now());
  co_return run;
}

Error SshSession::unfinished(Clock::time_point deadline) const {
  if (stopping() || Clock::now() >= deadline)
    return failure("deploy", "a deployment command did not finish in time");
  return failure("deploy", ssh_get_error(session_));
}

asio::awaitable<bool> SshSession::read_to_end(ssh_channel_struct* channel, std::string& out,
                                              Clock::time_point deadline) {
  std::vector<char> buffer(4096);
  for (;;) {
    bool progressed = false;
    for (const int is_stderr : {0, 1}) {
      const int n = ssh_channel_read_nonblocking(
          channel, buffer.data(), static_cast<std::uint32_t>(buffer.size()), is_stderr);
      if (n == SSH_ERROR) co_return false;
      if (n > 0) {
        progressed = true;
        if (out.size() < kRemoteOutputCap) out.append(buffer.data(), static_cast<std::size_t>(n));
      }
    }
    if (!progressed && (ssh_channel_is_eof(channel) != 0 || ssh_channel_is_closed(channel) != 0))
      co_return true;
    if (stopping() || Clock::now() >= deadline) co_return false;
    if (!progressed) co_await wait_socket(deadline - Clock::now());
  }
}

Status SshSession::upload(const std::string& remote_path, Clock::time_point deadline) {
  std::ifstream in(settings_.local_agent, std::ios::binary);
  if (!in)
    return deploy_error(host_.name, DeployFailure::LocalAgentMissing,
                        mpilaunch::format("{}: {}", settings_.local_agent, std::strerror(errno)));
  // libssh's SFTP calls are blocking: bounded by the session timeout instead of poll.
  const long seconds = std::max<long>(
      1, std::chrono::duration_cast<std::chrono::seconds>(deadline - Clock::now()).count());
  ssh_options_set(session_, SSH_OPTIONS_TIMEOUT, &seconds);
  ssh_set_blocking(session_, 1);
  struct Restore {
    ssh_session s;
    ~Restore() { ssh_set_blocking(s, 0); }
  } restore{session_};

  sftp_session sftp = sftp_new(session_);
  if (sftp == nullptr)
    return deploy_error(host_.name, DeployFailure::SftpRefused, ssh_get_error(session_));
  struct SftpFree {
    sftp_session s;
    ~SftpFree() { sftp_free(s); }
  } free_sftp{sftp};
  if (sftp_init(sftp) != SSH_OK)
    return deploy_error(host_.name, DeployFailure::SftpRefused,
                        mpilaunch::format("SFTP subsystem: {} (error {})", ssh_get_error(session_),
                                          sftp_get_error(sftp)));
  sftp_file file = sftp_open(sftp, remote_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0700);
  if (file == nullptr)
    return deploy_error(host_.name, DeployFailure::NotWritable,
                        mpilaunch::format("creating {}: {} (SFTP status {})", remote_path,
                                          ssh_get_error(session_), sftp_get_error(sftp)));
  std::vector<char> chunk(kSftpChunk);
  Status written;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    std::size_t done = 0;
    while (done < n) {
      const ssize_t w = sftp_write(file, chunk.data() + done, n - done);
      if (w <= 0) {
        written = deploy_error(host_.name, DeployFailure::DiskFull,
                               mpilaunch::format("writing {}: {} (SFTP status {})", remote_path,
                                                 ssh_get_error(session_), sftp_get_error(sftp)));
        break;
      }
      done += static_cast<std::size_t>(w);
    }
    if (!written || stopping()) break;
  }
  if (sftp_close(file) != SSH_OK && written)
    written =
        deploy_error(host_.name, DeployFailure::DiskFull,
                     mpilaunch::format("closing {}: {}", remote_path, ssh_get_error(session_)));
  if (written && stopping()) written = failure("deploy", "stopped during the upload");
  return written;
}

asio::awaitable<Status> SshSession::exec_or_deploy() {
  const std::string agent_command = command_;
  command_ = exec_or_probe_command(settings_.agent_path, MPILAUNCH_VERSION, settings_.agent_mode);
  if (Status st = co_await exec(); !st) co_return st;
  command_ = agent_command;  // what errors show from here on
  // Either the agent's hello line comes (maybe after a shell's banner), or the probe marker.
  const std::string marker = std::string(kProbeMarker) + "\n";
  std::vector<char> buffer(4096);
  while (!pending_.starts_with(marker) && pending_.find("\n" + marker) == std::string::npos) {
    if (pending_.find("MPILAUNCH-AGENT ") != std::string::npos) co_return Status{};
    const int n = ssh_channel_read_nonblocking(channel_, buffer.data(),
                                               static_cast<std::uint32_t>(buffer.size()), 0);
    if (n > 0) {
      pending_.append(buffer.data(), static_cast<std::size_t>(n));
      continue;
    }
    // Neither came: pump() and the supervisor say what happened.
    if (n < 0 || ssh_channel_is_eof(channel_) != 0) co_return Status{};
    if (stopping() || Clock::now() >= deadline_) co_return Status{};
    co_await wait_socket(deadline_ - Clock::now());
  }
  // The probe: its facts run to the end of the command.
  if (!co_await read_to_end(channel_, pending_, deadline_)) co_return unfinished(deadline_);
  std::string probe_output = std::move(pending_);
  pending_.clear();
  ssh_channel_close(channel_);
  ssh_channel_free(channel_);
  channel_ = nullptr;
  if (Status st = co_await deploy_with_probe(probe_output); !st) co_return st;
  co_return co_await exec();
}

asio::awaitable<Status> SshSession::deploy() {
  const auto probe_run =
      co_await run_remote(probe_command(settings_.agent_path, MPILAUNCH_VERSION), deadline_);
  if (!probe_run) co_return probe_run.error();
  co_return co_await deploy_with_probe(probe_run->out);
}

asio::awaitable<Status> SshSession::deploy_with_probe(const std::string& probe_output) {
  const RemoteAgentProbe probe = parse_probe_output(probe_output);
  if (!probe.loader_failure.empty() && probe.installed_version == std::nullopt) {
    // An agent is there but cannot load its libraries: ours would not either.
    if (auto lib = missing_shared_library(probe.loader_failure))
      co_return deploy_error(host_.name, DeployFailure::MissingLibrary, *lib);
  }
  std::string local_sha;
  const bool need_sha = settings_.deploy == DeployMode::Always ||
                        !(probe.installed_version && *probe.installed_version == MPILAUNCH_VERSION);
  if (need_sha) {
    if (!settings_.local_agent_sha256)
      co_return deploy_error(host_.name, DeployFailure::LocalAgentMissing, "no local agent");
    // Hashing tens of MB takes a while (much longer in sanitizer builds): on a helper thread,
    // so that the other hosts' sessions and deadlines keep running on the loop.
    Result<std::string> sum = std::string();
    co_await run_off_loop([&] { sum = settings_.local_agent_sha256(); });
    if (!sum)
      co_return deploy_error(host_.name, DeployFailure::LocalAgentMissing, sum.error().detail);
    local_sha = sum.value();
  }
  const DeployDecision decision =
      decide_deploy(settings_.deploy, probe, MPILAUNCH_VERSION, local_sha);
  DeployOutcome outcome{decision.action, decision.reason, settings_.agent_path, local_sha};
  if (decision.action == DeployAction::UseInstalled || decision.action == DeployAction::Refuse) {
    outcome.sha256.clear();
    deployment_ = outcome;
    co_return Status{};
  }
  if (probe.cache_dir.empty())
    co_return deploy_error(host_.name, DeployFailure::NotWritable,
                           mpilaunch::format("the remote shell did not name a cache directory ({})",
                                             probe_output.substr(0, 200)));
  const std::string final_path = agent_cache_path(probe.cache_dir);
  if (decision.action == DeployAction::Upload) {
    const auto upload_deadline = std::max(deadline_, Clock::now() + kUploadBudget);
    const auto prepared = co_await run_remote(prepare_command(probe.cache_dir), upload_deadline);
    if (!prepared) co_return prepared.error();
    if (prepared->exit_status != 0)
      co_return deploy_error(host_.name, DeployFailure::NotWritable,
                             mpilaunch::format("mkdir -p {}: {}", probe.cache_dir, prepared->out));
    const std::string temp = agent_upload_temp_path(probe.cache_dir, upload_token());
    Status uploaded;
    // libssh's SFTP calls block: a helper thread runs them while this coroutine waits.
    co_await run_off_loop([&] { uploaded = upload(temp, upload_deadline); });
    if (!uploaded) co_return uploaded;
    const auto published =
        co_await run_remote(publish_command(temp, final_path, local_sha), upload_deadline);
    if (!published) co_return published.error();
    if (published->exit_status == kPublishChecksumMismatch)
      co_return deploy_error(host_.name, DeployFailure::ChecksumMismatch, final_path);
    if (auto lib = missing_shared_library(published->out))
      co_return deploy_error(host_.name, DeployFailure::MissingLibrary, *lib);
    if (published->exit_status != 0)
      co_return deploy_error(host_.name, DeployFailure::NotWritable,
                             mpilaunch::format("publishing {}: {}", final_path, published->out));
    deadline_ = Clock::now() + settings_.connect_timeout;  // exec gets its usual time
  }
  outcome.path = final_path;
  deployment_ = outcome;
  command_ = remote_agent_command(final_path, settings_.agent_mode);
  co_return Status{};
}

}  // namespace mpilaunch::launcher
