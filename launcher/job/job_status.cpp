#include "launcher/job/job_status.hpp"

#include "common/error_json.hpp"

namespace mpilaunch::launcher {

std::string_view phase_name(JobPhase phase) {
  switch (phase) {
    case JobPhase::Pending:
      return "Pending";
    case JobPhase::Running:
      return "Running";
    case JobPhase::Restarting:
      return "Restarting";
    case JobPhase::Succeeded:
      return "Succeeded";
    case JobPhase::Failed:
      return "Failed";
  }
  return "?";
}

RankCounts JobStatus::aggregate() const {
  RankCounts total;
  for (const auto& [name, c] : nodes) {
    total.pending += c.pending;
    total.running += c.running;
    total.succeeded += c.succeeded;
    total.failed += c.failed;
  }
  return total;
}

void JobStatus::move_to(JobPhase next, std::string reason, std::string message, std::string time) {
  if (next == phase && !conditions.empty()) return;
  phase = next;
  conditions.push_back(Condition{std::string(phase_name(next)), std::move(reason),
                                 std::move(message), std::move(time)});
}

namespace {
nlohmann::json counts_json(const RankCounts& c) {
  return {{"pending", c.pending},
          {"running", c.running},
          {"succeeded", c.succeeded},
          {"failed", c.failed}};
}
}  // namespace

nlohmann::json to_json(const JobStatus& s) {
  nlohmann::json j;
  j["apiVersion"] = "mpilaunch/v1";
  j["kind"] = "JobStatus";
  j["job"] = s.job_id;
  j["phase"] = std::string(phase_name(s.phase));
  j["attempt"] = s.attempt;
  j["restartCount"] = s.restart_count;
  j["maxRestarts"] = s.max_restarts;
  nlohmann::json conditions = nlohmann::json::array();
  for (const Condition& c : s.conditions)
    conditions.push_back({{"type", c.type},
                          {"status", "True"},
                          {"reason", c.reason},
                          {"message", c.message},
                          {"lastTransitionTime", c.time}});
  j["conditions"] = conditions;
  nlohmann::json nodes = nlohmann::json::object();
  for (const auto& [name, c] : s.nodes) nodes[name] = counts_json(c);
  j["nodes"] = nodes;
  j["aggregate"] = counts_json(s.aggregate());
  if (s.last_error) j["lastError"] = error_to_json(*s.last_error);
  j["updated"] = s.updated;
  return j;
}

}  // namespace mpilaunch::launcher
