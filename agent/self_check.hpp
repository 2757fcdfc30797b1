#pragma once
/// [io] `mpilaunch-agent --self-check`: what `mpilaunch doctor` asks each host. Prints
/// "key=value" lines on stdout (format in docs/ssh.md, "mpilaunch doctor"): the agent's version
/// and protocol, the CPU count, how long the login shell took before the agent ran (over ssh),
/// whether the temp dir is writable, whether libpmix starts a server here, and this host's
/// clock. Exit 0 when every check passed, 1 otherwise.

namespace mpilaunch::agent {

int run_self_check();

}  // namespace mpilaunch::agent
