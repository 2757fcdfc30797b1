#include "launcher/start/ssh_failure.hpp"

#include "common/text_format.hpp"

#include "launcher/start/agent_deploy.hpp"

namespace mpilaunch::launcher {
namespace {

// The remote stderr as one line for `detail`: trimmed, newlines shown as " | ".
std::string one_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += " | ";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
}

bool says_not_found(std::string_view err) {
  return err.find("command not found") != std::string_view::npos ||
         err.find("No such file or directory") != std::string_view::npos ||
         err.find(": not found") != std::string_view::npos;
}

}  // namespace

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string remote_agent_command(std::string_view agent_path, std::string_view mode) {
  return shell_quote(agent_path) + " " + std::string(mode);
}

bool is_reserved_invalid_name(std::string_view host) {
  while (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string lower;
  for (char c : host) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower == "invalid" || lower.ends_with(".invalid");
}

std::optional<int> revoked_line(std::string_view text, std::string_view key_type,
                                std::string_view key_base64) {
  if (key_type.empty() || key_base64.empty()) return std::nullopt;
  int number = 0;
  while (!text.empty()) {
    ++number;
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    // "@revoked HOSTS TYPE BASE64 [comment]", fields separated by blanks.
    std::string_view fields[4];
    int n = 0;
    while (n < 4) {
      const auto start = line.find_first_not_of(" \t\r");
      if (start == std::string_view::npos) break;
      line.remove_prefix(start);
      const auto end = line.find_first_of(" \t\r");
      fields[n++] = line.substr(0, end);
      line.remove_prefix(end == std::string_view::npos ? line.size() : end);
    }
    if (n == 4 && fields[0] == "@revoked" && fields[2] == key_type && fields[3] == key_base64)
      return number;
  }
  return std::nullopt;
}

Error hostkey_error(const std::string& host, HostKeyState state, const std::string& fingerprint,
                    const std::string& known_hosts_entry) {
  std::string what;
  switch (state) {
    case HostKeyState::Unknown:
      what = "the host key is not in known_hosts";
      break;
    case HostKeyState::NoKnownHostsFile:
      what = "there is no known_hosts file";
      break;
    case HostKeyState::Changed:
      what =
          "the host key CHANGED since it was recorded in known_hosts (possible "
          "man-in-the-middle, or a reinstalled host)";
      break;
    case HostKeyState::OtherType:
      what = "known_hosts has a key of another type for this host (possible man-in-the-middle)";
      break;
    case HostKeyState::Revoked:
      what = "the host key is REVOKED (@revoked in known_hosts): it must not be trusted";
      break;
  }
  std::string fix;
  if (state == HostKeyState::Revoked) {
    return Error{
        .kind = ErrorKind::AgentStartFailed,
        .host = host,
        .phase = "hostkey",
        .detail = mpilaunch::format("{}; server key {}, revoked at {}; give the host a new key "
                                    "(ssh-keygen -A on it) and record that one, or remove "
                                    "the @revoked line if the mark is a mistake",
                                    what, fingerprint, known_hosts_entry)};
  }
  if (state == HostKeyState::Unknown || state == HostKeyState::NoKnownHostsFile) {
    fix = mpilaunch::format(
        "verify it, then add it: ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts, or "
        "connect once with 'ssh {}'",
        host);
  } else {
    fix = mpilaunch::format("if the change is expected: ssh-keygen -R '{}', then add the new key",
                            known_hosts_entry);
  }
  return Error{.kind = ErrorKind::AgentStartFailed,
               .host = host,
               .phase = "hostkey",
               .detail = mpilaunch::format("{}; server key {} for {}; {}", what, fingerprint,
                                           known_hosts_entry, fix)};
}

std::optional<Error> classify_remote_exit(const std::string& host, const std::string& command,
                                          const RemoteExit& exit) {
  const std::string err = one_line(exit.stderr_tail);
  const std::string said = err.empty() ? "" : mpilaunch::format("; remote stderr: {}", err);
  if (!exit.dropped.empty())
    return Error{
        .kind = ErrorKind::AgentStartFailed,
        .host = host,
        .detail = mpilaunch::format("the ssh connection dropped: {}{}", exit.dropped, said)};
  if (exit.exit_status == 0) return std::nullopt;
  if (const auto lib = missing_shared_library(exit.stderr_tail)) {
    // The agent is there but the dynamic loader cannot start it: name the library.
    Error e = deploy_error(host, DeployFailure::MissingLibrary, *lib);
    e.phase = "exec";
    e.exit_code = exit.exit_status;
    e.detail = mpilaunch::format("{}: {}", command, e.detail);
    return e;
  }
  if (exit.exit_status == 127 || exit.exit_status == 126 || says_not_found(exit.stderr_tail))
    return Error{.kind = ErrorKind::AgentStartFailed,
                 .host = host,
                 .exit_code = exit.exit_status,
                 .phase = "exec",
                 .detail = mpilaunch::format(
                     "{} could not run there (exit status {}){}", command,
                     exit.exit_status ? std::to_string(*exit.exit_status) : "?", said)};
  if (exit.exit_status)
    return Error{.kind = ErrorKind::AgentStartFailed,
                 .host = host,
                 .exit_code = exit.exit_status,
                 .detail = mpilaunch::format("the remote agent exited with status {}{}",
                                             *exit.exit_status, said)};
  return Error{.kind = ErrorKind::AgentStartFailed,
               .host = host,
               .detail = mpilaunch::format(
                   "the remote agent ended without an exit status (killed by a signal?){}", said)};
}

}  // namespace mpilaunch::launcher
