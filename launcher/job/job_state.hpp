#pragma once
/// The job's lifecycle: one closed enum of states, one of events, one transition table.
/// The supervisor feeds events and carries out the returned action; nothing else moves state.

#include <optional>
#include <string_view>

namespace mpilaunch::launcher {

enum class JobState {
  StartingAgents,
  SpawningRanks,
  Running,
  TearingDown,
  BackingOff,
  Succeeded,
  Failed
};
enum class JobEvent {
  AgentsReady,
  AgentFailed,
  RanksStarted,
  RankFailed,
  AllRanksSucceeded,
  Interrupted,
  TimedOut,
  RestartGranted,
  RestartDenied,
  BackoffElapsed,
};
enum class Action { None, SpawnRanks, TearDownRanks, StartBackoff, ReportSuccess, ReportFailure };

struct Step {
  JobState to;
  Action action;
};
struct Rule {
  JobState from;
  JobEvent on;
  Step step;
};

using S = JobState;  // short aliases keep the table one rule per line
using E = JobEvent;
inline constexpr Rule kRules[] = {
    {S::StartingAgents, E::AgentsReady, {S::SpawningRanks, Action::SpawnRanks}},
    {S::StartingAgents, E::AgentFailed, {S::TearingDown, Action::TearDownRanks}},
    {S::StartingAgents, E::Interrupted, {S::TearingDown, Action::TearDownRanks}},
    {S::StartingAgents, E::TimedOut, {S::TearingDown, Action::TearDownRanks}},
    {S::SpawningRanks, E::RanksStarted, {S::Running, Action::None}},
    {S::SpawningRanks, E::RankFailed, {S::TearingDown, Action::TearDownRanks}},
    {S::SpawningRanks, E::AgentFailed, {S::TearingDown, Action::TearDownRanks}},
    {S::SpawningRanks, E::Interrupted, {S::TearingDown, Action::TearDownRanks}},
    {S::SpawningRanks, E::TimedOut, {S::TearingDown, Action::TearDownRanks}},
    {S::SpawningRanks, E::AllRanksSucceeded, {S::Succeeded, Action::ReportSuccess}},
    {S::Running, E::RankFailed, {S::TearingDown, Action::TearDownRanks}},
    {S::Running, E::AgentFailed, {S::TearingDown, Action::TearDownRanks}},
    {S::Running, E::Interrupted, {S::TearingDown, Action::TearDownRanks}},
    {S::Running, E::TimedOut, {S::TearingDown, Action::TearDownRanks}},
    {S::Running, E::AllRanksSucceeded, {S::Succeeded, Action::ReportSuccess}},
    {S::TearingDown, E::RestartGranted, {S::BackingOff, Action::StartBackoff}},
    {S::TearingDown, E::RestartDenied, {S::Failed, Action::ReportFailure}},
    {S::BackingOff, E::BackoffElapsed, {S::SpawningRanks, Action::SpawnRanks}},
    {S::BackingOff, E::Interrupted, {S::Failed, Action::ReportFailure}},
    {S::BackingOff, E::TimedOut, {S::Failed, Action::ReportFailure}},
    {S::BackingOff, E::AgentFailed, {S::Failed, Action::ReportFailure}},
};

/// Pure. No value means the event is illegal in `from`: the caller ignores it (late events
/// after teardown started are normal) and logs it in debug mode.
constexpr std::optional<Step> transition(JobState from, JobEvent on) {
  for (const Rule& rule : kRules)
    if (rule.from == from && rule.on == on) return rule.step;
  return std::nullopt;
}

constexpr bool is_terminal(JobState s) {
  return s == S::Succeeded || s == S::Failed;
}

std::string_view state_name(JobState s);
std::string_view event_name(JobEvent e);

}  // namespace mpilaunch::launcher
