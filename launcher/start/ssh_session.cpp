// SshSession: bring-up. Each step is a non-blocking libssh call repeated until it stops
// answering "again", the coroutine waiting for the session's socket in between (on the event
// loop, see fd_wait.hpp), with one deadline overall.

#include "launcher/start/ssh_session.hpp"

#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include <libssh/libssh.h>
#include "common/text_format.hpp"

#include "common/bounded_file.hpp"
#include "launcher/start/fd_wait.hpp"
#include "launcher/start/libssh_loader.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr auto kPollSlice = std::chrono::milliseconds(100);
// A known_hosts file of a large site (a line per host and key type) stays far below this; a
// device or a runaway file named by UserKnownHostsFile is refused rather than read whole.
constexpr std::size_t kMaxKnownHostsBytes = std::size_t{64} << 20;

// Owns a char* that libssh allocated.
struct SshChars {
  char* p = nullptr;
  ~SshChars() { ssh_string_free_char(p); }
  std::string str() const { return p == nullptr ? std::string() : std::string(p); }
};

}  // namespace

SshSession::SshSession(HostEntry host, SshSettings settings,
                       std::shared_ptr<const std::atomic<bool>> stop)
    : host_(std::move(host)),
      settings_(std::move(settings)),
      stop_(std::move(stop)),
      command_(remote_agent_command(settings_.agent_path, settings_.agent_mode)) {}

SshSession::~SshSession() {
  if (channel_ != nullptr) {
    ssh_channel_close(channel_);
    ssh_channel_free(channel_);
  }
  if (session_ != nullptr) {
    ssh_disconnect(session_);
    ssh_free(session_);
  }
}

Error SshSession::failure(std::string_view phase, std::string detail) const {
  return Error{.kind = ErrorKind::AgentStartFailed,
               .host = host_.name,
               .phase = std::string(phase),
               .detail = std::move(detail)};
}

asio::awaitable<void> SshSession::wait_socket(Clock::duration at_most, int extra_fd,
                                              short extra_events) {
  const Clock::duration slice =
      std::clamp<Clock::duration>(at_most, Clock::duration::zero(), kPollSlice);
  const int fd = session_ != nullptr ? ssh_get_fd(session_) : -1;
  short events = 0;
  if (fd >= 0)
    events = static_cast<short>(
        POLLIN | ((ssh_get_poll_flags(session_) & SSH_WRITE_PENDING) != 0 ? POLLOUT : 0));
  co_await wait_fds(slice, FdWait{fd, events}, FdWait{extra_fd, extra_events});
}

asio::awaitable<std::optional<int>> SshSession::resolve_within_deadline() {
  // getaddrinfo() has no timeout and can block for long (a dead name server): it runs on a
  // detached thread sharing only this state; its end is signalled on an eventfd the session
  // waits for, and the session stops waiting at the deadline.
  struct Lookup {
    std::mutex mutex;
    std::optional<int> result;
    DoneSignal done;
  };
  auto lookup = std::make_shared<Lookup>();
  if (!lookup->done.usable()) co_return EAI_SYSTEM;
  try {
    std::thread([lookup, name = target_] {
      addrinfo hints{};
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* found = nullptr;
      const int gai = ::getaddrinfo(name.c_str(), nullptr, &hints, &found);
      if (found != nullptr) ::freeaddrinfo(found);
      const std::lock_guard lock(lookup->mutex);
      lookup->result = gai;
      lookup->done.raise();
    }).detach();
  } catch (const std::system_error&) {
    co_return EAI_SYSTEM;  // no thread: reported as a resolver failure
  }
  for (;;) {
    {
      const std::lock_guard lock(lookup->mutex);
      if (lookup->result || stopping() || Clock::now() >= deadline_) co_return lookup->result;
    }
    co_await lookup->done.wait(std::min<Clock::duration>(kPollSlice, deadline_ - Clock::now()));
  }
}

void SshSession::reset() {
  if (session_ != nullptr) {
    ssh_disconnect(session_);
    ssh_free(session_);
    session_ = nullptr;
  }
}

asio::awaitable<Status> SshSession::open() {
  // --wait-for-hosts: resolve and connect are retried with backoff until the wait ends; a host
  // that answers but fails later (host key, auth, exec) is never retried.
  const auto wait_end = Clock::now() + settings_.wait_for_hosts;
  auto backoff = std::chrono::milliseconds(100);
  bool waited = false;
  for (;;) {
    deadline_ = Clock::now() + settings_.connect_timeout;
    Status reached = co_await reach();
    if (reached) break;
    Error e = reached.error();
    const bool retryable =
        (e.kind == ErrorKind::UnknownHost || e.phase == "resolve" || e.phase == "connect") &&
        !is_reserved_invalid_name(target_);
    if (!retryable || stopping() || Clock::now() + backoff >= wait_end) {
      if (waited)
        e.detail += mpilaunch::format(" (still, after waiting {} s: --wait-for-hosts)",
                                      settings_.wait_for_hosts.count() / 1000.0);
      co_return e;
    }
    // On a terminal the line first erases the supervisor's "N/M agents up" line.
    const char* erase = ::isatty(STDERR_FILENO) == 1 ? "\r\033[K" : "";
    if (!waited)
      std::fputs(mpilaunch::format("{}mpilaunch: waiting up to {} s for {} ({})\n", erase,
                                   settings_.wait_for_hosts.count() / 1000.0, host_.name, e.detail)
                     .c_str(),
                 stderr);
    waited = true;
    reset();
    const auto resume = Clock::now() + backoff;
    while (!stopping() && Clock::now() < resume) co_await wait_socket(resume - Clock::now());
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
  if (waited)
    std::fputs(mpilaunch::format("{}mpilaunch: {} accepts connections\n",
                                 ::isatty(STDERR_FILENO) == 1 ? "\r\033[K" : "", host_.name)
                   .c_str(),
               stderr);
  deadline_ = Clock::now() + settings_.connect_timeout;
  if (Status st = check_host_key(); !st) co_return st;
  if (Status st = co_await authenticate(); !st) co_return st;
  if (settings_.agent_mode == "--stdio" && settings_.deploy == DeployMode::Auto)
    co_return co_await exec_or_deploy();
  if (settings_.agent_mode == "--stdio" && settings_.deploy == DeployMode::Always)
    if (Status st = co_await deploy(); !st) co_return st;
  co_return co_await exec();
}

asio::awaitable<Status> SshSession::reach() {
  if (Status st = configure(); !st) co_return st;
  // The name actually dialled (ssh_config's HostName) is resolved here, on this thread, so a
  // name that does not resolve is told apart from a host that does not answer.
  if (is_reserved_invalid_name(target_))
    co_return Error{
        .kind = ErrorKind::UnknownHost,
        .host = host_.name,
        .phase = "resolve",
        .detail = mpilaunch::format("'{}' is a reserved name that never resolves", target_)};
  const std::optional<int> answer = co_await resolve_within_deadline();
  if (!answer)
    co_return failure("resolve",
                      mpilaunch::format("the resolver gave no answer for '{}' within {} s", target_,
                                        settings_.connect_timeout.count() / 1000.0));
  const int gai = *answer;
  if (gai == EAI_NONAME || gai == EAI_NODATA)
    co_return Error{
        .kind = ErrorKind::UnknownHost,
        .host = host_.name,
        .phase = "resolve",
        .detail = mpilaunch::format("'{}' does not resolve: {}", target_, ::gai_strerror(gai))};
  if (gai != 0)
    co_return failure("resolve",
                      mpilaunch::format("resolving '{}': {}", target_, ::gai_strerror(gai)));

  const int rc = co_await until_done([&] { return ssh_connect(session_); }, SSH_AGAIN, deadline_);
  if (rc == SSH_AGAIN)
    co_return failure("connect", mpilaunch::format("no ssh answer from {} within {} s", target_,
                                                   settings_.connect_timeout.count() / 1000.0));
  if (rc != SSH_OK) co_return failure("connect", ssh_get_error(session_));
  co_return Status{};
}

Status SshSession::configure() {
  if (Status loaded = load_libssh(); !loaded) {
    Error e = loaded.error();
    e.host = host_.name;
    return e;
  }
  session_ = ssh_new();
  if (session_ == nullptr) return failure("connect", "libssh could not allocate a session");
  ssh_options_set(session_, SSH_OPTIONS_HOST, host_.name.c_str());
  // user@host wins over ssh_config's User (libssh keeps a user that is already set).
  if (!host_.user.empty()) ssh_options_set(session_, SSH_OPTIONS_USER, host_.user.c_str());
  const char* file = settings_.config_file.empty() ? nullptr : settings_.config_file.c_str();
  if (ssh_options_parse_config(session_, file) != 0)
    return failure("connect", mpilaunch::format("cannot read ssh config {}: {}",
                                                file != nullptr ? file : "~/.ssh/config",
                                                ssh_get_error(session_)));
  if (host_.port) {  // host:port wins over ssh_config's Port
    const int port = *host_.port;
    ssh_options_set(session_, SSH_OPTIONS_PORT, &port);
  }
  SshChars target;
  if (ssh_options_get(session_, SSH_OPTIONS_HOST, &target.p) != SSH_OK || target.p == nullptr)
    return failure("resolve", "no host name after reading the ssh config");
  target_ = target.str();
  // Bring-up is a chain of small messages, each waiting for the last (key exchange, auth,
  // channel, exec, the agent's hello): with Nagle on, a small write behind an unacknowledged
  // one waits out the peer's delayed ACK: 40 ms a time, three times per host here.
  const int nodelay = 1;
  ssh_options_set(session_, SSH_OPTIONS_NODELAY, &nodelay);
  ssh_set_blocking(session_, 0);
  return {};
}

Status SshSession::check_host_key() {
  unsigned int port = 22;
  ssh_options_get_port(session_, &port);
  const std::string entry = port == 22 ? target_ : mpilaunch::format("[{}]:{}", target_, port);
  std::string fingerprint = "(unavailable)";
  std::string key_type, key_base64;
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(session_, &key) == SSH_OK) {
    unsigned char* hash = nullptr;
    size_t len = 0;
    const char* type = ssh_key_type_to_char(ssh_key_type(key));
    key_type = type != nullptr ? type : "";
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) == 0) {
      SshChars text{ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len)};
      fingerprint = mpilaunch::format("{} {}", key_type, text.str());
      ssh_clean_pubkey_hash(&hash);
    }
    SshChars b64;
    if (ssh_pki_export_pubkey_base64(key, &b64.p) == SSH_OK) key_base64 = b64.str();
    ssh_key_free(key);
  }
  // libssh 0.10 skips marker lines: a key marked @revoked would pass as known. OpenSSH refuses
  // it, from the user's and the global file alike; so do we, before asking libssh.
  const char* home = std::getenv("HOME");
  const std::pair<ssh_options_e, std::string> files[] = {
      {SSH_OPTIONS_KNOWNHOSTS, std::string(home != nullptr ? home : "") + "/.ssh/known_hosts"},
      {SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/etc/ssh/ssh_known_hosts"}};
  for (const auto& [option, fallback] : files) {
    SshChars path;
    const std::string file =
        ssh_options_get(session_, option, &path.p) == SSH_OK && path.p != nullptr ? path.str()
                                                                                  : fallback;
    const BoundedFile known_hosts = read_bounded_file(file, kMaxKnownHostsBytes);
    // One that cannot be opened is libssh's to judge, as before; one too large is not read.
    if (known_hosts.outcome == BoundedFile::Outcome::TooLarge)
      return failure("hostkey", mpilaunch::format("cannot check {} against known_hosts: {}", entry,
                                                  known_hosts.problem));
    if (const auto line = revoked_line(known_hosts.text, key_type, key_base64))
      return hostkey_error(host_.name, HostKeyState::Revoked, fingerprint,
                           mpilaunch::format("{}:{}", file, *line));
  }
  const ssh_known_hosts_e known = ssh_session_is_known_server(session_);
  if (known == SSH_KNOWN_HOSTS_OK) return {};
  if (known == SSH_KNOWN_HOSTS_ERROR)
    return failure("hostkey", mpilaunch::format("cannot check {} against known_hosts: {}", entry,
                                                ssh_get_error(session_)));
  HostKeyState state = HostKeyState::Unknown;
  if (known == SSH_KNOWN_HOSTS_CHANGED) state = HostKeyState::Changed;
  if (known == SSH_KNOWN_HOSTS_OTHER) state = HostKeyState::OtherType;
  if (known == SSH_KNOWN_HOSTS_NOT_FOUND) state = HostKeyState::NoKnownHostsFile;
  return hostkey_error(host_.name, state, fingerprint, entry);
}

asio::awaitable<Status> SshSession::authenticate() {
  // Keys from ssh-agent, then IdentityFile and the default identities; no prompts.
  const int rc =
      co_await until_done([&] { return ssh_userauth_publickey_auto(session_, nullptr, nullptr); },
                          SSH_AUTH_AGAIN, deadline_);
  if (rc == SSH_AUTH_SUCCESS) co_return Status{};
  SshChars user;
  ssh_options_get(session_, SSH_OPTIONS_USER, &user.p);
  if (rc == SSH_AUTH_AGAIN)
    co_return failure("auth", mpilaunch::format("no answer to authentication within {} s",
                                                settings_.connect_timeout.count() / 1000.0));
  if (rc == SSH_AUTH_DENIED)
    co_return failure("auth",
                      mpilaunch::format("the server refused every public key offered for user "
                                        "'{}' (IdentityFile, default keys, ssh-agent)",
                                        user.str()));
  if (rc == SSH_AUTH_PARTIAL)
    co_return failure("auth", mpilaunch::format("the key for user '{}' was accepted but the server "
                                                "requires another method too",
                                                user.str()));
  co_return failure("auth", ssh_get_error(session_));
}

asio::awaitable<int> SshSession::start_command(ssh_channel_struct* channel,
                                               const std::string& command,
                                               Clock::time_point deadline) {
  int rc =
      co_await until_done([&] { return ssh_channel_open_session(channel); }, SSH_AGAIN, deadline);
  if (rc == SSH_OK)
    rc = co_await until_done([&] { return ssh_channel_request_exec(channel, command.c_str()); },
                             SSH_AGAIN, deadline);
  co_return rc;
}

asio::awaitable<Status> SshSession::exec() {
  channel_ = ssh_channel_new(session_);
  if (channel_ == nullptr) co_return failure("exec", ssh_get_error(session_));
  const int rc = co_await start_command(channel_, command_, deadline_);
  if (rc == SSH_AGAIN)
    co_return failure("exec",
                      mpilaunch::format("the server did not start '{}' within {} s", command_,
                                        settings_.connect_timeout.count() / 1000.0));
  if (rc != SSH_OK)
    co_return failure("exec", mpilaunch::format("running '{}' was refused: {}", command_,
                                                ssh_get_error(session_)));
  co_return Status{};
}

}  // namespace mpilaunch::launcher
