#include "launcher/supervisor.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/exit_codes.hpp"
#include "common/rank_exit.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::launcher {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

constexpr std::int32_t kPmixErrLostConnection = -61;  // PMIX_ERR_LOST_CONNECTION
constexpr auto kShutdownGrace = std::chrono::seconds(5);

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

}  // namespace

/// One agent's stream and what the supervisor knows of it.
class Supervisor::Link final : public FrameSink {
 public:
  Link(Supervisor& owner, int node, HostEntry host, AgentProcess process)
      : owner_(owner),
        node(node),
        host(std::move(host)),
        pid(process.pid),
        stream(owner.io_, process.fd, process.fd, this->host.name) {}
  void on_hello(const handshake::Hello&) override { hello_seen = true; }
  void on_message(protocol::Envelope envelope) override {
    owner_.on_link_message(*this, std::move(envelope));
  }
  void on_closed(std::optional<Error> why) override {
    owner_.on_link_closed(*this, std::move(why));
  }

  Supervisor& owner_;
  int node;
  HostEntry host;
  pid_t pid;
  FrameStream stream;
  bool hello_seen = false;
  bool ready = false;
  bool bye = false;
  bool closed = false;
};

Supervisor::Supervisor(asio::io_context& io, JobConfig config, AgentStarter& starter,
                       EventLog& events, OutputForwarder& output)
    : io_(io),
      config_(std::move(config)),
      starter_(starter),
      events_(events),
      output_(output),
      relay_(config_.plan.map),
      signals_(io, SIGINT, SIGTERM, SIGHUP),
      kill_timer_(io),
      job_timer_(io),
      start_timer_(io),
      shutdown_timer_(io) {
  signals_.add(SIGUSR1);
  signals_.add(SIGUSR2);
  ranks_.resize(static_cast<std::size_t>(config_.plan.map.size()));
}

Supervisor::~Supervisor() = default;

int Supervisor::run() {
  nlohmann::json nodes = nlohmann::json::array();
  for (const HostEntry& h : config_.plan.nodes) nodes.push_back(h.name);
  events_.write("job-start", {{"job", config_.job_id},
                              {"np", config_.plan.map.size()},
                              {"nodes", nodes},
                              {"argv", config_.plan.argv},
                              {"version", MPILAUNCH_VERSION}});
  wait_for_signals();
  if (config_.timeout_seconds) {
    job_timer_.expires_after(seconds(*config_.timeout_seconds));
    job_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      fail(Error{.kind = ErrorKind::Timeout,
                 .phase = "job",
                 .detail = fmt::format("--timeout {} s", *config_.timeout_seconds)},
           JobEvent::TimedOut);
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
      return;  // restarts: see the restart policy
    case Action::ReportSuccess:
    case Action::ReportFailure:
      return finish();
  }
}

void Supervisor::start_agents() {
  for (int n = 0; n < config_.plan.map.node_count(); ++n) {
    const HostEntry& host = config_.plan.nodes[static_cast<std::size_t>(n)];
    auto process = starter_.start(host);
    if (!process) return fail(process.error(), JobEvent::AgentFailed);
    links_.push_back(std::make_unique<Link>(*this, n, host, process.value()));
    Link& link = *links_.back();
    asio::co_spawn(io_, link.stream.read_loop(link, true), asio::detached);
    link.stream.send(protocol::LauncherHello{MPILAUNCH_VERSION, config_.token,
                                             static_cast<std::uint32_t>(n), host.name});
  }
  start_timer_.expires_after(seconds(config_.start_timeout_seconds));
  start_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || state_ != JobState::StartingAgents) return;
    for (const auto& link : links_)
      if (!link->ready)
        return fail(
            Error{.kind = ErrorKind::AgentStartFailed,
                  .host = link->host.name,
                  .phase = "handshake",
                  .detail = fmt::format("no answer within {} s", config_.start_timeout_seconds)},
            JobEvent::AgentFailed);
  });
}

bool Supervisor::all_agents_ready() const {
  for (const auto& link : links_)
    if (!link->ready) return false;
  return static_cast<int>(links_.size()) == config_.plan.map.node_count();
}

void Supervisor::spawn_ranks() {
  start_timer_.cancel();
  const LaunchPlan& plan = config_.plan;
  protocol::JobSpec spec;
  spec.job_id = config_.job_id;
  spec.nspace = fmt::format("mpilaunch-{}-{}", config_.job_id, attempt_);
  spec.attempt = attempt_;
  for (int n = 0; n < plan.map.node_count(); ++n) {
    protocol::NodeRanks node{plan.map.node_name(n), {}};
    for (int r : plan.map.ranks_on(n)) node.ranks.push_back(static_cast<std::uint32_t>(r));
    spec.nodes.push_back(std::move(node));
  }
  spec.argv = plan.argv;
  spec.env = plan.env;
  spec.wdir = plan.wdir;
  spec.tmpdir = config_.tmpdir;
  spec.virtual_nodes = plan.launcher == LauncherKind::Local && plan.map.node_count() > 1;
  for (RankStatus& r : ranks_) r.phase = RankPhase::Spawning;
  for (const auto& link : links_) {
    link->stream.send(spec);
    link->stream.send(protocol::Spawn{spec.nspace});
  }
}

void Supervisor::fail(Error error, JobEvent event) {
  if (!error_) {
    error_ = error;
    events_.write("job-failed", {{"error", error_to_json(error)}, {"attempt", attempt_}});
  } else {
    events_.write("secondary-error", {{"error", error_to_json(error)}, {"attempt", attempt_}});
  }
  feed(event);
}

void Supervisor::kill_ranks(int signal) {
  for (const auto& link : links_)
    if (!link->closed) link->stream.send(protocol::Kill{signal});
}

void Supervisor::tear_down() {
  start_timer_.cancel();
  for (const auto& release : relay_.fail_all(kPmixErrLostConnection))
    for (int node : release.nodes) send_to(node, release.message);
  kill_ranks(SIGTERM);
  kill_timer_.expires_after(seconds(config_.kill_grace_seconds));
  kill_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) kill_ranks(SIGKILL);
  });
  check_ranks();
}

void Supervisor::check_ranks() {
  for (const RankStatus& r : ranks_)
    if (r.phase == RankPhase::Spawning || r.phase == RankPhase::Running) {
      // Still waiting; but a job whose agents all failed to start has nothing to wait for.
      if (state_ != JobState::TearingDown || all_agents_ready()) return;
      bool any_live = false;
      for (const auto& link : links_) any_live = any_live || (link->ready && !link->closed);
      if (any_live) return;
      break;
    }
  if (state_ == JobState::TearingDown) {
    kill_timer_.cancel();
    return feed(JobEvent::RestartDenied);
  }
  if ((state_ == JobState::Running || state_ == JobState::SpawningRanks) && !error_) {
    for (const RankStatus& r : ranks_)
      if (r.phase != RankPhase::Ended) return;
    feed(JobEvent::AllRanksSucceeded);
  }
}

void Supervisor::send_to(int node, const protocol::Message& m, std::uint32_t id,
                         std::uint32_t refers_to) {
  Link& link = *links_.at(static_cast<std::size_t>(node));
  if (!link.closed) link.stream.send(m, id, refers_to);
}

void Supervisor::on_link_message(Link& link, protocol::Envelope envelope) {
  using namespace protocol;
  const std::uint32_t id = envelope.id;
  const std::uint32_t refers_to = envelope.refers_to;
  std::visit(Overloaded{
                 [&](const AgentHello& m) {
                   if (m.agent_version != MPILAUNCH_VERSION)
                     return fail(Error{.kind = ErrorKind::AgentStartFailed,
                                       .host = link.host.name,
                                       .phase = "version",
                                       .detail = fmt::format("agent {} answered, launcher is {}",
                                                             m.agent_version, MPILAUNCH_VERSION)},
                                 JobEvent::AgentFailed);
                   link.ready = true;
                   events_.write("agent-up", {{"host", link.host.name},
                                              {"node", link.node},
                                              {"pid", m.pid},
                                              {"os_hostname", m.os_hostname}});
                   if (all_agents_ready()) feed(JobEvent::AgentsReady);
                 },
                 [&](const RankStarted& m) {
                   if (m.rank >= ranks_.size()) return;
                   ranks_[m.rank] = RankStatus{RankPhase::Running, m.pid};
                   events_.write("rank-start",
                                 {{"rank", m.rank}, {"host", link.host.name}, {"pid", m.pid}});
                   for (const RankStatus& r : ranks_)
                     if (r.phase == RankPhase::Spawning) return;
                   feed(JobEvent::RanksStarted);
                 },
                 [&](const RankOutput& m) { output_.write(m.rank, m.stream, m.data); },
                 [&](const RankExited& m) { on_rank_exited(link, m); },
                 [&](const SpawnFailed& m) {
                   if (m.error.rank && *m.error.rank >= 0 &&
                       static_cast<std::size_t>(*m.error.rank) < ranks_.size())
                     ranks_[static_cast<std::size_t>(*m.error.rank)].phase = RankPhase::Ended;
                   fail(m.error, JobEvent::RankFailed);
                   check_ranks();
                 },
                 [&](const FenceContribute& m) { on_fence(link, m); },
                 [&](const DmodexRequest& m) { on_dmodex_request(link, id, m); },
                 [&](const DmodexReply& m) { on_dmodex_reply(refers_to, m); },
                 [&](const AgentError& m) { fail(m.error, JobEvent::AgentFailed); },
                 [&](const AgentBye&) { link.bye = true; },
                 [&](const auto&) {
                   fail(Error{.kind = ErrorKind::MalformedFrame,
                              .host = link.host.name,
                              .detail = "the agent sent a launcher-only message"},
                        JobEvent::AgentFailed);
                 },
             },
             envelope.message);
}

void Supervisor::on_rank_exited(Link& link, const protocol::RankExited& m) {
  if (m.rank >= ranks_.size()) return;
  ranks_[m.rank].phase = RankPhase::Ended;
  output_.rank_done(m.rank);
  nlohmann::json fields = {{"rank", m.rank},
                           {"host", link.host.name},
                           {"pid", m.pid},
                           {"connected", m.connected},
                           {"finalized", m.finalized}};
  if (const auto* exited = std::get_if<Exited>(&m.reason)) {
    fields["exit_code"] = exited->code;
  } else {
    fields["signal"] = std::get<Signaled>(m.reason).signal;
  }
  if (m.abort_status) fields["abort_status"] = *m.abort_status;
  events_.write("rank-exit", std::move(fields));
  // Ranks killed by our own teardown are consequences, not causes.
  if (auto error = classify_rank_exit(m, link.host.name);
      error && state_ != JobState::TearingDown) {
    error->executable = config_.plan.argv.empty() ? "" : config_.plan.argv[0];
    fail(*error, JobEvent::RankFailed);
  }
  check_ranks();
}

void Supervisor::on_fence(Link& link, const protocol::FenceContribute& m) {
  auto release = relay_.contribute(link.node, m);
  if (!release) {
    Error e = release.error();
    e.host = link.host.name;
    return fail(e, JobEvent::AgentFailed);
  }
  if (!release.value()) return;
  for (int node : release.value()->nodes) send_to(node, release.value()->message);
}

void Supervisor::on_dmodex_request(Link& link, std::uint32_t id, const protocol::DmodexRequest& m) {
  if (m.rank >= static_cast<std::uint32_t>(config_.plan.map.size())) {
    link.stream.send(protocol::DmodexReply{-46 /* PMIX_ERR_NOT_FOUND */, {}}, 0, id);
    return;
  }
  const std::uint32_t ours = next_id_++;
  dmodex_[ours] = {link.node, id};
  send_to(config_.plan.map.node_of(static_cast<int>(m.rank)), m, ours);
}

void Supervisor::on_dmodex_reply(std::uint32_t refers_to, const protocol::DmodexReply& m) {
  const auto it = dmodex_.find(refers_to);
  if (it == dmodex_.end()) return;
  send_to(it->second.first, m, 0, it->second.second);
  dmodex_.erase(it);
}

void Supervisor::on_link_closed(Link& link, std::optional<Error> why) {
  if (link.closed) return;
  link.closed = true;
  link.stream.close();
  std::string status;
  if (link.pid > 0) {
    // The stream is gone, so the agent is useless: make sure it is gone too, then reap it.
    int wstatus = 0;
    if (::waitpid(link.pid, &wstatus, WNOHANG) == 0) ::kill(link.pid, SIGKILL);
    if (::waitpid(link.pid, &wstatus, WNOHANG) == link.pid ||
        ::waitpid(link.pid, &wstatus, 0) == link.pid) {
      link.pid = -1;
      status = WIFSIGNALED(wstatus)
                   ? fmt::format("the agent was killed by {}", signal_name(WTERMSIG(wstatus)))
                   : fmt::format("the agent exited with status {}", WEXITSTATUS(wstatus));
    }
  }
  if (!link.bye && !done_) {
    for (int r : config_.plan.map.ranks_on(link.node))
      ranks_[static_cast<std::size_t>(r)].phase = RankPhase::Ended;
    Error e = why.value_or(Error{});
    e.host = link.host.name;
    if (e.detail.empty()) e.detail = status.empty() ? "the connection closed" : status;
    if (!link.ready) {
      e.phase = e.kind == ErrorKind::ProtocolMismatch ? "version"
                                                      : (link.hello_seen ? "handshake" : "exec");
      e.kind = ErrorKind::AgentStartFailed;
    } else if (e.kind != ErrorKind::MalformedFrame) {
      e.kind = ErrorKind::AgentLost;
    }
    if (!finishing_) fail(e, JobEvent::AgentFailed);
  }
  if (finishing_) {
    for (const auto& l : links_)
      if (!l->closed) return;
    return complete();
  }
  check_ranks();
}

void Supervisor::finish() {
  finishing_ = true;
  kill_timer_.cancel();
  job_timer_.cancel();
  start_timer_.cancel();
  bool any_open = false;
  for (const auto& link : links_)
    if (!link->closed) {
      link->stream.send(protocol::Shutdown{});
      any_open = true;
    }
  if (!any_open) return complete();
  shutdown_timer_.expires_after(kShutdownGrace);
  shutdown_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    for (const auto& link : links_)
      if (!link->closed && link->pid > 0) ::kill(link->pid, SIGKILL);
  });
}

void Supervisor::complete() {
  if (done_) return;
  done_ = true;
  shutdown_timer_.cancel();
  signals_.cancel();
  output_.flush_all();
  std::error_code ec;
  std::filesystem::remove_all(config_.tmpdir, ec);
  exit_code_ = error_ ? exit_codes::for_error(*error_) : exit_codes::kSuccess;
  if (error_) {
    const std::string text = render_human(*error_);
    std::fputs(text.c_str(), stderr);
  }
  events_.write("job-end", {{"exit_code", exit_code_},
                            {"status", error_ ? "failed" : "succeeded"},
                            {"attempts", attempt_}});
  io_.stop();
}

void Supervisor::wait_for_signals() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    if (signal == SIGUSR1 || signal == SIGUSR2) {
      kill_ranks(signal);
    } else if (++interrupts_ == 1) {
      fail(Error{.kind = ErrorKind::Interrupted, .signal = signal}, JobEvent::Interrupted);
    } else {
      kill_ranks(SIGKILL);  // a second interrupt: no more grace
    }
    wait_for_signals();
  });
}

}  // namespace mpilaunch::launcher
