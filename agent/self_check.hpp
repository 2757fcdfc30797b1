#pragma once
/// [io] `mpilaunch-agent --self-check`: what `mpilaunch doctor` asks each host. Prints
/// "key=value" lines on stdout (format in docs/protocol.md, "Self-check"): the agent's version
/// and protocol, whether libpmix starts a server here, the CPU count, whether the temp dir is
/// writable, and this host's clock. Exit 0 when every check passed, 1 otherwise.

namespace mpilaunch::agent {

int run_self_check();

}  // namespace mpilaunch::agent
