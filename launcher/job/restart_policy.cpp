#include "launcher/job/restart_policy.hpp"

#include <algorithm>

namespace mpilaunch::launcher {

std::string_view reason_name(GiveUpReason reason) {
  switch (reason) {
    case GiveUpReason::NotRetryable:
      return "not-retryable";
    case GiveUpReason::BudgetSpent:
      return "budget-spent";
    case GiveUpReason::Repeated:
      return "repeated-failure";
  }
  return "?";
}

bool RestartPolicy::retryable(const Error& failure) const {
  if (config_.restart_on) return config_.restart_on->contains(failure.kind);
  return is_retryable(failure);
}

RestartDecision RestartPolicy::on_failure(const Error& failure, TimePoint started, TimePoint now,
                                          double jitter_fraction) {
  if (!retryable(failure)) return GiveUp{GiveUpReason::NotRetryable};
  if (restarts_done_ >= config_.max_restarts) return GiveUp{GiveUpReason::BudgetSpent};
  const bool healthy = now - started >= config_.healthy_run;
  if (healthy) quick_failures_ = 0;
  // The same failure again and again after short runs is deterministic: do not burn the budget.
  const bool same =
      last_failure_ && last_failure_->kind == failure.kind && last_failure_->rank == failure.rank &&
      last_failure_->exit_code == failure.exit_code && last_failure_->signal == failure.signal;
  repeats_ = (same && !healthy) ? repeats_ + 1 : 1;
  last_failure_ = failure;
  // Only the kinds whose class says so (docs/errors.md "budget, stop on repeats": wire-up,
  // resources, unrecognised) stop early; a rank's own failure or a lost agent spends the whole
  // budget, as docs/container.md promises: a node that crashes three times is no proof the
  // fourth attempt fails too.
  if (config_.repeat_limit > 0 && repeats_ >= config_.repeat_limit && !config_.restart_on &&
      retry_class(failure) == RetryClass::WithinBudgetStopOnRepeat)
    return GiveUp{GiveUpReason::Repeated};
  Duration backoff = config_.first_backoff * (1LL << std::min(quick_failures_, 20));
  backoff = std::min(backoff, config_.max_backoff);
  const double extra = std::clamp(jitter_fraction, 0.0, 1.0) * config_.jitter;
  backoff += std::chrono::duration_cast<Duration>(backoff * extra);
  ++restarts_done_;
  ++quick_failures_;
  return Restart{now + backoff, restarts_done_ + 1};
}

}  // namespace mpilaunch::launcher
