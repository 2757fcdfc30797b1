#pragma once
/// The ssh starter's decisions, kept pure: the remote command line, names that must never reach
/// a resolver, and the Error for each way an ssh bring-up ends (host key, remote exit).

#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace mpilaunch::launcher {

/// `word` quoted for a POSIX shell: 'it'\''s' style, so any path survives the remote shell.
std::string shell_quote(std::string_view word);

/// What the remote shell runs: the quoted agent path and `mode` (--stdio for a job,
/// --self-check for doctor). Carries no secret.
std::string remote_agent_command(std::string_view agent_path, std::string_view mode = "--stdio");

/// True for names RFC 6761 reserves as never resolving (*.invalid): fail them locally instead
/// of asking a name server.
bool is_reserved_invalid_name(std::string_view host);

/// How the server's host key compares with known_hosts.
enum class HostKeyState { Unknown, Changed, OtherType, NoKnownHostsFile, Revoked };

/// Whether known_hosts text (`text`, one file's) marks the key `key_type key_base64` (e.g.
/// "ssh-ed25519", "AAAAC3...") @revoked: the line "@revoked HOSTS TYPE BASE64 [comment]". libssh
/// 0.10 ignores marker lines, so the launcher reads them itself. A revoked key is refused for
/// every host, whatever the line's host patterns (hashed ones included): stricter than
/// OpenSSH, which revokes it for the hosts the patterns match. Returns the line's number.
std::optional<int> revoked_line(std::string_view text, std::string_view key_type,
                                std::string_view key_base64);

/// AgentStartFailed, phase hostkey: the fingerprint and the command that fixes it. For Revoked,
/// `known_hosts_entry` names the file and line of the @revoked mark.
Error hostkey_error(const std::string& host, HostKeyState state, const std::string& fingerprint,
                    const std::string& known_hosts_entry);

/// What the remote side said when the channel ended: exit status (if sent) and stderr's tail.
struct RemoteExit {
  std::optional<int> exit_status;
  std::string stderr_tail;
  std::string dropped;  // non-empty: the connection itself failed (libssh's message)
};

/// The failure a closed channel means, or nullopt for a clean exit (status 0). Status 126/127
/// or a shell's "not found" is AgentStartFailed, phase exec; anything else leaves the phase
/// empty, for the supervisor to pick (exec, handshake) or to report agent-lost.
std::optional<Error> classify_remote_exit(const std::string& host, const std::string& command,
                                          const RemoteExit& exit);

}  // namespace mpilaunch::launcher
