#include <doctest/doctest.h>

#include <set>

#include "launcher/job/job_state.hpp"

using namespace mpilaunch::launcher;

TEST_CASE("the happy path: agents, spawn, run, success") {
  auto s = transition(S::StartingAgents, E::AgentsReady);
  REQUIRE(s);
  CHECK(s->to == S::SpawningRanks);
  CHECK(s->action == Action::SpawnRanks);
  CHECK(transition(S::SpawningRanks, E::RanksStarted)->to == S::Running);
  s = transition(S::Running, E::AllRanksSucceeded);
  CHECK(s->to == S::Succeeded);
  CHECK(s->action == Action::ReportSuccess);
  CHECK(is_terminal(S::Succeeded));
}

TEST_CASE("any failure while active tears down; teardown ends in restart or failure") {
  for (S from : {S::StartingAgents, S::SpawningRanks, S::Running})
    for (E on : {E::AgentFailed, E::Interrupted, E::TimedOut}) {
      const auto s = transition(from, on);
      REQUIRE(s);
      CHECK(s->to == S::TearingDown);
      CHECK(s->action == Action::TearDownRanks);
    }
  CHECK(transition(S::Running, E::RankFailed)->to == S::TearingDown);
  CHECK(transition(S::TearingDown, E::RestartDenied)->to == S::Failed);
  CHECK(transition(S::TearingDown, E::RestartGranted)->action == Action::StartBackoff);
  CHECK(transition(S::BackingOff, E::BackoffElapsed)->action == Action::SpawnRanks);
}

TEST_CASE("terminal states accept nothing, and the table has one rule per (state, event)") {
  for (const Rule& rule : kRules) {
    CHECK_FALSE(is_terminal(rule.from));
    CHECK_FALSE(state_name(rule.from).empty());
    CHECK_FALSE(event_name(rule.on).empty());
  }
  std::set<std::pair<int, int>> seen;
  for (const Rule& rule : kRules)
    CHECK(seen.insert({static_cast<int>(rule.from), static_cast<int>(rule.on)}).second);
  CHECK_FALSE(transition(S::Failed, E::AgentsReady));
  CHECK_FALSE(transition(S::TearingDown, E::RankFailed));  // later failures are consequences
}
