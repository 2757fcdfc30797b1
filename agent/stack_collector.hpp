#pragma once
/// [io] Collects the stacks of this node's running ranks for a CollectStacks request: eu-stack
/// (one per rank, several at once) when it is on PATH, else gdb (one process for every rank),
/// or only the one MPILAUNCH_STACK_TOOL names (gdb, eu-stack) in the agent's environment, run
/// on a helper thread under a deadline, the answer posted back to the agent's loop. A rank
/// the tool has not finished with by the deadline is reported as such; the tool is then killed.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/asio.hpp"
#include "common/protocol.hpp"

namespace mpilaunch::agent {

struct StackTarget {
  std::uint32_t rank = 0;
  pid_t pid = -1;
};

class StackCollector {
 public:
  using Done = std::function<void(std::vector<protocol::RankStack>)>;
  explicit StackCollector(asio::io_context& io) : io_(io) {}
  /// Joins the helper threads (each ends by its deadline).
  ~StackCollector();
  StackCollector(const StackCollector&) = delete;
  StackCollector& operator=(const StackCollector&) = delete;

  /// Starts one collection; `done` runs on the loop with one RankStack per target.
  void collect(std::vector<StackTarget> targets, std::chrono::milliseconds deadline,
               std::string host, Done done);

 private:
  asio::io_context& io_;
  std::vector<std::thread> threads_;
};

}  // namespace mpilaunch::agent
