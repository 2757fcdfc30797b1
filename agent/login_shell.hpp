#pragma once
/// [io] How long the login shell took before the agent ran. sshd runs every command through
/// the user's shell (`$SHELL -c '<command>'`), which reads its start-up files first (bash
/// reads ~/.bashrc for ssh commands): every job pays that once per host before its agent can
/// say hello. Reported by `--self-check` (`mpilaunch doctor`'s login check) and in the
/// AgentHello (the `agent-up` event), docs/ssh.md.

#include <optional>

namespace mpilaunch::agent {

/// Milliseconds from the start of the process sshd forked for this command (this agent when
/// the shell exec'd it, else the shell that forked it) to now, at clock-tick resolution
/// (10 ms); nothing when neither the parent nor a parent shell's parent is OpenSSH's `sshd` or
/// `sshd-session` (a local agent, srun, another ssh server, an interactive login further up).
std::optional<long> login_shell_ms();

}  // namespace mpilaunch::agent
