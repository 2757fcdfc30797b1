#pragma once
/// The --status document: a live JSON status in the style of a Kubernetes Job (phase,
/// conditions with reasons and times, attempt, restartCount, per-node and aggregate rank
/// counts, the last error). Pure: the supervisor updates the struct, to_json renders it.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace mpilaunch::launcher {

enum class JobPhase { Pending, Running, Restarting, Succeeded, Failed };
std::string_view phase_name(JobPhase phase);

struct RankCounts {
  int pending = 0;
  int running = 0;
  int succeeded = 0;
  int failed = 0;
};

struct Condition {
  std::string type;  // Started, Restarting, Succeeded, Failed
  std::string reason;
  std::string message;
  std::string time;  // RFC 3339
};

struct JobStatus {
  std::string job_id;
  JobPhase phase = JobPhase::Pending;
  int attempt = 1;
  int restart_count = 0;
  int max_restarts = 0;
  std::vector<Condition> conditions;
  std::map<std::string, RankCounts> nodes;  // node name -> counts
  std::optional<Error> last_error;
  std::string updated;  // RFC 3339

  RankCounts aggregate() const;
  /// Sets the phase and appends a condition when the phase changes.
  void move_to(JobPhase next, std::string reason, std::string message, std::string time);
};

nlohmann::json to_json(const JobStatus& status);

}  // namespace mpilaunch::launcher
