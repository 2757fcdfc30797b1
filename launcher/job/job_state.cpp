#include "launcher/job/job_state.hpp"

namespace mpilaunch::launcher {

std::string_view state_name(JobState s) {
  switch (s) {
    case JobState::StartingAgents:
      return "starting-agents";
    case JobState::SpawningRanks:
      return "spawning-ranks";
    case JobState::Running:
      return "running";
    case JobState::TearingDown:
      return "tearing-down";
    case JobState::BackingOff:
      return "backing-off";
    case JobState::Succeeded:
      return "succeeded";
    case JobState::Failed:
      return "failed";
  }
  return "?";
}

std::string_view event_name(JobEvent e) {
  switch (e) {
    case JobEvent::AgentsReady:
      return "agents-ready";
    case JobEvent::AgentFailed:
      return "agent-failed";
    case JobEvent::RanksStarted:
      return "ranks-started";
    case JobEvent::RankFailed:
      return "rank-failed";
    case JobEvent::AllRanksSucceeded:
      return "all-ranks-succeeded";
    case JobEvent::Interrupted:
      return "interrupted";
    case JobEvent::TimedOut:
      return "timed-out";
    case JobEvent::RestartGranted:
      return "restart-granted";
    case JobEvent::RestartDenied:
      return "restart-denied";
    case JobEvent::BackoffElapsed:
      return "backoff-elapsed";
  }
  return "?";
}

}  // namespace mpilaunch::launcher
