#include "launcher/job/supervisor.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "launcher/job/supervisor_link.hpp"
#include "launcher/job/teardown_deadline.hpp"
#include "launcher/job/transport_default.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::launcher {
namespace {

// The JOB of --display-map's `[JOB,1]`: mpirun 4.1.4 prints its job family there, a decimal
// number from 1 to 65535 that differs per run; ours comes from the job's random id.
std::string map_job_number(std::string_view job_id) {
  unsigned value = 0;
  const std::string_view head = job_id.substr(0, 4);
  (void)std::from_chars(head.data(), head.data() + head.size(), value, 16);
  return std::to_string(value % 65535 + 1);
}

constexpr std::int32_t kPmixErrLostConnection = -61;  // PMIX_ERR_LOST_CONNECTION

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

}  // namespace

Supervisor::Supervisor(asio::io_context& io, JobConfig config, AgentStarter& starter,
                       EventLog& events, OutputForwarder& output)
    : io_(io),
      config_(std::move(config)),
      starter_(starter),
      events_(events),
      output_(output),
      streams_(
          io,
          [this](std::uint32_t rank, protocol::Stream stream, std::span<const std::byte> data) {
            on_rank_output(rank, stream, data);
          },
          [this](std::function<void()> go) { return output_gate(std::move(go)); }),
      relay_(config_.plan.map),
      policy_(config_.restart),
      signals_(io, SIGINT, SIGTERM, SIGHUP),
      sigchld_(io, SIGCHLD),
      kill_timer_(io),
      job_timer_(io),
      start_timer_(io),
      shutdown_timer_(io),
      backoff_timer_(io),
      wireup_timer_(io),
      teardown_timer_(io),
      stacks_timer_(io),
      names_timer_(io) {
  signals_.add(SIGUSR1);
  signals_.add(SIGUSR2);
  output_.on_failure([this](const OutputFailure& f) { on_output_failure(f); });
  streams_.on_held([this](std::uint32_t rank, bool stdout_held, bool stderr_held) {
    on_output_held(rank, stdout_held, stderr_held);
  });
  output_.attach(io_);
  if (config_.stdin_rank == protocol::kStdinAll ||
      (config_.stdin_rank >= 0 &&
       (config_.plan.slots_from_agents || config_.stdin_rank < config_.plan.map.size())))
    stdin_ = std::make_unique<StdinForwarder>(
        io_, STDIN_FILENO,
        [this](int node, const protocol::StdinData& data) { send_to(node, data); });
  ranks_.resize(static_cast<std::size_t>(config_.plan.map.size()));
  status_.job_id = config_.job_id;
  status_.max_restarts = config_.restart.max_restarts;
  for (int n = 0; n < config_.plan.map.node_count(); ++n)
    status_.nodes[config_.plan.map.node_name(n)].pending =
        static_cast<int>(config_.plan.map.ranks_on(n).size());
  status_.move_to(JobPhase::Pending, "Starting", "starting agents", rfc3339_now());
}

Supervisor::~Supervisor() {
  output_.on_failure({});  // the forwarder outlives us (run.cpp)
}

int Supervisor::run() {
  nlohmann::json nodes = nlohmann::json::array();
  for (const HostEntry& h : config_.plan.nodes) nodes.push_back(h.name);
  const LaunchPlan& plan = config_.plan;
  // With slots still to be counted by the agents, the size is known only when -n gave it.
  const nlohmann::json np = !plan.slots_from_agents ? nlohmann::json(plan.map.size())
                            : plan.request.np       ? nlohmann::json(*plan.request.np)
                                                    : nlohmann::json(nullptr);
  events_.write("job-start", {{"job", config_.job_id},
                              {"np", np},
                              {"nodes", nodes},
                              {"argv", config_.plan.apps.at(0).argv},
                              {"version", MPILAUNCH_VERSION},
                              {"max_restarts", config_.restart.max_restarts}});
  update_status();
  open_control();
  wait_for_signals();
  reap_children();
  if (config_.timeout_seconds) {
    job_timer_.expires_after(seconds(*config_.timeout_seconds));
    job_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      // While complete() waits for a slow reader, the limit ends that wait.
      if (finishing_)
        return give_up_output(
            Error{.kind = ErrorKind::Timeout,
                  .phase = "job",
                  .detail = mpilaunch::format("--timeout {} s", *config_.timeout_seconds)});
      output_.release();  // the agents' answers (stacks, rank ends) must come through
      on_job_timeout();
    });
  }
  start_agents();
  io_.run();
  return exit_code_;
}

void Supervisor::feed(JobEvent event) {
  const auto step = transition(state_, event);
  if (!step) return;  // e.g. a second failure while tearing down: already handled
  if (std::getenv("MPILAUNCH_DEBUG") != nullptr)
    std::fprintf(stderr, "mpilaunch: job %s: %s --%s--> %s\n", config_.job_id.c_str(),
                 std::string(state_name(state_)).c_str(), std::string(event_name(event)).c_str(),
                 std::string(state_name(step->to)).c_str());
  state_ = step->to;
  execute(step->action);
}

void Supervisor::execute(Action action) {
  switch (action) {
    case Action::None:
      return;
    case Action::SpawnRanks:
      return spawn_ranks();
    case Action::TearDownRanks:
      return tear_down();
    case Action::StartBackoff:
      return start_backoff();
    case Action::ReportSuccess:
    case Action::ReportFailure:
      return finish();
  }
}

void Supervisor::start_agents() {
  // Every host of the allocation: those without ranks idle until a spawn places children there.
  for (int n = 0; n < static_cast<int>(config_.plan.nodes.size()); ++n) {
    links_.emplace_back();
    start_agent(n);
    if (state_ != JobState::StartingAgents) return;
  }
  show_progress();
  start_timer_.expires_after(seconds(config_.start_timeout_seconds));
  start_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || state_ != JobState::StartingAgents) return;
    for (const auto& link : links_)
      if (!link->ready)
        return fail(Error{.kind = ErrorKind::AgentStartFailed,
                          .host = link->host.name,
                          .phase = "handshake",
                          .detail = mpilaunch::format("no answer within {} s",
                                                      config_.start_timeout_seconds)},
                    JobEvent::AgentFailed);
  });
}

void Supervisor::start_agent(int n) {
  const HostEntry& host = config_.plan.nodes[static_cast<std::size_t>(n)];
  auto process = starter_.start(host);
  if (!process) return fail(process.error(), JobEvent::AgentFailed);
  auto& slot = links_.at(static_cast<std::size_t>(n));
  if (slot) lost_links_.push_back(std::move(slot));
  slot = std::make_unique<Link>(*this, n, host, process.value());
  asio::co_spawn(io_, slot->stream.read_loop(*slot, true), asio::detached);
  if (slot->channel) watch_stream_channel(*slot);
  slot->stream.send(protocol::LauncherHello{MPILAUNCH_VERSION, config_.token,
                                            static_cast<std::uint32_t>(n), host.name});
}

bool Supervisor::all_agents_ready() const {
  for (const auto& link : links_)
    if (!link || !link->ready || link->closed) return false;
  return links_.size() == config_.plan.nodes.size();
}

void Supervisor::spawn_ranks() {
  start_timer_.cancel();
  if (!all_agents_ready()) {  // after a lost agent, its replacement is still starting
    spawn_when_ready_ = true;
    return;
  }
  spawn_when_ready_ = false;
  if (!map_on_agent_slots() || !place_ranks()) return;
  if (config_.map_only) {
    // The map is printed: nothing runs (the transition's action is done, the next one posted).
    asio::post(io_, [this] { feed(JobEvent::AllRanksSucceeded); });
    return;
  }
  const LaunchPlan& plan = config_.plan;
  protocol::JobSpec spec;
  spec.job_id = config_.job_id;
  spec.nspace = mpilaunch::format("mpilaunch-{}-{}", config_.job_id, attempt_);
  spec.attempt = attempt_;
  for (int n = 0; n < plan.map.node_count(); ++n) {
    protocol::NodeRanks node{
        plan.map.node_name(n),
        {},
        static_cast<std::uint32_t>(plan.nodes[static_cast<std::size_t>(n)].slots)};
    for (int r : plan.map.ranks_on(n)) node.ranks.push_back(static_cast<std::uint32_t>(r));
    const NodeTopology& topology = links_[static_cast<std::size_t>(n)]->topology;
    for (const auto& pus : bindings_->pus[static_cast<std::size_t>(n)])
      node.cpus.push_back(pus.empty() ? std::string() : os_cpu_list(topology, pus));
    node.told_bound = static_cast<std::size_t>(n) < bindings_->told_bound.size() &&
                      bindings_->told_bound[static_cast<std::size_t>(n)];
    spec.nodes.push_back(std::move(node));
  }
  // The idle hosts' agents: no rank, their slots free for spawns.
  for (std::size_t n = spec.nodes.size(); n < plan.nodes.size(); ++n)
    spec.nodes.push_back(protocol::NodeRanks{
        plan.nodes[n].name, {}, static_cast<std::uint32_t>(plan.nodes[n].slots)});
  for (const PlanApp& app : plan.apps)
    spec.apps.push_back(
        {app.argv, app.env, app.wdir, static_cast<std::uint32_t>(app.num_procs), app.exec_path});
  spec.env = plan.env;
  // The job's own report_bindings parameter (an appfile's first line's --report-bindings, a
  // --mca) reaches every rank, bound or not (mpirun 4.1.4, measured: `--app` with "-n 1
  // --report-bindings P" and "-n 1 P" gives both ranks 1): it goes with each context, since the
  // agents keep the job-wide one below from their bound ranks.
  const std::string report_parameter = "OMPI_MCA_hwloc_base_report_bindings=1";
  if (std::erase(spec.env, report_parameter) > 0)
    for (auto& app : spec.apps) app.env.push_back(report_parameter);
  spec.env.push_back(mpilaunch::format("MPILAUNCH_MAX_RESTARTS={}", config_.restart.max_restarts));
  // --report-bindings of unbound ranks: mpirun 4.1.4 leaves the line to each rank's Open MPI,
  // giving it OMPI_MCA_hwloc_base_report_bindings=1 only then (measured; a bound rank would
  // print its binding a second time, in another format). Where some nodes are bound, the
  // agents keep it from their bound ranks.
  if (plan.placement.report_bindings &&
      (bindings_->policy == "none" || !bindings_->dropped.empty() ||
       !bindings_->told_bound.empty()))
    spec.env.emplace_back("OMPI_MCA_hwloc_base_report_bindings=1");
  {
    // Open MPI's transport default (docs/transport.md), from every agent's report.
    std::vector<std::string> chosen = plan.env;
    for (const PlanApp& app : plan.apps)
      chosen.insert(chosen.end(), app.env.begin(), app.env.end());
    for (const char* name : {"OMPI_MCA_pml", "OMPI_MCA_mtl"})
      if (const char* value = std::getenv(name))
        chosen.push_back(mpilaunch::format("{}={}", name, value));
    std::vector<NodeTransportFacts> facts;
    for (const auto& link : links_) facts.push_back({link->host.name, link->transport_facts});
    const TransportChoice transport = choose_transport(chosen, facts);
    if (transport.env) spec.env.push_back(*transport.env);
    if (!transport_reported_)
      events_.write("transport", {{"pml", transport.env ? "ob1" : "open-mpi-chooses"},
                                  {"reason", transport.reason}});
    transport_reported_ = true;
  }
  spec.tmpdir = config_.tmpdir;
  spec.virtual_nodes = plan.launcher == LauncherKind::Local && plan.nodes.size() > 1;
  spec.serve_pmix = plan.pmi.pmix;
  spec.serve_pmi = plan.pmi.pmi;
  spec.universe_size = static_cast<std::uint32_t>(plan.universe_size);
  spec.stdin_rank = stdin_ ? config_.stdin_rank : protocol::kStdinNone;
  spec.rank_stdout_pty = config_.rank_stdout_pty;
  spec.prefix = plan.prefix;
  spec.index_argv_by_rank = plan.index_argv_by_rank;
  spec.cpus_not_bound = bindings_->not_bound;
  // A fresh attempt: new namespace, nothing carried over but the agents (its spawned jobs go).
  streams_.close_all();
  output_.hold();
  output_.forget_names();
  std::map<std::string, int> spawned_on;  // the previous attempt's spawned processes per node
  for (const ChildJobRecord& job : child_jobs_)
    for (int n : job.node_of_rank) ++spawned_on[host_name(n)];
  child_jobs_.clear();
  ranks_.resize(initial_size());
  for (RankStatus& r : ranks_) r = RankStatus{RankPhase::Spawning, -1};
  relay_ = FenceRelay(plan.map);
  dmodex_.clear();
  error_.reset();
  error_rank_end_.reset();
  stderr_tails_.clear();
  attempt_started_ = clock_.now();
  if (config_.restart.max_restarts > 0) output_.set_attempt(static_cast<int>(attempt_));
  for (auto& [name, counts] : status_.nodes)
    counts = RankCounts{
        counts.pending + counts.running + counts.succeeded + counts.failed - spawned_on[name], 0, 0,
        0};
  status_.attempt = static_cast<int>(attempt_);
  events_.write("attempt-start", {{"attempt", attempt_}, {"nspace", spec.nspace}});
  spec_ = spec;
  for (const auto& link : links_) {
    link->stream.send(spec);
    link->stream.send(protocol::Spawn{spec.nspace});
  }
  if (stdin_) {
    // Each agent reads its frames in order: StdinData comes after the Spawn that made the pipe.
    std::vector<int> nodes;
    if (config_.stdin_rank == protocol::kStdinAll) {
      for (int n = 0; n < plan.map.node_count(); ++n)
        if (!plan.map.ranks_on(n).empty()) nodes.push_back(n);
    } else {
      nodes.push_back(plan.map.node_of(config_.stdin_rank));
    }
    stdin_->start(nodes);
  }
  update_status();
}

bool Supervisor::place_ranks() {
  if (bindings_) return true;
  const LaunchPlan& plan = config_.plan;
  std::vector<NodePlacementInput> inputs;
  std::vector<ReportNode> report;
  for (int n = 0; n < plan.map.node_count(); ++n) {
    const HostEntry& host = plan.nodes[static_cast<std::size_t>(n)];
    const Link& link = *links_[static_cast<std::size_t>(n)];
    const bool remote = !plan.isolated && !is_local_name(host.name, plan.hostname);
    inputs.push_back({host.slots, link.topology, remote});
    report.push_back(
        {report_host(n), link.agent_pid, host.slots, host.max_slots.value_or(0), nullptr, remote});
  }
  // Virtual nodes of one machine share its CPUs (placement.hpp).
  const bool shared = plan.launcher == LauncherKind::Local && plan.map.node_count() > 1;
  auto bindings = bind_ranks(plan.map, inputs, plan.placement, shared);
  if (!bindings) {
    Error e = bindings.error();
    if (!plan.apps.empty() && !plan.apps[0].argv.empty()) e.executable = plan.apps[0].argv[0];
    fail(std::move(e), JobEvent::AgentFailed);
    return false;
  }
  bindings_ = std::move(bindings).value();
  for (std::size_t n = 0; n < report.size(); ++n) report[n].topology = &inputs[n].topology;
  if (plan.display_allocation) {
    // Once, with every host's slots known (counted by its agent where a host file gave none),
    // before the map: mpirun prints it when its daemons have reported.
    const std::string text = allocation_text(plan);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  {
    nlohmann::json hosts = nlohmann::json::array();
    for (const HostEntry& h : plan.allocation)
      hosts.push_back(
          {{"host", h.name}, {"slots", h.slots}, {"max_slots", h.max_slots.value_or(0)}});
    events_.write("allocation", {{"source", plan.hosts_source}, {"hosts", std::move(hosts)}});
  }
  if (plan.placement.display || plan.display_diffable_map) {
    std::vector<int> app_of(static_cast<std::size_t>(plan.map.size()));
    for (int rank = 0; rank < plan.map.size(); ++rank)
      app_of[static_cast<std::size_t>(rank)] = app_index_of_rank(plan, rank);
    // The diffable form takes the table's place, as under mpirun 4.1.4 (measured).
    const std::string text =
        plan.display_diffable_map
            ? display_diffable_map_text(plan.map, report, *bindings_, app_of)
            : display_map_text(map_job_number(config_.job_id), plan.universe_size, plan.map, report,
                               *bindings_, app_of);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  if (plan.placement.report_bindings) {
    const std::vector<std::string> lines = report_bindings_lines(plan.map, report, *bindings_);
    // mpirun 4.1.4 sends each rank's line as that rank's stderr (measured): tagged or
    // timestamped as its output, and in its --output-filename file.
    std::string text;
    for (std::size_t rank = 0; rank < lines.size(); ++rank) {
      if (lines[rank].empty()) continue;  // its node's binding was dropped: it reports itself
      if (output_.formats())
        output_.write(static_cast<std::uint32_t>(rank), protocol::Stream::Stderr,
                      std::as_bytes(std::span(lines[rank].data(), lines[rank].size())));
      else
        text += lines[rank];
    }
    if (!text.empty()) {
      std::fwrite(text.data(), 1, text.size(), stderr);
      std::fflush(stderr);
    }
  }
  // One event with every rank's CPUs (kernel CPU list of OS indexes; "" unbound).
  nlohmann::json nodes = nlohmann::json::array();
  for (int n = 0; n < plan.map.node_count(); ++n) {
    nlohmann::json ranks = nlohmann::json::array();
    const auto& node_pus = bindings_->pus[static_cast<std::size_t>(n)];
    for (std::size_t i = 0; i < node_pus.size(); ++i) {
      const int rank = plan.map.ranks_on(n)[i];
      nlohmann::json entry = {
          {"rank", rank},
          {"cpus", os_cpu_list(inputs[static_cast<std::size_t>(n)].topology, node_pus[i])}};
      const bool dropped = static_cast<std::size_t>(n) < bindings_->dropped.size() &&
                           bindings_->dropped[static_cast<std::size_t>(n)];
      const bool told = static_cast<std::size_t>(n) < bindings_->told_bound.size() &&
                        bindings_->told_bound[static_cast<std::size_t>(n)];
      if (bindings_->policy != "none" && !dropped && !told)
        entry["report"] = report_binding_line(
            rank, inputs[static_cast<std::size_t>(n)].topology, node_pus[i],
            bindings_->available.empty() ? std::vector<std::uint32_t>()
                                         : bindings_->available[static_cast<std::size_t>(n)]);
      ranks.push_back(std::move(entry));
    }
    nlohmann::json node = {{"host", plan.nodes[static_cast<std::size_t>(n)].name},
                           {"slots", plan.nodes[static_cast<std::size_t>(n)].slots},
                           {"ranks", std::move(ranks)}};
    // Its unbound ranks are told they are bound (OMPI_MCA_orte_bound_at_launch=1).
    if (static_cast<std::size_t>(n) < bindings_->told_bound.size() &&
        bindings_->told_bound[static_cast<std::size_t>(n)])
      node["bound_at_launch"] = true;
    nodes.push_back(std::move(node));
  }
  nlohmann::json fields = {{"binding", bindings_->policy}, {"nodes", std::move(nodes)}};
  if (!bindings_->why_unbound.empty()) fields["unbound_because"] = bindings_->why_unbound;
  // --bind-to none with a CPU list: the CPUs above keep the ranks there, unbound to Open MPI.
  if (bindings_->not_bound) fields["bound_at_launch"] = false;
  events_.write("placement", std::move(fields));
  return true;
}

void Supervisor::show_progress() {
  if (!config_.progress) return;
  int up = 0;
  for (const auto& link : links_) up += link && link->ready ? 1 : 0;
  std::fprintf(stderr, "\r%d/%zu agents up", up, links_.size());
  std::fflush(stderr);
  progress_shown_ = true;
  if (static_cast<std::size_t>(up) == links_.size()) clear_progress();
}

void Supervisor::clear_progress() {
  if (!progress_shown_) return;
  std::fputs("\r\033[K", stderr);  // back to the line's start, erase it
  std::fflush(stderr);
  progress_shown_ = false;
}

void Supervisor::fail(Error error, JobEvent event, std::optional<protocol::RankExited> rank_end) {
  clear_progress();
  explain_interface_mismatch(error, config_.plan.pmi);
  // During a backoff the previous attempt's error is settled; an interrupt or timeout now is
  // the reason the job ends.
  if (!error_ || state_ == JobState::BackingOff) {
    record_cause(std::move(error), std::move(rank_end), false);
  } else {
    events_.write("secondary-error", {{"error", error_to_json(error)}, {"attempt", attempt_}});
  }
  feed(event);
}

void Supervisor::revise_root_cause(Error error, std::optional<protocol::RankExited> rank_end) {
  events_.write("secondary-error", {{"error", error_to_json(*error_)}, {"attempt", attempt_}});
  record_cause(std::move(error), std::move(rank_end), true);
  update_status();
}

void Supervisor::record_cause(Error error, std::optional<protocol::RankExited> rank_end,
                              bool revised) {
  nlohmann::json fields = {{"error", error_to_json(error)}, {"attempt", attempt_}};
  if (revised) fields["revised"] = true;
  events_.write("job-failed", std::move(fields));
  status_.last_error = error;
  error_ = std::move(error);
  error_rank_end_ = std::move(rank_end);
}

void Supervisor::kill_ranks(int signal) {
  for (const auto& link : links_)
    if (link && !link->closed) link->stream.send(protocol::Kill{signal});
}

void Supervisor::report_state() const {
  std::fprintf(stderr, "mpilaunch: state at the timeout (attempt %u):\n", attempt_);
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const RankStatus& s = ranks_[r];
    if (s.phase == RankPhase::Ended) continue;
    const int n = node_of_process(static_cast<std::uint32_t>(r));
    const std::string node = n >= 0 ? host_name(n) : std::string("?");
    const ChildJobRecord* child = child_of(static_cast<std::uint32_t>(r));
    const std::string who =
        child != nullptr
            ? mpilaunch::format("spawned job {} rank {}", child->job_number, r - child->first_index)
            : mpilaunch::format("rank {}", r);
    std::fprintf(stderr, "  %s on %s, pid %d: %s, %s\n", who.c_str(), node.c_str(),
                 static_cast<int>(s.pid), s.phase == RankPhase::Running ? "running" : "starting",
                 s.connected ? "inside MPI (PMIx connected)" : "not in MPI_Init yet");
  }
}

void Supervisor::on_rank_connected(std::uint32_t rank) {
  if (rank >= ranks_.size()) return;
  const bool first =
      std::none_of(ranks_.begin(), ranks_.end(), [](const RankStatus& r) { return r.connected; });
  ranks_[rank].connected = true;
  if (std::all_of(ranks_.begin(), ranks_.end(), [](const RankStatus& r) { return r.connected; })) {
    wireup_timer_.cancel();
    return;
  }
  // A rank that never reaches MPI_Init leaves the others waiting in its fences forever.
  if (first) arm_wireup_timer("of the first rank");
}

void Supervisor::on_ranks_running() {
  // A program that links MPI itself reaches MPI_Init; none of its ranks doing so in time is a
  // wire-up failure (e.g. the PMIx server failed internally), not a program without MPI.
  if (config_.plan.pmi.links_mpi &&
      std::none_of(ranks_.begin(), ranks_.end(), [](const RankStatus& r) { return r.connected; }))
    arm_wireup_timer("of its start (the program links MPI)");
}

void Supervisor::arm_wireup_timer(std::string since) {
  wireup_timer_.expires_after(seconds(config_.wireup_timeout_seconds));
  wireup_timer_.async_wait([this, since = std::move(since)](const boost::system::error_code& ec) {
    if (ec || state_ != JobState::Running) return;
    std::vector<int> missing;
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      if (!ranks_[r].connected && ranks_[r].phase != RankPhase::Ended)
        missing.push_back(static_cast<int>(r));
    if (missing.empty()) return;
    Error e{.kind = ErrorKind::Timeout,
            .phase = "wire-up",
            .detail = mpilaunch::format("rank{} {} did not reach MPI_Init within {} s {}",
                                        missing.size() > 1 ? "s" : "", fmt::join(missing, ","),
                                        config_.wireup_timeout_seconds, since)};
    e.rank = missing.front();
    e.host = config_.plan.map.node_name(config_.plan.map.node_of(missing.front()));
    fail(e, JobEvent::TimedOut);
  });
}

void Supervisor::tear_down() {
  output_.release();  // the ranks' ends must come through, whatever the reader does
  start_timer_.cancel();
  wireup_timer_.cancel();
  for (const auto& release : relay_.fail_all(kPmixErrLostConnection))
    for (int node : release.nodes) send_to(node, release.message);
  end_names();
  // mpirun 4.1.4's order (measured): SIGCONT at once, SIGTERM a second later, so a rank about
  // to write its last lines when a peer failed still writes them; the SIGCONT's Kill also
  // marks which ranks ended before the teardown (RankExited.ended_before_kill).
  kill_ranks(SIGCONT);
  kill_timer_.expires_after(kTermDelay);
  kill_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    kill_ranks(SIGTERM);
    kill_timer_.expires_after(seconds(config_.kill_grace_seconds));
    kill_timer_.async_wait([this](const boost::system::error_code& ec2) {
      if (!ec2) kill_ranks(SIGKILL);
    });
  });
  arm_teardown_timer(kTermDelay + seconds(config_.kill_grace_seconds) + kTeardownAnswer);
  check_ranks();
}

void Supervisor::arm_teardown_timer(std::chrono::steady_clock::duration after) {
  teardown_timer_.expires_after(after);
  teardown_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) close_unresponsive_links();
  });
}

void Supervisor::close_unresponsive_links() {
  if (state_ != JobState::TearingDown) return;
  std::vector<ProcessState> processes;
  for (std::uint32_t i = 0; i < ranks_.size(); ++i) {
    const RankPhase phase = ranks_[i].phase;
    processes.push_back({node_of_process(i), phase == RankPhase::Running,
                         phase != RankPhase::Spawning && phase != RankPhase::Running});
  }
  std::vector<bool> link_open;
  for (const auto& link : links_) link_open.push_back(link && !link->closed);
  const TeardownVerdict verdict = judge_teardown_deadline(processes, link_open);
  const double waited =
      config_.kill_grace_seconds + std::chrono::duration<double>(kTeardownAnswer).count();
  const auto give_up = [&](std::uint32_t index, const char* what) {
    RankStatus& rank = ranks_[index];
    const bool started = rank.phase == RankPhase::Running;
    rank.phase = RankPhase::Ended;
    const int node = node_of_process(index);
    Error e{.kind = ErrorKind::Timeout,
            .host = node >= 0 ? host_name(node) : std::string(),
            .rank = static_cast<int>(index),
            .phase = "teardown",
            .detail =
                mpilaunch::format("{}; given up {} s after the teardown's SIGTERM", what, waited)};
    name_child(e, index);
    if (!e.host.empty()) {
      RankCounts& counts = status_.nodes[e.host];
      --(started ? counts.running : counts.pending);
      ++counts.failed;
    }
    std::fprintf(stderr, "mpilaunch: %s\n", message(e).c_str());
    fail(std::move(e), JobEvent::RankFailed);  // a secondary error: the teardown's cause stays
  };
  for (const std::uint32_t index : verdict.never_started)
    give_up(index, "it never started: its agent answered the teardown but never reported it");
  for (const std::uint32_t index : verdict.lost)
    give_up(index, "its agent's link closed before it reported the end");
  for (const int node : verdict.silent_nodes) {
    // Closing a link may end the teardown (and start the next attempt's agents).
    if (state_ != JobState::TearingDown) return;
    Link& link = *links_.at(static_cast<std::size_t>(node));
    if (link.closed) continue;
    link.unresponsive = true;
    on_link_closed(link,
                   Error{.kind = ErrorKind::AgentLost,
                         .host = link.host.name,
                         .phase = "teardown",
                         .detail = mpilaunch::format(
                             "no answer to the teardown within {} s of the SIGTERM", waited)});
  }
  if (state_ == JobState::TearingDown) check_ranks();
}

void Supervisor::check_ranks() {
  for (const RankStatus& r : ranks_)
    if (r.phase == RankPhase::Spawning || r.phase == RankPhase::Running) {
      // Still waiting, unless no live agent is left to report.
      if (state_ != JobState::TearingDown) return;
      bool any_live = streams_.draining();  // a rank's end waits for its output
      for (const auto& link : links_) any_live = any_live || (link && link->ready && !link->closed);
      if (any_live) return;
      break;
    }
  if (state_ == JobState::TearingDown) return decide_restart();
  if ((state_ == JobState::Running || state_ == JobState::SpawningRanks) && !error_) {
    for (const RankStatus& r : ranks_)
      if (r.phase != RankPhase::Ended) return;
    feed(JobEvent::AllRanksSucceeded);
  }
}

void Supervisor::decide_restart() {
  kill_timer_.cancel();
  teardown_timer_.cancel();
  const Error failure = error_.value_or(Error{});
  std::random_device rd;
  const double jitter = std::uniform_real_distribution<double>(0.0, 1.0)(rd);
  // One reading of the clock: the recorded backoff is exactly the policy's (a second reading
  // would shave the time spent in between off it).
  const auto decided = clock_.now();
  const RestartDecision decision = policy_.on_failure(failure, attempt_started_, decided, jitter);
  if (const auto* restart = std::get_if<Restart>(&decision)) {
    next_start_ = restart->not_before;
    const auto backoff =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_start_ - decided);
    events_.write("attempt-failed", {{"attempt", attempt_},
                                     {"error", error_to_json(failure)},
                                     {"decision", "restart"},
                                     {"next_attempt", restart->attempt},
                                     {"backoff_ms", backoff.count()}});
    status_.restart_count = policy_.restarts_done();
    status_.move_to(JobPhase::Restarting, std::string(kind_name(failure.kind)), message(failure),
                    rfc3339_now());
    update_status();
    return feed(JobEvent::RestartGranted);
  }
  const auto reason = std::get<GiveUp>(decision).reason;
  events_.write("attempt-failed", {{"attempt", attempt_},
                                   {"error", error_to_json(failure)},
                                   {"decision", "give-up"},
                                   {"reason", reason_name(reason)}});
  if (config_.restart.max_restarts > 0 && reason != GiveUpReason::BudgetSpent)
    std::fprintf(stderr, "mpilaunch: not restarting: %s\n",
                 reason == GiveUpReason::NotRetryable
                     ? "this failure cannot succeed on a retry"
                     : "the same failure repeated after short runs");
  feed(JobEvent::RestartDenied);
}

void Supervisor::start_backoff() {
  ++attempt_;
  nonzero_exits_.clear();  // the job's end reports its last attempt
  for (int n = 0; n < static_cast<int>(links_.size()); ++n)
    if (!links_[static_cast<std::size_t>(n)] || links_[static_cast<std::size_t>(n)]->closed)
      start_agent(n);
  backoff_timer_.expires_at(next_start_);
  backoff_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) feed(JobEvent::BackoffElapsed);
  });
}

}  // namespace mpilaunch::launcher
