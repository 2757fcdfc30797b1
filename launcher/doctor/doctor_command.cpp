#include "launcher/doctor/doctor_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <semaphore>
#include <thread>

#include "common/text_format.hpp"

#include "common/error_catalog.hpp"
#include "common/exit_codes.hpp"
#include "common/os_hostname.hpp"
#include "common/protocol.hpp"
#include "launcher/cli/options.hpp"
#include "launcher/doctor/doctor.hpp"
#include "launcher/hosts/hosts_from_system.hpp"
#include "launcher/job/launch_plan.hpp"
#include "launcher/start/agent_starter.hpp"
#include "launcher/start/ssh_session.hpp"
#include "mpilaunch_version.h"

extern char** environ;

namespace mpilaunch::launcher {
namespace {

constexpr int kSomeHostFailed = 1;
constexpr std::size_t kOutputLimit = 64 * 1024;

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Reads whatever is queued on a non-blocking descriptor.
void read_available(int fd, std::string& into) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return;
    if (into.size() < kOutputLimit) into.append(buf, static_cast<std::size_t>(n));
  }
}

// `agent --self-check` on this machine, within `timeout`.
void probe_local(const std::string& agent, std::chrono::milliseconds timeout, DoctorProbe& p) {
  p.agent_command = remote_agent_command(agent, "--self-check");
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    p.bring_up = Error{.kind = ErrorKind::OutOfResources,
                       .host = p.host,
                       .detail = mpilaunch::format("pipe: {}", std::strerror(errno))};
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::string arg0 = agent, arg1 = "--self-check";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = -1;
  p.sent_at = wall_now();
  const int rc = ::posix_spawnp(&pid, agent.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    p.exit_status = 127;
    p.stderr_tail = mpilaunch::format("{}: {}", agent, std::strerror(rc));
    ::close(out[0]);
    ::close(err[0]);
    p.received_at = wall_now();
    return;
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0 && std::chrono::steady_clock::now() < deadline) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (::poll(fds, 2, static_cast<int>(std::max<long>(left.count(), 1))) < 0 && errno != EINTR)
      break;
    for (pollfd& f : fds) {
      if (f.fd < 0 || f.revents == 0) continue;
      std::string& into = f.fd == out[0] ? p.output : p.stderr_tail;
      char buf[4096];
      const ssize_t n = ::read(f.fd, buf, sizeof buf);
      if (n > 0) {
        if (into.size() < kOutputLimit) into.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EAGAIN) {
        f.fd = -1;
        --open_fds;
      }
    }
  }
  p.received_at = wall_now();
  if (open_fds > 0) ::kill(pid, SIGKILL);
  int status = 0;
  if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) p.exit_status = WEXITSTATUS(status);
  ::close(out[0]);
  ::close(err[0]);
}

// `agent --self-check` over ssh.
// The session's coroutines run on an event loop of this probe's own thread.
asio::awaitable<void> probe_ssh_on_loop(SshSession& session, DoctorProbe& p) {
  p.agent_command = session.command();
  p.sent_at = wall_now();
  if (Status st = co_await session.open(); !st) {
    p.bring_up = st.error();
    co_return;
  }
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) != 0) {
    p.bring_up = Error{.kind = ErrorKind::OutOfResources,
                       .host = p.host,
                       .detail = mpilaunch::format("socketpair: {}", std::strerror(errno))};
    co_return;
  }
  // Nothing is written to sv[0]: the self-check reads no stdin, and pump() ends when the agent's
  // output does. The answer is small: it fits the socket buffer, read after pump() returns.
  const RemoteExit exit = co_await session.pump(sv[1]);
  p.received_at = wall_now();
  read_available(sv[0], p.output);
  ::close(sv[0]);
  ::close(sv[1]);
  p.exit_status = exit.exit_status;
  p.stderr_tail = exit.stderr_tail;
  if (!exit.dropped.empty() && p.output.empty())
    p.bring_up = classify_remote_exit(p.host, p.agent_command, exit);
}

void probe_ssh(const HostEntry& host, SshSettings settings, const std::atomic<bool>& stop,
               DoctorProbe& p) {
  settings.agent_mode = "--self-check";
  // `stop` outlives this call: shared without ownership.
  SshSession session(host, settings,
                     std::shared_ptr<const std::atomic<bool>>(std::shared_ptr<void>(), &stop));
  asio::io_context io(1);
  asio::co_spawn(io, probe_ssh_on_loop(session, p), asio::detached);
  io.run();
}

}  // namespace

int run_doctor(const std::vector<std::string>& args) {
  bool json = false;
  std::vector<std::string> rest;
  for (const std::string& a : args) {
    if (a == "--json")
      json = true;
    else if (a == "--help" || a == "-h") {
      std::fputs(
          "Usage: mpilaunch doctor [-H HOSTS | --hostfile FILE] [--json] [-F SSH_CONFIG]\n"
          "                        [--connect-timeout S] [--agent-path PATH] [--launcher "
          "local|ssh]\n"
          "Checks every host in parallel: resolve, connect, host key, auth, agent present and\n"
          "the same version, PMIx usable, slots, writable temp dir, clock skew, and the login\n"
          "shell's start-up time over ssh. Without hosts it checks this machine. Exit 0 when\n"
          "every host passed, 1 when one failed.\n",
          stdout);
      return exit_codes::kSuccess;
    } else {
      rest.push_back(a);
    }
  }
  rest.emplace_back("true");  // the options parser wants a program; doctor runs none
  auto options = parse_options(rest);
  if (options && options->program.size() != 1)
    options = Error{.kind = ErrorKind::BadOption,
                    .detail = mpilaunch::format("doctor takes no program, but '{}' was given",
                                                options->program.front())};
  if (!options) {
    std::fputs(render_human(options.error()).c_str(), stderr);
    std::fputs("Run 'mpilaunch doctor --help' for its options.\n", stderr);
    return exit_codes::for_error(options.error());
  }
  const Options& o = options.value();
  auto hosts = gather_hosts(o);
  if (!hosts) {
    std::fputs(render_human(hosts.error()).c_str(), stderr);
    return exit_codes::for_error(hosts.error());
  }
  const std::string hostname = os_hostname();
  std::vector<HostEntry> entries = hosts->hosts;
  if (entries.empty())
    entries.push_back(HostEntry{
        .name = hostname, .slots = std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)))});

  const std::string agent = find_agent_binary(o.agent_path);
  const auto timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(o.connect_timeout_seconds * 1000));
  SshSettings ssh{.config_file = o.ssh_config,
                  .connect_timeout = timeout,
                  .agent_path = agent.empty() ? "mpilaunch-agent" : agent};
  std::vector<DoctorProbe> probes(entries.size());
  // Each probe gets connect + answer time (2x --connect-timeout) from the moment its fan-out
  // slot is free; a watchdog here sets its stop flag past that, so no host can hang doctor.
  struct Watch {
    std::atomic<bool> stop{false}, done{false};
    std::atomic<std::int64_t> started_ms{-1};
  };
  const auto watch = std::make_unique<Watch[]>(entries.size());
  const auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  std::counting_semaphore<> slots(std::max(o.ssh_fanout, 1));
  {
    std::vector<std::jthread> workers;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      DoctorProbe& p = probes[i];
      p.host = entries[i].name;
      p.slots = entries[i].slots;
      p.local = o.launcher == LauncherKind::Local ||
                (o.launcher == LauncherKind::Auto && is_local_name(p.host, hostname));
      workers.emplace_back([&, i] {
        slots.acquire();
        watch[i].started_ms = now_ms();
        if (probes[i].local)
          probe_local(agent.empty() ? "mpilaunch-agent" : agent, timeout + timeout, probes[i]);
        else
          probe_ssh(entries[i], ssh, watch[i].stop, probes[i]);
        probes[i].timed_out = watch[i].stop.load();
        slots.release();
        watch[i].done = true;
      });
    }
    for (bool all_done = false; !all_done;) {
      all_done = true;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        if (watch[i].done) continue;
        all_done = false;
        const std::int64_t started = watch[i].started_ms;
        if (started >= 0 && now_ms() - started > 2 * timeout.count()) watch[i].stop = true;
      }
      if (!all_done) ::poll(nullptr, 0, 50);
    }
  }
  std::vector<DoctorRow> rows;
  bool all_ok = true;
  for (const DoctorProbe& p : probes) {
    rows.push_back(assess_probe(p, MPILAUNCH_VERSION, protocol::kProtocolVersion));
    all_ok = all_ok && rows.back().ok();
  }
  const std::string text = json ? render_doctor_json(rows) : render_doctor_table(rows);
  std::fputs(text.c_str(), stdout);
  return all_ok ? exit_codes::kSuccess : kSomeHostFailed;
}

}  // namespace mpilaunch::launcher
