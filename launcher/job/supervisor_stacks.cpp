// Supervisor: every rank's stack, collected by the agents and merged (--get-stack-traces).
#include <cstdio>
#include <cstdlib>

#include "common/text_format.hpp"

#include "launcher/job/stacks_request.hpp"
#include "launcher/job/supervisor.hpp"
#include "launcher/job/supervisor_link.hpp"
#include "launcher/stacks/stack_merge.hpp"
#include "launcher/stacks/straggler.hpp"

namespace mpilaunch::launcher {
namespace {

// Each agent's tool gets this long for all its ranks; an agent that has not answered by then
// and a grace more is reported for each of its running ranks.
constexpr std::chrono::milliseconds kStacksDeadline{10'000};
constexpr std::chrono::milliseconds kStacksGrace{5'000};

double seconds_of(std::chrono::milliseconds d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

void Supervisor::on_job_timeout() {
  if (config_.report_state_on_timeout) report_state();
  Error e{.kind = ErrorKind::Timeout,
          .phase = "job",
          .detail = mpilaunch::format("--timeout {} s", *config_.timeout_seconds)};
  if (!config_.get_stack_traces ||
      (state_ != JobState::Running && state_ != JobState::SpawningRanks))
    return fail(e, JobEvent::TimedOut);
  std::fprintf(stderr,
               "mpilaunch: the job time limit was reached; collecting every rank's stack (at "
               "most %g s)...\n",
               seconds_of(kStacksDeadline));
  collect_stacks([this, e](const std::vector<ProcessStack>& stacks) mutable {
    if (state_ != JobState::Running && state_ != JobState::SpawningRanks) return;  // ended
    const std::string tree = render_stack_tree(stacks);
    std::fwrite(tree.data(), 1, tree.size(), stderr);
    nlohmann::json fields = stacks_to_json(stacks);
    fields["attempt"] = attempt_;
    fields["reason"] = "timeout";
    events_.write("stacks", std::move(fields));
    name_stragglers(e, stacks);
    fail(e, JobEvent::TimedOut);
  });
}

void Supervisor::collect_stacks(StacksDone done) {
  if (stacks_) {  // one collection at a time: this one gets its answer too
    stacks_->done.push_back(std::move(done));
    return;
  }
  stacks_.emplace();
  stacks_->done.push_back(std::move(done));
  for (const auto& link : links_) {
    if (!link || link->closed || !link->ready) continue;
    const std::uint32_t id = next_id_++;
    stacks_->waiting[id] = link->node;
    link->stream.send(protocol::CollectStacks{static_cast<std::uint32_t>(kStacksDeadline.count())},
                      id);
  }
  if (stacks_->waiting.empty()) return finish_stacks();
  stacks_timer_.expires_after(kStacksDeadline + kStacksGrace);
  stacks_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) finish_stacks();
  });
}

void Supervisor::on_node_stacks(Link& link, std::uint32_t refers_to,
                                const protocol::NodeStacks& m) {
  if (!stacks_ || stacks_->waiting.erase(refers_to) == 0) return;  // late: already reported
  for (const protocol::RankStack& s : m.stacks) {
    ProcessStack p =
        process_stack(static_cast<int>(s.rank), link.host.name, s.pid, s.tool, s.text, s.note);
    label_process(p, s.rank);
    stacks_->stacks.push_back(std::move(p));
  }
  if (stacks_->waiting.empty()) finish_stacks();
}

void Supervisor::label_process(ProcessStack& stack, std::uint32_t index) const {
  stack.rank = static_cast<int>(index);
  if (const ChildJobRecord* job = child_of(index)) {
    stack.job = static_cast<int>(job->job_number);
    stack.rank = static_cast<int>(index - job->first_index);
  }
}

void Supervisor::finish_stacks() {
  if (!stacks_) return;
  stacks_timer_.cancel();
  StacksRequest request = std::move(*stacks_);
  stacks_.reset();
  for (const auto& [id, node] : request.waiting) {
    // Every process there: the initial ranks and those spawned onto the node.
    for (const std::uint32_t index : processes_on(node)) {
      const RankStatus& s = ranks_[index];
      if (s.phase != RankPhase::Running && s.phase != RankPhase::Spawning) continue;
      ProcessStack p;
      label_process(p, index);
      p.host = host_name(node);
      p.pid = s.pid;
      p.note = mpilaunch::format("its agent did not answer within {:g} s",
                                 seconds_of(kStacksDeadline + kStacksGrace));
      p.reason = StackReason::AgentSilent;
      request.stacks.push_back(std::move(p));
    }
  }
  for (StacksDone& done : request.done) done(request.stacks);
}

void Supervisor::open_control() {
  control_ = std::make_unique<ControlSocket>(
      io_, [this](const std::string& request, ControlSocket::Respond respond) {
        on_control_request(request, std::move(respond));
      });
  const std::string path = mpilaunch::format("{}/{}", config_.tmpdir, kControlSocket);
  if (Status st = control_->open(path); !st && std::getenv("MPILAUNCH_DEBUG") != nullptr)
    std::fprintf(stderr, "mpilaunch: no stacks requests for this job: %s\n",
                 st.error().detail.c_str());
}

void Supervisor::on_control_request(const std::string& request, ControlSocket::Respond respond) {
  StacksReply reply{.job = config_.job_id};
  if (request != kStacksRequest) {
    reply.error = mpilaunch::format("unknown request '{}' (this launcher knows '{}')",
                                    request.substr(0, 64), kStacksRequest);
    return respond(render_reply(reply));
  }
  if (finishing_ || (state_ != JobState::Running && state_ != JobState::SpawningRanks)) {
    reply.error =
        mpilaunch::format("the job has no running ranks now (it is {})", state_name(state_));
    return respond(render_reply(reply));
  }
  collect_stacks(
      [this, reply, respond = std::move(respond)](const std::vector<ProcessStack>& stacks) mutable {
        reply.tree = render_stack_tree(stacks);
        reply.stacks = stacks_to_json(stacks);
        nlohmann::json fields = reply.stacks;
        fields["attempt"] = attempt_;
        fields["reason"] = "request";
        events_.write("stacks", std::move(fields));
        respond(render_reply(reply));
      });
}

}  // namespace mpilaunch::launcher
