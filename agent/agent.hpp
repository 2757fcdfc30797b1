#pragma once
/// [io] The agent: says hello, serves the launcher's frames, runs this node's ranks under its
/// PMIx server, forwards their output and exits, and cleans up whatever happens to the link.

#include <sys/types.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "agent/child_set.hpp"
#include "agent/job_cgroup.hpp"
#include "agent/pmi_server.hpp"
#include "agent/pmix_host.hpp"
#include "agent/stack_collector.hpp"
#include "common/asio.hpp"
#include "common/frame_stream.hpp"
#include "common/job_dir.hpp"
#include "common/protocol.hpp"

namespace mpilaunch::agent {

struct NamespaceValues;

class Agent final : public FrameSink, public PmixEvents, public PmiEvents {
 public:
  /// `in_fd`/`out_fd` carry the protocol (the agent's original stdin and stdout); `stream_fd`,
  /// when not -1, is a local agent's stream channel: ranks' pipes go to the launcher;
  /// `login_ms` the login shell's start-up before the agent ran (-1: not under sshd).
  Agent(asio::io_context& io, int in_fd, int out_fd, int stream_fd = -1, int login_ms = -1);
  /// Runs until the launcher says Shutdown or goes away; returns the agent's exit code.
  int run();

 private:
  struct Rank {
    std::uint32_t rank = 0;
    pid_t pid = -1;
    int open_streams = 0;
    std::optional<ExitReason> exit;
    std::optional<int> abort_status;
    bool connected = false;
    bool finalized = false;
    bool reported = false;
    bool ended_before_kill = true;  // false once this attempt's first Kill found it running
    std::unique_ptr<asio::posix::stream_descriptor> out, err;
    std::unique_ptr<asio::steady_timer> drain;
    bool ended[2] = {false, false};  // stdout, stderr at end of file (or failed)
    bool cut = false;                // the drain grace ran out: the pumps take what is left, stop
  };
  /// A chunk of the launcher's stdin, shared by every local stdin rank's queue: it is credited
  /// (StdinCredit) once the last of them has written or dropped it.
  struct StdinChunk {
    std::vector<std::byte> data;
    bool eof = false;
    int pending = 0;
  };
  /// The write end of one rank's stdin pipe and the chunks it has still to take.
  struct StdinPipe {
    StdinPipe(asio::io_context& io, int fd) : fd(io, fd) {}
    asio::posix::stream_descriptor fd;
    std::deque<std::shared_ptr<StdinChunk>> queue;
    bool writing = false;
  };

  // FrameSink
  void on_hello(const handshake::Hello&) override {}
  void on_message(protocol::Envelope envelope) override;
  void on_closed(std::optional<Error> why) override;
  // PmixEvents
  void on_client_connected(const std::string& nspace, std::uint32_t rank) override;
  void on_client_finalized(const std::string& nspace, std::uint32_t rank) override;
  void on_abort(const std::string& nspace, std::uint32_t rank, int status,
                const std::string& message) override;
  void on_fence(const std::string& nspace, const std::string& signature, bool collect,
                int local_status, std::vector<std::byte> data, ModexDone done) override;
  void on_dmodex(const std::string& nspace, std::uint32_t rank, ModexDone done) override;
  void on_log(const std::string& nspace, std::optional<std::uint32_t> rank,
              std::string text) override;
  void on_unsupported(const std::string& nspace, std::optional<std::uint32_t> rank,
                      std::string call) override;
  void on_spawn(protocol::SpawnRequest request, SpawnDone done) override;
  void on_name_request(protocol::Message request, NameDone done) override;

  // PmiEvents (MPICH ranks)
  void on_pmi_connected(const std::string& nspace, std::uint32_t rank) override;
  void on_pmi_finalized(const std::string& nspace, std::uint32_t rank) override;
  void on_pmi_abort(const std::string& nspace, std::uint32_t rank, int exit_code) override;
  void on_pmi_barrier(const std::string& nspace, std::vector<std::byte> blob) override;
  void on_pmi_error(const std::string& nspace, std::uint32_t rank, std::string text) override;
  void on_pmi_name(protocol::Message request,
                   std::function<void(const protocol::NameReply&)> done) override;
  void on_pmi_spawn(protocol::SpawnRequest request,
                    std::function<void(int status, const std::string& nspace)> done) override;
  void on_pmi_unsupported(const std::string& nspace, std::uint32_t rank, std::string call) override;
  void mark_connected(Rank& r);

  void handle(const protocol::LauncherHello& m);
  void handle(const protocol::JobSpec& m);
  void handle(const protocol::Spawn& m);
  /// A spawned job (issue 24): registers its namespace, forks this node's ranks of it.
  void handle(const protocol::ChildJob& m);
  /// Forks this node's ranks of `job`; rank R is known to the launcher as `first_index + R`.
  void start_ranks(const protocol::JobSpec& job, std::uint32_t first_index);
  /// Registers rank `rank` of `job` with the PMIx server, opens its PMI socket (the current
  /// attempt's job only) and builds its environment; the request carries `index`, the rank's
  /// number for the launcher. nullopt once the failure is reported.
  /// Whether `job`'s ranks here make the node oversubscribed (OMPI_MCA_mpi_oversubscribe): for a
  /// spawned job (its processes numbered from `first_index`), counting what still runs here.
  bool oversubscribed_for(const protocol::JobSpec& job, std::uint32_t first_index) const;
  std::optional<SpawnRequest> prepare_rank(const protocol::JobSpec& job, std::uint32_t rank,
                                           std::uint32_t index);
  std::optional<SpawnedChild> fork_rank(const SpawnRequest& request, const std::string& nspace,
                                        std::uint32_t rank);
  /// Hands the rank's pipes to the launcher over the stream channel; false (pipes kept, the
  /// agent forwards them) without one or when sending failed.
  bool pass_streams(std::uint32_t rank, const SpawnedChild& child);
  void report_spawn_failure(std::uint32_t rank, Error e);
  void handle(const protocol::StdinData& m);
  /// Whether `rank` reads the launcher's stdin (JobSpec::stdin_rank).
  bool reads_stdin(std::uint32_t rank) const;
  void write_stdin(const std::shared_ptr<StdinPipe>& pipe);
  /// Closes the pipe (the rank sees end of file) and credits whatever it still held.
  void drop_stdin(const std::shared_ptr<StdinPipe>& pipe);
  void drop_all_stdin();
  void release(StdinChunk& chunk);
  void handle(const protocol::Kill& m);
  void handle(const protocol::Shutdown& m);
  /// Collects the running ranks' stacks on a helper thread; answers NodeStacks to `id`.
  void handle(const protocol::CollectStacks& m, std::uint32_t id);
  void fail(Error error);

  Rank* find_rank(const std::string& nspace, std::uint32_t rank);
  /// The rank of the current attempt's namespace (PMI ranks carry no namespace).
  Rank* find_current_rank(std::uint32_t rank);
  /// Forwards `source` as RankOutput until its end (0, or EIO from a pty's master). `fill`: a
  /// pty's master (non-blocking), which gives a few KiB per read: each frame takes what else
  /// is waiting too.
  asio::awaitable<void> pump(std::uint32_t rank, protocol::Stream stream,
                             asio::posix::stream_descriptor& source, bool fill);
  void on_reaped(pid_t pid, ExitReason reason);
  void maybe_report(Rank& rank);
  void maybe_finish();
  void finish();
  void remove_job_files();
  void close_pmix_and_stop();
  std::string node_dir() const;

  asio::io_context& io_;
  FrameStream frames_;
  PmixHost pmix_;
  std::shared_ptr<PmiServer> pmi_;  // the current attempt's, when the job serves PMI
  /// The PMI servers of this attempt's spawned PMI jobs (MPICH's MPI_Comm_spawn), by namespace.
  std::map<std::string, std::shared_ptr<PmiServer>> child_pmi_;
  /// The PMI server of `nspace`: the job's or a spawned job's; null when it has none.
  std::shared_ptr<PmiServer> pmi_of(const std::string& nspace) const;
  /// Closes the rank sockets of every PMI server (the job's and its spawned jobs') and lets the
  /// servers go: an answer still pending (a name, a spawn, a barrier) holds its server, and a
  /// closed server sends nothing more.
  void close_pmi_servers();
  std::shared_ptr<PmiServer> make_pmi_server(const protocol::JobSpec& spec,
                                             const NamespaceValues& values,
                                             const std::vector<std::string>& preput);
  ChildSet children_;
  std::optional<protocol::LauncherHello> hello_;
  std::optional<protocol::JobSpec> job_;
  JobDirHold job_dir_;  // the job directory on this machine, held while the agent lives
  JobCgroup cgroup_;    // what the job started here, whatever it did to get away
  std::optional<std::string> topology_xml_;  // once per agent: topology_file()
  /// The CPUs this agent may run on when its own mask (taskset, srun's task/affinity) leaves
  /// out CPUs the machine and its cgroup allow; 0 when it does not.
  std::size_t own_cpu_count_ = 0;
  std::map<std::uint32_t, Rank> ranks_;
  std::vector<std::shared_ptr<StdinPipe>> stdin_pipes_;  // this attempt's stdin ranks
  bool stdin_eof_ = false;   // the launcher's stdin ended: later ranks read /dev/null
  bool pty_warned_ = false;  // said once that a rank's stdout got a pipe instead of a pty
  std::map<pid_t, std::uint32_t> rank_of_pid_;
  std::map<std::string, std::uint32_t> fence_counts_;
  std::set<std::string> unsupported_said_;  // calls already reported (on_unsupported)
  std::map<std::pair<std::string, std::uint32_t>, ModexDone> pending_fences_;
  std::map<std::uint32_t, ModexDone> pending_dmodex_;
  std::map<std::uint32_t, SpawnDone> pending_spawns_;     // request id -> the rank's answer
  std::map<std::string, protocol::ChildJob> child_jobs_;  // spawned namespaces of this attempt
  std::map<std::uint32_t, NameDone> pending_names_;  // name requests the launcher has not answered
  std::uint32_t next_request_id_ = 1;
  bool shutting_down_ = false;
  bool kill_seen_ = false;  // this attempt's first Kill came: ranks running then were marked
  bool launcher_gone_ = false;
  bool finished_ = false;
  int exit_code_ = 0;
  int stream_fd_ = -1;
  int login_ms_ = -1;
  StackCollector stacks_{io_};  // last: its threads are joined before the rest goes
};

}  // namespace mpilaunch::agent
