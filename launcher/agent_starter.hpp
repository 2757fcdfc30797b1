#pragma once
/// [io] AgentStarter: starts one agent for one node and returns the byte stream to it.
/// Implementations: local (socketpair + fork/exec, isolated and virtual-node modes) and ssh.

#include <sys/types.h>

#include <string>

#include "common/result.hpp"
#include "launcher/host_entry.hpp"

namespace mpilaunch::launcher {

/// A started agent: one bidirectional descriptor carrying its stdin/stdout, and its local
/// process (the agent itself locally; -1 when it runs elsewhere).
struct AgentProcess {
  int fd = -1;
  pid_t pid = -1;
};

class AgentStarter {
 public:
  virtual ~AgentStarter() = default;
  /// Starts the agent for `host`; the agent then writes its hello line on the stream.
  virtual Result<AgentProcess> start(const HostEntry& host) = 0;
  /// The command line shown by --dry-run.
  virtual std::string describe() const = 0;
};

/// Starts agents as children of this process, each on its own socketpair.
class LocalAgentStarter final : public AgentStarter {
 public:
  explicit LocalAgentStarter(std::string agent_path) : agent_path_(std::move(agent_path)) {}
  Result<AgentProcess> start(const HostEntry& host) override;
  std::string describe() const override { return agent_path_ + " --stdio"; }

 private:
  std::string agent_path_;
};

/// Where the agent binary is: --agent-path, $MPILAUNCH_AGENT, next to this executable, the
/// build tree, then PATH. Empty when none exists.
std::string find_agent_binary(const std::string& configured);

}  // namespace mpilaunch::launcher
