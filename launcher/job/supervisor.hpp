#pragma once
/// [io] run(): owns the io_context's flows for one job. Starts agents, feeds events to the
/// lifecycle table (job_state.hpp), carries out its actions, relays fences and direct modex,
/// forwards output, tears down on the first failure and reports one Error.

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "common/clock.hpp"
#include "common/frame_stream.hpp"
#include "common/protocol.hpp"
#include "launcher/job/control_socket.hpp"
#include "launcher/job/fence_relay.hpp"
#include "launcher/job/job_state.hpp"
#include "launcher/job/job_status.hpp"
#include "launcher/job/launch_plan.hpp"
#include "launcher/job/name_service.hpp"
#include "launcher/job/restart_policy.hpp"
#include "launcher/job/stdin_forwarder.hpp"
#include "launcher/output/event_log.hpp"
#include "launcher/output/output_forwarder.hpp"
#include "launcher/output/rank_streams.hpp"
#include "launcher/stacks/stack_text.hpp"
#include "launcher/start/agent_starter.hpp"

namespace mpilaunch::launcher {

struct JobConfig {
  LaunchPlan plan;
  /// --do-not-launch: once every agent has reported its node, place the ranks, print the map
  /// and end with success, starting no rank (mpirun 4.1.4 prints its JOB MAP and exits 0).
  bool map_only = false;
  std::string job_id;
  std::string token;
  std::string tmpdir;  // this job's directory for every temporary file, on every node
  std::optional<double> timeout_seconds;
  double kill_grace_seconds = 3.0;
  double wireup_timeout_seconds = 300.0;
  bool report_state_on_timeout = false;
  bool get_stack_traces = false;  // on a timeout, collect and merge every rank's stack first
  double start_timeout_seconds = 60.0;
  RestartConfig restart;
  std::string status_file;  // --status: rewritten atomically on every change
  bool progress = false;    // "N/M agents up" on stderr while agents start (stderr is a terminal)
  /// The rank that reads our stdin (protocol::kStdinAll, kStdinNone); mpirun's default, rank 0.
  std::int32_t stdin_rank = 0;
  bool rank_stdout_pty = true;  // --rank-stdout: each rank's stdout a pty (mpirun's) or a pipe
};

class Supervisor {
 public:
  Supervisor(asio::io_context& io, JobConfig config, AgentStarter& starter, EventLog& events,
             OutputForwarder& output);
  ~Supervisor();
  /// Runs the job to its end; returns mpilaunch's exit code.
  int run();

 private:
  class Link;
  // How long after the SIGKILL an agent has to report its ranks' ends before its link is
  // closed: a live agent reaps a SIGKILLed rank at once; under load, and under sanitizers, a
  // few seconds.
  static constexpr auto kTeardownAnswer = std::chrono::seconds(5);
  /// From the teardown's SIGCONT to its SIGTERM: mpirun 4.1.4's odls_base_sigkill_timeout.
  static constexpr auto kTermDelay = std::chrono::seconds(1);
  enum class RankPhase { NotSpawned, Spawning, Running, Ended };
  struct RankStatus {
    RankPhase phase = RankPhase::NotSpawned;
    pid_t pid = -1;
    bool connected = false;
  };

  /// A spawned job (issue 24): its processes are numbered after every earlier process of the
  /// attempt (ranks_, the agents' RankStarted/RankExited), from `first_index`.
  struct ChildJobRecord {
    std::string nspace;
    std::uint32_t job_number = 2;
    std::uint32_t first_index = 0;
    std::vector<int> node_of_rank;
    std::vector<std::string> program_of_rank;
    std::string parent_nspace;  // the rank whose MPI_Comm_spawn started it
    std::uint32_t parent_rank = 0;
    std::vector<std::vector<std::uint32_t>> pus_of_rank;  // bound PUs; empty: unbound
    int bookmark = -1;  // where a spawn by its processes starts (place_spawn's last_node)
    /// --report-bindings: each unbound process says "MCW rank N not bound" once it has a pid.
    bool report_not_bound = false;
  };
  /// The PUs of a spawn's processes as mpirun 4.1.4's default binding gives them
  /// (launcher/job/spawn_binding.hpp), with `running` processes on each node before it.
  std::vector<std::vector<std::uint32_t>> default_child_pus(const ChildJobRecord& record,
                                                            const std::vector<int>& running) const;
  /// With record.pus_of_rank decided: spec's cpus, the bound processes' --report-bindings lines,
  /// and whether the unbound ones get theirs when they start (report_not_bound).
  void bind_children(ChildJobRecord& record, protocol::JobSpec& spec);
  /// Spawned process `index` of `job` started on `node` as `pid`: its "not bound" line.
  void on_child_started(const ChildJobRecord& job, std::uint32_t index, int node, std::int32_t pid);
  /// A --report-bindings line of process `index`, as its stderr (or ours without formats).
  void write_report_line(std::uint32_t index, const std::string& line);

  void feed(JobEvent event);
  /// A rank called MPI_Comm_spawn (supervisor_spawn.cpp): places the new job's processes,
  /// registers and starts it on every agent, answers the parent's agent.
  void on_spawn_request(Link& link, std::uint32_t id, const protocol::SpawnRequest& m);
  /// The spawned job that process `index` belongs to; null for the initial job's ranks.
  const ChildJobRecord* child_of(std::uint32_t index) const;
  /// The node of rank `rank` of namespace `nspace` (the job's or a spawned one); -1: none.
  int node_of(const std::string& nspace, std::uint32_t rank) const;
  /// The node of process `index` of ranks_ (an initial rank or a spawned one); -1: none.
  int node_of_process(std::uint32_t index) const;
  /// Node `node`'s host: the map's nodes first, then the idle hosts (LaunchPlan::nodes).
  const std::string& host_name(int node) const;
  /// Node `node` as mpirun's --report-bindings names it: this machine's own short hostname for
  /// a loopback name (-H localhost), otherwise the host's name as given.
  std::string report_host(int node) const;
  /// The processes of the attempt on `node` (indices into ranks_): its initial ranks, then
  /// those of each spawned job placed there.
  std::vector<std::uint32_t> processes_on(int node) const;
  /// The number of the initial job's ranks (the first processes of ranks_).
  std::uint32_t initial_size() const { return static_cast<std::uint32_t>(config_.plan.map.size()); }
  /// Names a spawned process in `error` (its rank in its job, its namespace, its program, the
  /// rank that spawned it); `before_connect`: it ended before it connected to its server, so
  /// the parent's MPI_Comm_spawn cannot complete.
  void name_child(Error& error, std::uint32_t index, bool before_connect = false) const;
  void execute(Action action);
  void start_agents();
  void start_agent(int node);
  void spawn_ranks();
  /// When a host's slots are its cores (LaunchPlan::slots_from_agents): counts them from its
  /// agent's topology, maps the ranks, and shuts down the agents of hosts left without ranks;
  /// false after fail(). supervisor_slots.cpp.
  bool map_on_agent_slots();
  /// Each rank's CPUs from every agent's topology (common/placement.hpp), once per job, with
  /// --report-bindings, --display-map and the events file told; false after fail().
  bool place_ranks();
  void decide_restart();
  void start_backoff();
  void update_status();
  void on_rank_connected(std::uint32_t rank);
  /// Every rank of the attempt runs: starts the wire-up limit when the program links MPI.
  void on_ranks_running();
  /// Fails the job as timeout (phase wire-up) unless every rank reached PMI(x) init within
  /// --wireup-timeout; `since` ends the error's detail ("of the first rank", ...).
  void arm_wireup_timer(std::string since);
  void report_state() const;
  using StacksDone = std::function<void(const std::vector<ProcessStack>&)>;
  /// Asks every ready agent for its running ranks' stacks (CollectStacks) and calls `done` once
  /// all answered or the deadline and a grace passed (supervisor_stacks.cpp); a request made
  /// while a collection is under way joins it.
  void collect_stacks(StacksDone done);
  /// Takes `mpilaunch stacks` requests on the job directory's control socket (a failure to
  /// open it is said with MPILAUNCH_DEBUG only: the job runs without it).
  void open_control();
  /// A request line from the control socket; `respond` gets the reply document.
  void on_control_request(const std::string& request, ControlSocket::Respond respond);
  void on_node_stacks(Link& link, std::uint32_t refers_to, const protocol::NodeStacks& m);
  /// Calls the pending collection's `done` with what came, the silent agents' ranks noted.
  void finish_stacks();
  /// Names process `index` of ranks_ in `stack`: its job (1, or a spawned job's number) and rank.
  void label_process(ProcessStack& stack, std::uint32_t index) const;
  /// The timeout of the whole job: its stacks first with --get-stack-traces.
  void on_job_timeout();
  void tear_down();
  void finish();
  void complete();
  /// `rank_end`: the report of the rank whose end is `error`, if it is a rank failure.
  void fail(Error error, JobEvent event,
            std::optional<protocol::RankExited> rank_end = std::nullopt);
  /// A rank failure that reached us during teardown but caused the one that started it (see
  /// displaces()) becomes the attempt's error; the other one is logged as secondary.
  void revise_root_cause(Error error, std::optional<protocol::RankExited> rank_end);
  /// Makes `error` the attempt's error and writes its job-failed event.
  void record_cause(Error error, std::optional<protocol::RankExited> rank_end, bool revised);
  /// Rewrites the one "N/M agents up" line (config_.progress only); erased once all are up.
  void show_progress();
  void clear_progress();
  void check_ranks();
  /// Teardown's bound (issues 23, 24; launcher/job/teardown_deadline.hpp): --kill-grace plus
  /// kTeardownAnswer after the SIGTERM, an agent that has not reported its processes' ends
  /// (stopped, frozen host) has its link closed as agent-lost, phase teardown (a local one is
  /// killed, and its ranks with it); processes its answering agent never started (a spawned
  /// job it could not register) and those of closed links are given up.
  void close_unresponsive_links();
  void arm_teardown_timer(std::chrono::steady_clock::duration after);
  void on_link_message(Link& link, protocol::Envelope envelope);
  void on_link_closed(Link& link, std::optional<Error> why);
  /// Whether the attempt's error is a rank of `link`'s host killed from outside (a SIGTERM or
  /// SIGKILL we did not send), now that the teardown or the finish is under way: what ended
  /// `link`'s agent may have ended its ranks too.
  bool ranks_killed_with(const Link& link) const;
  void on_rank_exited(Link& link, const protocol::RankExited& m);
  /// The stderr tails of the initial job's other ranks on `node` (at most kPeersTailBytes), for
  /// diagnose_with_peers(); empty for a spawned process.
  std::string peers_stderr(int node, std::uint32_t rank) const;
  void on_rank_output(std::uint32_t rank, protocol::Stream stream, std::span<const std::byte> data);
  /// Reads `link`'s stream channel whenever a record is queued (local agents).
  void watch_stream_channel(Link& link);
  /// Adopts every rank's pipes queued on `link`'s stream channel now; false when it failed.
  bool take_stream_records(Link& link);
  void on_fence(Link& link, const protocol::FenceContribute& m);
  void on_dmodex_request(Link& link, std::uint32_t id, const protocol::DmodexRequest& m);
  void on_dmodex_reply(std::uint32_t refers_to, const protocol::DmodexReply& m);
  /// The name service's requests (supervisor_names.cpp): answered at once, or when the name
  /// comes, its deadline passes or the attempt ends (end_names()).
  void on_name_publish(Link& link, std::uint32_t id, const protocol::NamePublish& m);
  void on_name_lookup(Link& link, std::uint32_t id, const protocol::NameLookup& m);
  void on_name_unpublish(Link& link, std::uint32_t id, const protocol::NameUnpublish& m);
  void send_name_answers(const std::vector<NameService::Answer>& answers);
  /// Runs names_timer_ to the earliest deadline of a waiting lookup.
  void arm_names_timer();
  /// The attempt ends: every waiting lookup is answered, every name forgotten.
  void end_names();
  void send_to(int node, const protocol::Message& m, std::uint32_t id = 0,
               std::uint32_t refers_to = 0);
  void kill_ranks(int signal);
  /// A destination stopped taking rank output (supervisor_output.cpp). The launcher's own
  /// stdout or stderr failing ends the job (EPIPE: its reader went away, 141); a rank's file
  /// failing is said once on stderr and fails the job at its end (74).
  void on_output_failure(const OutputFailure& failure);
  /// A rank ended, but something it started held its streams past the drain grace: said on
  /// stderr and in an output-held event (what is written to them from now on is not forwarded).
  void on_output_held(std::uint32_t rank, bool stdout_held, bool stderr_held);
  /// Makes a pending output error the job's error when nothing else failed it.
  bool adopt_output_error();
  /// One output-lost event per rank and destination that lost bytes (said once, at the end).
  void report_output_losses();
  /// Returns once our stdout and stderr take rank output again (at once unless congested):
  /// links and rank pipes wait on it, so a stalled reader stalls the ranks, not the loop.
  asio::awaitable<void> output_room();
  /// RankStreams' gate: true when reading must wait for output_room's callback `go`.
  bool output_gate(std::function<void()> go);
  /// The job's end once the output queued for our stdout and stderr is out (or given up).
  void complete_now();
  /// While complete() waits for the reader: `why` ends the wait (the queued output is lost,
  /// and counted), and becomes the job's error if it had none.
  void give_up_output(Error why);
  void wait_for_signals();
  void reap_children();
  std::optional<int> wait_status_of(pid_t pid, bool kill_first);
  bool all_agents_ready() const;

  asio::io_context& io_;
  JobConfig config_;
  AgentStarter& starter_;
  EventLog& events_;
  OutputForwarder& output_;
  RankStreams streams_;                    // pipes handed over by local agents
  std::unique_ptr<StdinForwarder> stdin_;  // our stdin to the stdin ranks' agents
  FenceRelay relay_;
  JobState state_ = JobState::StartingAgents;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::unique_ptr<Link>>
      lost_links_;  // kept until exit: their coroutines may still run
  std::vector<RankStatus> ranks_;
  std::optional<Error> error_;
  std::optional<Error> output_error_;  // the first destination that failed (output-error)
  std::optional<protocol::RankExited> error_rank_end_;  // the rank end behind error_, if any
  /// This attempt's ranks that exited non-zero while the job ran on (orte_abort_on_non_zero_status
  /// false: LaunchPlan::abort_on_nonzero), in the order reported.
  std::vector<Error> nonzero_exits_;
  std::map<std::uint32_t, std::string> stderr_tails_;              // per rank, for diagnosis
  std::map<std::uint32_t, std::pair<int, std::uint32_t>> dmodex_;  // our id -> (node, their id)
  std::uint32_t next_id_ = 1;
  std::uint32_t attempt_ = 1;
  RestartPolicy policy_;
  SteadyClock clock_;
  TimePoint attempt_started_{};
  TimePoint next_start_{};
  bool spawn_when_ready_ = false;
  bool transport_reported_ = false;
  std::optional<JobBindings> bindings_;     // place_ranks()
  protocol::JobSpec spec_;                  // the current attempt's (spawn_ranks())
  std::vector<ChildJobRecord> child_jobs_;  // this attempt's spawned jobs, in order
  JobStatus status_;
  int interrupts_ = 0;
  bool finishing_ = false;
  bool status_write_failed_ = false;  // --status could not be written, and stderr said so
  bool progress_shown_ = false;       // the "N/M agents up" line is on the terminal
  bool done_ = false;
  bool draining_ = false;  // complete(): waiting for the reader to take the queued output
  int exit_code_ = 0;
  asio::signal_set signals_;
  asio::signal_set sigchld_;
  std::map<pid_t, int> reaped_;  // wait statuses of agents reaped by reap_children()
  std::vector<pid_t> stopped_;   // agents killed after their bye, reaped by complete()
  asio::steady_timer kill_timer_;
  asio::steady_timer job_timer_;
  asio::steady_timer start_timer_;
  asio::steady_timer shutdown_timer_;
  asio::steady_timer backoff_timer_;
  asio::steady_timer wireup_timer_;
  asio::steady_timer teardown_timer_;  // close_unresponsive_links()
  asio::steady_timer stacks_timer_;
  NameService names_;                       // what the job's ranks published (supervisor_names.cpp)
  asio::steady_timer names_timer_;          // the earliest deadline of a waiting lookup
  std::unique_ptr<ControlSocket> control_;  // `mpilaunch stacks` requests
  struct StacksRequest {
    std::vector<StacksDone> done;
    std::map<std::uint32_t, int> waiting;  // request id -> node
    std::vector<ProcessStack> stacks;
  };
  std::optional<StacksRequest> stacks_;  // the collection under way (--get-stack-traces)
};

}  // namespace mpilaunch::launcher
