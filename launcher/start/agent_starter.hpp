#pragma once
/// [io] AgentStarter: starts one agent for one node and returns the byte stream to it.
/// Implementations: local (socketpair + fork/exec, isolated and virtual-node modes) and ssh.

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/asio.hpp"
#include "common/result.hpp"
#include "launcher/hosts/host_entry.hpp"
#include "launcher/start/ssh_session.hpp"

namespace mpilaunch::launcher {

/// Rank output crosses an agent's socketpair in frames of up to 256 KiB; with the default
/// buffer (~200 KiB) the agent waits for the launcher after every frame. 2 MiB each way lets
/// several frames be in flight, so agent and launcher work at the same time (1 rank x 200 MB:
/// 330 -> 240 ms wall in local mode). Best effort: a smaller limit only costs speed.
void widen_agent_socket(const int (&fds)[2]);

/// Something a starter did for a host that belongs in the events file (agent-deployed, ...).
struct StarterEvent {
  std::string name;
  std::map<std::string, std::string> fields;
};

/// A started agent: one bidirectional descriptor carrying its stdin/stdout, and its local
/// process (the agent itself locally; -1 when it runs elsewhere).
struct AgentProcess {
  int fd = -1;
  pid_t pid = -1;
  int streams_fd = -1;  // local agents: the stream channel (common/stream_channel.hpp), or -1
};

class AgentStarter {
 public:
  virtual ~AgentStarter() = default;
  /// Starts the agent for `host`; the agent then writes its hello line on the stream.
  virtual Result<AgentProcess> start(const HostEntry& host) = 0;
  /// The command line shown by --dry-run.
  virtual std::string describe() const = 0;
  /// Why `host`'s stream closed, when the starter knows more than the stream can say (ssh:
  /// the phase, the remote stderr, the exit status). Asked by the supervisor after the close.
  virtual std::optional<Error> failure_for(const HostEntry& host) const {
    (void)host;
    return std::nullopt;
  }
  /// Events about `host`'s bring-up, asked once its agent said hello.
  virtual std::vector<StarterEvent> take_events(const HostEntry& host) {
    (void)host;
    return {};
  }
  /// Whether an agent's bye may end its link at once. The link's end kills a started process
  /// still running: harmless for an agent that said bye, but srun killed before it has
  /// collected its step's end leaves Slurm a cancelled step; srun links wait for the stream
  /// to close.
  virtual bool link_ends_at_bye() const { return true; }
};

/// Starts agents as children of this process, each on its own socketpair. With
/// `pass_streams`, each also gets a stream channel on which it hands the launcher its ranks'
/// output pipes, so rank output goes from the rank's pipe straight to the launcher.
class LocalAgentStarter final : public AgentStarter {
 public:
  LocalAgentStarter(std::string agent_path, bool pass_streams)
      : agent_path_(std::move(agent_path)), pass_streams_(pass_streams) {}
  Result<AgentProcess> start(const HostEntry& host) override;
  std::string describe() const override;

 private:
  std::string agent_path_;
  bool pass_streams_;
};

/// --nolocal with this machine in the allocation under ssh: this machine's agent, which runs no
/// rank but may receive spawned children (as mpirun 4.1.4 places them on its own node), starts
/// here without ssh, as mpirun's own node needs none; every other host's through `remote`.
class HereOrRemoteStarter final : public AgentStarter {
 public:
  HereOrRemoteStarter(std::unique_ptr<AgentStarter> remote, const std::string& agent_path,
                      std::string here)
      : remote_(std::move(remote)), local_(agent_path, false), here_(std::move(here)) {}
  Result<AgentProcess> start(const HostEntry& host) override {
    return host.name == here_ ? local_.start(host) : remote_->start(host);
  }
  std::string describe() const override { return remote_->describe(); }
  std::optional<Error> failure_for(const HostEntry& host) const override {
    return host.name == here_ ? local_.failure_for(host) : remote_->failure_for(host);
  }
  std::vector<StarterEvent> take_events(const HostEntry& host) override {
    return host.name == here_ ? local_.take_events(host) : remote_->take_events(host);
  }
  bool link_ends_at_bye() const override { return remote_->link_ends_at_bye(); }

 private:
  std::unique_ptr<AgentStarter> remote_;
  LocalAgentStarter local_;
  std::string here_;
};

/// Whether the launcher can hold the output pipes of `local_ranks` ranks (two descriptors
/// each) within its descriptor limit, with room to spare; otherwise the agents forward output.
bool can_hold_rank_pipes(int local_ranks);

/// Starts agents over ssh. start() returns at once with one end of a socketpair; a coroutine per
/// host on `io` (the supervisor's event loop) connects, checks the host key, authenticates and
/// execs the agent, at most `fanout` hosts at a time, then bridges the channel and the socket.
/// A failed bring-up records its Error, then closes the socket. Everything runs on io's thread.
class SshAgentStarter final : public AgentStarter {
 public:
  SshAgentStarter(asio::io_context& io, SshSettings settings, int fanout);
  /// Tells every session to stop (each notices within 100 ms when io runs again); sessions
  /// close when io destroys their coroutines.
  ~SshAgentStarter() override;
  Result<AgentProcess> start(const HostEntry& host) override;
  std::string describe() const override;
  std::optional<Error> failure_for(const HostEntry& host) const override;
  std::vector<StarterEvent> take_events(const HostEntry& host) override;

 private:
  asio::awaitable<void> run_session(HostEntry host, int fd);
  /// Waits for one of the `fanout` bring-up slots; false when stopping.
  asio::awaitable<bool> take_slot();
  void give_back_slot();

  asio::io_context& io_;
  SshSettings settings_;
  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  int free_slots_;
  std::deque<std::shared_ptr<asio::steady_timer>> waiting_;  // bring-ups waiting for a slot
  std::map<std::string, Error> failures_;                    // by host name
  std::map<std::string, std::vector<StarterEvent>> events_;  // by host name
};

/// Starts agents inside a Slurm allocation: one `srun --nodelist=NODE -N1 -n1 --overlap`
/// child per node, concurrently, whose stdin/stdout (one socketpair end) carry that agent's
/// frames, so each agent has its own stream as with ssh. A thread per srun reads its stderr:
/// srun's own "srun: error: ..." lines become the node's failure, other lines (the agent's
/// stderr) are passed on to ours.
class SrunAgentStarter final : public AgentStarter {
 public:
  SrunAgentStarter(std::string srun_path, std::string agent_path)
      : srun_path_(std::move(srun_path)), agent_path_(std::move(agent_path)) {}
  /// Joins the stderr readers (each ends when its srun exits and the pipe closes).
  ~SrunAgentStarter() override;
  Result<AgentProcess> start(const HostEntry& host) override;
  std::string describe() const override;
  bool link_ends_at_bye() const override { return false; }
  std::optional<Error> failure_for(const HostEntry& host) const override;

 private:
  void read_stderr(const std::string& node, int fd);

  std::string srun_path_;
  std::string agent_path_;
  mutable std::mutex mutex_;
  mutable std::condition_variable stderr_done_;
  std::map<std::string, Error> failures_;  // by node; guarded by mutex_
  std::map<std::string, bool> reading_;    // by node: stderr still open; guarded by mutex_
  std::vector<std::thread> threads_;
};

/// Where the agent binary is: --agent-path, $MPILAUNCH_AGENT, next to this executable, the
/// build tree, then PATH. Empty when none exists.
std::string find_agent_binary(const std::string& configured);

}  // namespace mpilaunch::launcher
