// The job's name service on the supervisor's loop: requests from the agents go to the pure
// NameService (name_service.hpp); its answers go back to the agents, and one timer holds the
// earliest deadline of a waiting lookup.
#include "launcher/job/supervisor.hpp"
#include "launcher/job/supervisor_link.hpp"

namespace mpilaunch::launcher {

void Supervisor::send_name_answers(const std::vector<NameService::Answer>& answers) {
  for (const NameService::Answer& a : answers) send_to(a.node, a.reply, 0, a.id);
}

void Supervisor::on_name_publish(Link& link, std::uint32_t id, const protocol::NamePublish& m) {
  send_name_answers(names_.publish(link.node, id, m));
  arm_names_timer();
}

void Supervisor::on_name_lookup(Link& link, std::uint32_t id, const protocol::NameLookup& m) {
  if (state_ == JobState::TearingDown) {
    send_to(link.node, protocol::NameReply{protocol::NameStatus::JobEnded, {}}, 0, id);
    return;
  }
  if (auto reply = names_.lookup(link.node, id, m, clock_.now())) {
    send_to(link.node, *reply, 0, id);
    return;
  }
  arm_names_timer();
}

void Supervisor::on_name_unpublish(Link& link, std::uint32_t id, const protocol::NameUnpublish& m) {
  send_to(link.node, names_.unpublish(link.node, m), 0, id);
}

void Supervisor::arm_names_timer() {
  const auto deadline = names_.next_deadline();
  if (!deadline) {
    names_timer_.cancel();
    return;
  }
  names_timer_.expires_at(*deadline);
  names_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    send_name_answers(names_.expire(clock_.now()));
    arm_names_timer();
  });
}

void Supervisor::end_names() {
  send_name_answers(names_.end_all(protocol::NameStatus::JobEnded));
  names_timer_.cancel();
}

}  // namespace mpilaunch::launcher
