#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launcher/job/restart_policy.hpp"
#include "tests/support/manual_clock.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;
using mpilaunch::testing::ManualClock;

namespace {
Error segv(int rank = 3) {
  return Error{.kind = ErrorKind::RankSignaled, .host = "b", .rank = rank, .signal = 11};
}
Error init_failed(int rank = 3) {
  return Error{.kind = ErrorKind::MpiInitFailed, .host = "b", .rank = rank, .exit_code = 1};
}
}  // namespace

TEST_CASE("restart policy: backoff doubles, a healthy run resets it, the budget is final") {
  RestartPolicy policy(
      {.max_restarts = 3, .first_backoff = 1s, .jitter = 0, .healthy_run = 60s, .repeat_limit = 0});
  ManualClock clock;
  auto delay_after_running_for = [&](Duration ran) -> Duration {
    const TimePoint started = clock.now();
    clock.advance(ran);
    const RestartDecision decision = policy.on_failure(segv(), started, clock.now());
    return std::get<Restart>(decision).not_before - clock.now();
  };
  CHECK(delay_after_running_for(2s) == 1s);
  CHECK(delay_after_running_for(2s) == 2s);
  CHECK(delay_after_running_for(90s) == 1s);  // a healthy run: the backoff starts over
  const RestartDecision last = policy.on_failure(segv(), clock.now(), clock.now());
  CHECK(std::get<GiveUp>(last).reason == GiveUpReason::BudgetSpent);
  CHECK(policy.restarts_done() == 3);
}

TEST_CASE("the backoff is capped and jitter only adds, within its fraction") {
  RestartPolicy policy({.max_restarts = 10,
                        .first_backoff = 1s,
                        .max_backoff = 4s,
                        .jitter = 0.5,
                        .repeat_limit = 0});
  ManualClock clock;
  std::vector<Duration> delays;
  for (int i = 0; i < 5; ++i) {
    const auto d = policy.on_failure(segv(), clock.now(), clock.now(), 0.0);
    delays.push_back(std::get<Restart>(d).not_before - clock.now());
  }
  CHECK(delays == std::vector<Duration>{1s, 2s, 4s, 4s, 4s});
  const auto jittered = policy.on_failure(segv(), clock.now(), clock.now(), 1.0);
  CHECK(std::get<Restart>(jittered).not_before - clock.now() == 6s);
  CHECK(std::get<Restart>(jittered).attempt == 7);
}

TEST_CASE("errors that can never succeed are not retried, whatever the budget") {
  RestartPolicy policy({.max_restarts = 100});
  ManualClock clock;
  for (ErrorKind kind :
       {ErrorKind::BadOption, ErrorKind::ExecutableNotFound, ErrorKind::NotEnoughSlots,
        ErrorKind::HostfileError, ErrorKind::RunAsRootRefused, ErrorKind::WdirError}) {
    const auto d = policy.on_failure(Error{.kind = kind}, clock.now(), clock.now());
    CHECK(std::get<GiveUp>(d).reason == GiveUpReason::NotRetryable);
  }
  CHECK(std::holds_alternative<GiveUp>(policy.on_failure(
      Error{.kind = ErrorKind::Timeout, .phase = "job"}, clock.now(), clock.now())));
  CHECK(std::holds_alternative<GiveUp>(policy.on_failure(
      Error{.kind = ErrorKind::Interrupted, .signal = 2}, clock.now(), clock.now())));
  CHECK(std::holds_alternative<Restart>(policy.on_failure(
      Error{.kind = ErrorKind::AgentLost, .host = "n"}, clock.now(), clock.now())));
}

TEST_CASE("the same short failure repeated stops early; a different one does not") {
  RestartPolicy policy({.max_restarts = 100, .first_backoff = 0s, .repeat_limit = 3});
  ManualClock clock;
  CHECK(
      std::holds_alternative<Restart>(policy.on_failure(init_failed(1), clock.now(), clock.now())));
  CHECK(
      std::holds_alternative<Restart>(policy.on_failure(init_failed(1), clock.now(), clock.now())));
  CHECK(std::get<GiveUp>(policy.on_failure(init_failed(1), clock.now(), clock.now())).reason ==
        GiveUpReason::Repeated);
  RestartPolicy varied({.max_restarts = 100, .first_backoff = 0s, .repeat_limit = 3});
  for (int i = 0; i < 10; ++i)
    CHECK(std::holds_alternative<Restart>(
        varied.on_failure(init_failed(i % 2), clock.now(), clock.now())));
}

TEST_CASE("kinds of class 'budget' spend the whole budget however alike their failures") {
  ManualClock clock;
  const std::vector<Error> failures = {
      segv(1),
      Error{.kind = ErrorKind::RankExitNonzero, .rank = 0, .exit_code = 5},
      Error{.kind = ErrorKind::RankCalledAbort, .rank = 0, .exit_code = 2},
      Error{.kind = ErrorKind::AgentLost, .host = "n"},
  };
  for (const Error& failure : failures) {
    CAPTURE(std::string(kind_name(failure.kind)));
    RestartPolicy policy({.max_restarts = 6, .first_backoff = 0s, .repeat_limit = 3});
    for (int i = 0; i < 6; ++i)
      CHECK(std::holds_alternative<Restart>(policy.on_failure(failure, clock.now(), clock.now())));
    CHECK(std::get<GiveUp>(policy.on_failure(failure, clock.now(), clock.now())).reason ==
          GiveUpReason::BudgetSpent);
  }
}

TEST_CASE("--restart-on replaces the default classes") {
  RestartPolicy policy(
      {.max_restarts = 5, .restart_on = std::set<ErrorKind>{ErrorKind::RankExitNonzero}});
  ManualClock clock;
  CHECK(std::holds_alternative<GiveUp>(policy.on_failure(segv(), clock.now(), clock.now())));
  CHECK(std::holds_alternative<Restart>(policy.on_failure(
      Error{.kind = ErrorKind::RankExitNonzero, .exit_code = 3}, clock.now(), clock.now())));
}
