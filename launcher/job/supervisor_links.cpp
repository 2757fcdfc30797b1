// Supervisor: what arrives from the agents (messages and closed links), and what goes back.

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "common/text_format.hpp"

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/rank_exit.hpp"
#include "common/stream_channel.hpp"
#include "launcher/diagnose/rank_diagnosis.hpp"
#include "launcher/job/supervisor_link.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::launcher {
namespace {
constexpr std::int32_t kPmixErrNotFound = -46;  // PMIX_ERR_NOT_FOUND
}  // namespace

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
                     return fail(
                         Error{.kind = ErrorKind::AgentStartFailed,
                               .host = link.host.name,
                               .phase = "version",
                               .detail = mpilaunch::format("agent {} answered, launcher is {}",
                                                           m.agent_version, MPILAUNCH_VERSION)},
                         JobEvent::AgentFailed);
                   link.ready = true;
                   link.transport_facts = m.transport_facts;
                   link.topology = m.topology;
                   link.os_hostname = m.os_hostname;
                   link.agent_pid = m.pid;
                   nlohmann::json up = {{"host", link.host.name},
                                        {"node", link.node},
                                        {"pid", m.pid},
                                        {"os_hostname", m.os_hostname}};
                   if (m.login_ms >= 0) up["login_ms"] = m.login_ms;
                   events_.write("agent-up", std::move(up));
                   for (StarterEvent& e : starter_.take_events(link.host)) {
                     nlohmann::json fields = {{"host", link.host.name}};
                     for (auto& [k, v] : e.fields) fields[k] = std::move(v);
                     events_.write(e.name, std::move(fields));
                   }
                   if (state_ == JobState::StartingAgents) show_progress();
                   if (!all_agents_ready()) return;
                   if (state_ == JobState::StartingAgents) return feed(JobEvent::AgentsReady);
                   if (spawn_when_ready_ && state_ == JobState::SpawningRanks) spawn_ranks();
                 },
                 [&](const RankStarted& m) {
                   if (m.rank >= ranks_.size()) return;
                   // The agent queued the pipes before this frame: they are on the channel.
                   if (m.streams_passed && !streams_.has(m.rank) &&
                       (!take_stream_records(link) || !streams_.has(m.rank)))
                     return fail(Error{.kind = ErrorKind::MalformedFrame,
                                       .host = link.host.name,
                                       .rank = static_cast<int>(m.rank),
                                       .detail = "the agent said it passed the rank's output "
                                                 "pipes, but none came on the stream channel"},
                                 JobEvent::AgentFailed);
                   ranks_[m.rank] = RankStatus{RankPhase::Running, m.pid};
                   RankCounts& counts = status_.nodes[link.host.name];
                   --counts.pending;
                   ++counts.running;
                   if (const ChildJobRecord* child = child_of(m.rank)) {
                     on_child_started(*child, m.rank, link.node, m.pid);
                     events_.write("rank-start", {{"rank", m.rank - child->first_index},
                                                  {"job", child->job_number},
                                                  {"nspace", child->nspace},
                                                  {"host", link.host.name},
                                                  {"pid", m.pid},
                                                  {"attempt", attempt_}});
                     return update_status();
                   }
                   events_.write("rank-start", {{"rank", m.rank},
                                                {"host", link.host.name},
                                                {"pid", m.pid},
                                                {"attempt", attempt_}});
                   for (const RankStatus& r : ranks_)
                     if (r.phase == RankPhase::Spawning) return;
                   status_.move_to(JobPhase::Running, "RanksStarted", "every rank is running",
                                   rfc3339_now());
                   update_status();
                   feed(JobEvent::RanksStarted);
                   on_ranks_running();
                 },
                 [&](const RankOutput& m) { on_rank_output(m.rank, m.stream, m.data); },
                 [&](const RankConnected& m) { on_rank_connected(m.rank); },
                 [&](const OutputHeld& m) { on_output_held(m.rank, m.stdout_held, m.stderr_held); },
                 [&](const SpawnRequest& m) { on_spawn_request(link, id, m); },
                 [&](const StdinCredit& m) {
                   if (stdin_) stdin_->credit(link.node, m.bytes);
                 },
                 [&](const RankExited& m) {
                   // Output the rank wrote comes first: its pipes, when the launcher holds
                   // them, are read to their end (or a grace) before its end counts.
                   streams_.after_drain(m.rank, [this, l = &link, m] { on_rank_exited(*l, m); });
                 },
                 [&](const SpawnFailed& m) {
                   Error error = m.error;
                   if (m.error.rank && *m.error.rank >= 0 &&
                       static_cast<std::size_t>(*m.error.rank) < ranks_.size()) {
                     const auto index = static_cast<std::uint32_t>(*m.error.rank);
                     ranks_[index].phase = RankPhase::Ended;
                     RankCounts& counts = status_.nodes[link.host.name];
                     --counts.pending;
                     ++counts.failed;
                     name_child(error, index);  // a spawned process: its job, rank, program
                   }
                   fail(std::move(error), JobEvent::RankFailed);
                   check_ranks();
                 },
                 [&](const FenceContribute& m) { on_fence(link, m); },
                 [&](const DmodexRequest& m) { on_dmodex_request(link, id, m); },
                 [&](const DmodexReply& m) { on_dmodex_reply(refers_to, m); },
                 [&](const NamePublish& m) { on_name_publish(link, id, m); },
                 [&](const NameLookup& m) { on_name_lookup(link, id, m); },
                 [&](const NameUnpublish& m) { on_name_unpublish(link, id, m); },
                 [&](const AgentError& m) { fail(m.error, JobEvent::AgentFailed); },
                 [&](const NodeStacks& m) { on_node_stacks(link, refers_to, m); },
                 [&](const AgentBye&) {
                   // The agent's last word, sent once its ranks are reaped and its files are
                   // gone: the link ends here, without waiting for the agent's own teardown
                   // (libraries, destructors) to close the stream; srun's wait for the close.
                   link.bye = true;
                   if (starter_.link_ends_at_bye()) on_link_closed(link, std::nullopt);
                 },
                 [&](const auto&) {
                   fail(Error{.kind = ErrorKind::MalformedFrame,
                              .host = link.host.name,
                              .detail = "the agent sent a launcher-only message"},
                        JobEvent::AgentFailed);
                 },
             },
             envelope.message);
}

void Supervisor::on_rank_output(std::uint32_t rank, protocol::Stream stream,
                                std::span<const std::byte> data) {
  output_.write(rank, stream, data);
  if (stream == protocol::Stream::Stderr)
    keep_tail(stderr_tails_[rank],
              std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

void Supervisor::watch_stream_channel(Link& link) {
  link.channel->async_wait(asio::posix::stream_descriptor::wait_read,
                           [this, l = &link](const boost::system::error_code& ec) {
                             if (ec || !l->channel || l->closed) return;
                             if (take_stream_records(*l)) watch_stream_channel(*l);
                           });
}

bool Supervisor::take_stream_records(Link& link) {
  if (!link.channel) return false;
  for (;;) {
    auto record = stream_channel::receive(link.channel->native_handle());
    if (!record) {
      // The agent closed its end (it forwards output itself from now on) or sent garbage:
      // either way nothing more comes on it.
      boost::system::error_code ignored;
      link.channel->close(ignored);
      link.channel.reset();
      return false;
    }
    if (!record.value()) return true;
    const stream_channel::RankStreams& r = *record.value();
    if (r.attempt == attempt_ && r.rank < ranks_.size()) {
      streams_.adopt(r.rank, r.stdout_fd, r.stderr_fd);
    } else {
      ::close(r.stdout_fd);
      ::close(r.stderr_fd);
    }
  }
}

void Supervisor::on_rank_exited(Link& link, const protocol::RankExited& m) {
  if (m.rank >= ranks_.size()) return;
  ranks_[m.rank].phase = RankPhase::Ended;
  output_.rank_done(m.rank);
  const ChildJobRecord* child = child_of(m.rank);
  // The process's names of persistence proc go with it (the rank in its own namespace).
  if (child != nullptr)
    names_.proc_ended(child->nspace, m.rank - child->first_index);
  else
    names_.proc_ended(mpilaunch::format("mpilaunch-{}-{}", config_.job_id, attempt_), m.rank);
  nlohmann::json fields = {
      {"rank", m.rank},           {"host", link.host.name},   {"pid", m.pid},
      {"connected", m.connected}, {"finalized", m.finalized}, {"attempt", attempt_}};
  if (child != nullptr) {
    fields["rank"] = m.rank - child->first_index;
    fields["job"] = child->job_number;
    fields["nspace"] = child->nspace;
  }
  if (const auto* exited = std::get_if<Exited>(&m.reason)) {
    fields["exit_code"] = exited->code;
  } else {
    fields["signal"] = std::get<Signaled>(m.reason).signal;
  }
  if (m.abort_status) fields["abort_status"] = *m.abort_status;
  events_.write("rank-exit", std::move(fields));
  auto error = classify_rank_exit(m, link.host.name);
  if (!error && child == nullptr)
    error = singleton_error(m, link.host.name, config_.plan.pmi, initial_size());
  if (!error && child != nullptr && !m.connected && !m.abort_status)
    // Its parent's MPI_Comm_spawn waits for it to connect (mpirun 4.1.4 waits for ever).
    error = Error{.kind = ErrorKind::PmixError,
                  .host = link.host.name,
                  .rank = static_cast<int>(m.rank),
                  .pid = m.pid,
                  .phase = "startup",
                  .detail =
                      "exit status 0, never having reached its node's server (no "
                      "MPI_Init, or its MPI found no server and ran it as a singleton)"};
  RankCounts& counts = status_.nodes[link.host.name];
  --counts.running;
  ++(error ? counts.failed : counts.succeeded);
  update_status();
  if (error && error->kind == ErrorKind::RankExitNonzero && child == nullptr &&
      !config_.plan.abort_on_nonzero) {
    // orte_abort_on_non_zero_status = 0: mpirun 4.1.4 ends only this rank, the others run on
    // and the job exits 0 (measured). The rank-exit event above keeps its code; the job's end
    // names it. It is never the job's failure, nor displaces one (a peer's MPI_Abort after it
    // is: mpirun 4.1.4 exits with the abort's code); during a teardown it is named only when
    // it ended before the teardown reached it (else the teardown may have caused it).
    if (state_ != JobState::TearingDown || m.ended_before_kill) {
      const PlanApp& app = app_of_rank(config_.plan, static_cast<int>(m.rank));
      error->executable = app.argv.empty() ? "" : app.argv[0];
      nonzero_exits_.push_back(*error);
    }
    error.reset();
  }
  if (error) {
    if (child != nullptr) {
      name_child(*error, m.rank, !m.connected);
    } else {
      const PlanApp& app = app_of_rank(config_.plan, static_cast<int>(m.rank));
      error->executable = app.argv.empty() ? "" : app.argv[0];
    }
    Error diagnosed = diagnose_rank_failure(*error, stderr_tails_[m.rank]);
    if (state_ != JobState::TearingDown) {
      // The job's first failure: the rank's peers on its node may hold the words (Open MPI 5
      // prints a help text once for all of them).
      fail(diagnose_with_peers(*error, stderr_tails_[m.rank], peers_stderr(link.node, m.rank)),
           JobEvent::RankFailed, m);
    } else if (error_rank_end_ && displaces(m, *error_rank_end_)) {
      revise_root_cause(std::move(diagnosed), m);
    } else if (error_ && explains_failure(*error_, diagnosed)) {
      // This rank's words name the MPI_Init failure that the first rank only aborted with.
      revise_root_cause(
          diagnose_with_peers(*error, stderr_tails_[m.rank], peers_stderr(link.node, m.rank)), m);
    }
    // Any other failure during teardown is a consequence of it (our SIGTERM, a lost peer).
  }
  check_ranks();
}

std::string Supervisor::peers_stderr(int node, std::uint32_t rank) const {
  std::string text;
  if (rank >= initial_size()) return text;  // a spawned process: its own words only
  for (const auto& [peer, tail] : stderr_tails_) {
    if (peer == rank || peer >= initial_size() || tail.empty() ||
        config_.plan.map.node_of(static_cast<int>(peer)) != node)
      continue;
    if (text.size() + tail.size() + 1 > kPeersTailBytes) break;
    text += tail;
    if (text.back() != '\n') text += '\n';
  }
  return text;
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
  const int node = node_of(m.nspace, m.rank);
  if (node < 0) {
    link.stream.send(protocol::DmodexReply{kPmixErrNotFound, {}}, 0, id);
    return;
  }
  const std::uint32_t ours = next_id_++;
  dmodex_[ours] = {link.node, id};
  send_to(node, m, ours);
}

void Supervisor::on_dmodex_reply(std::uint32_t refers_to, const protocol::DmodexReply& m) {
  const auto it = dmodex_.find(refers_to);
  if (it == dmodex_.end()) return;
  send_to(it->second.first, m, 0, it->second.second);
  dmodex_.erase(it);
}

bool Supervisor::ranks_killed_with(const Link& link) const {
  return (state_ == JobState::TearingDown || finishing_) && error_ && error_rank_end_ &&
         killed_from_outside(*error_rank_end_) && error_->host == link.host.name;
}

void Supervisor::on_link_closed(Link& link, std::optional<Error> why) {
  if (link.closed) return;
  link.closed = true;
  if (stdin_) stdin_->node_lost(link.node);
  names_.node_lost(link.node);
  link.stream.close();
  if (link.channel) {
    boost::system::error_code ignored;
    link.channel->close(ignored);
  }
  std::string status;
  std::optional<int> crashed_with;  // a fault of the agent's own (never our SIGKILL)
  if (link.pid > 0 && link.bye) {
    // A normal end: the agent has said bye and has nothing left to do that is worth waiting
    // for (its own PMIx teardown). Stop it now, reap it at the end with the others: waiting
    // here for each exit in turn held the loop, and so the next agent's stop, for the previous
    // agent's teardown in the kernel (≈ 50 ms for 32 agents on 2 CPUs).
    if (reaped_.erase(link.pid) == 0) {  // not reaped yet, so the pid is still this agent's
      ::kill(link.pid, SIGKILL);
      stopped_.push_back(link.pid);
    }
    link.pid = -1;
  } else if (link.pid > 0) {
    // The stream is gone, so the agent is useless: make sure it is gone too, then reap it.
    auto wstatus = wait_status_of(link.pid, true);
    if (!wstatus) wstatus = wait_status_of(link.pid, false);
    link.pid = -1;
    if (wstatus) {
      status =
          WIFSIGNALED(*wstatus)
              ? mpilaunch::format("the agent was killed by {}", signal_name(WTERMSIG(*wstatus)))
              : mpilaunch::format("the agent exited with status {}", WEXITSTATUS(*wstatus));
      if (WIFSIGNALED(*wstatus) && is_crash_signal(WTERMSIG(*wstatus)))
        crashed_with = WTERMSIG(*wstatus);
    }
  }
  if (!link.bye && !done_) {
    for (const std::uint32_t r : processes_on(link.node)) {
      RankStatus& rank = ranks_[r];
      if (rank.phase == RankPhase::Spawning || rank.phase == RankPhase::Running)
        rank.phase = RankPhase::Ended;
    }
    Error e = why.value_or(Error{});
    if (link.unresponsive) {
      // Closed by us: the agent did not answer the teardown. Said on stderr at once, since the
      // attempt's error (what started the teardown) stays the cause.
      e.host = link.host.name;
      std::fprintf(stderr, "mpilaunch: %s\n  hint: %s\n", message(e).c_str(), hint(e).c_str());
      if (!finishing_) fail(e, JobEvent::AgentFailed);
      return check_ranks();
    }
    // EOF or a reset says little; the starter may know why (ssh: phase, remote exit, stderr).
    // What the agent itself sent wrong (a bad frame, another version) stays the cause.
    bool starter_knows = false;
    if (!why ||
        (why->kind != ErrorKind::MalformedFrame && why->kind != ErrorKind::ProtocolMismatch))
      if (auto known = starter_.failure_for(link.host)) {
        e = std::move(*known);
        starter_knows = true;
      }
    e.host = link.host.name;
    if (e.detail.empty()) e.detail = status.empty() ? "the connection closed" : status;
    if (!link.ready) {
      if (e.phase.empty())
        e.phase = e.kind == ErrorKind::ProtocolMismatch ? "version"
                                                        : (link.hello_seen ? "handshake" : "exec");
      if (e.kind != ErrorKind::UnknownHost && e.kind != ErrorKind::Timeout)
        e.kind = ErrorKind::AgentStartFailed;
    } else if (e.kind != ErrorKind::MalformedFrame && e.kind != ErrorKind::Timeout) {
      // A running agent's end is agent-lost, unless its starter knows a time limit ended it.
      e.kind = ErrorKind::AgentLost;
      e.phase.clear();
      if (!e.signal && !starter_knows) e.signal = crashed_with;  // picks the crash's hint
    }
    // Killed from outside together with its ranks (Slurm ending the step: SIGTERM to every
    // process of it): a rank's SIGTERM may be reported before its agent is lost, but the
    // agent's loss, with what its starter knows of it, says why — also when the teardown is
    // over and the job is finishing: the error is printed only once every link has closed.
    const bool same_kill = starter_knows && ranks_killed_with(link) &&
                           (e.kind == ErrorKind::AgentLost || e.kind == ErrorKind::Timeout);
    if (same_kill)
      revise_root_cause(std::move(e), std::nullopt);
    else if (!finishing_)
      fail(e, JobEvent::AgentFailed);
  } else if (link.bye && !done_ && ranks_killed_with(link)) {
    // The same kill, when the agent outlived its ranks long enough to say bye (Slurm's SIGTERM
    // reached it after theirs): a rank's SIGTERM we did not send, and a starter that knows the
    // step was cancelled or timed out, say why.
    if (auto known = starter_.failure_for(link.host)) {
      if (known->kind == ErrorKind::AgentStartFailed && known->phase == "srun") {  // Terminated
        known->kind = ErrorKind::AgentLost;
        known->phase.clear();
      }
      known->host = link.host.name;
      if (known->kind == ErrorKind::AgentLost || known->kind == ErrorKind::Timeout)
        revise_root_cause(std::move(*known), std::nullopt);
    }
  }
  if (finishing_) {
    for (const auto& l : links_)
      if (l && !l->closed) return;
    return complete();
  }
  check_ranks();
}

}  // namespace mpilaunch::launcher
