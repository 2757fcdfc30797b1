#pragma once
/// Whether a failed attempt is restarted, and when. Pure: handed the failure, when the attempt
/// started and `now`; jitter comes in as a fraction in [0,1). The supervisor only carries out
/// its decisions.

#include <optional>
#include <set>
#include <string_view>
#include <variant>

#include "common/clock.hpp"
#include "common/error.hpp"

namespace mpilaunch::launcher {

using namespace std::chrono_literals;

struct RestartConfig {
  int max_restarts = 0;         // whole-job restarts allowed after the first attempt
  Duration first_backoff = 1s;  // delay before the first restart
  Duration max_backoff = 30s;   // the doubling stops here
  double jitter = 0.1;          // up to this fraction is added at random
  Duration healthy_run = 60s;   // an attempt that ran this long resets the backoff
  int repeat_limit = 3;         // this many identical short failures in a row: stop
  std::optional<std::set<ErrorKind>> restart_on;  // --restart-on: exactly these kinds retry
};

enum class GiveUpReason { NotRetryable, BudgetSpent, Repeated };
std::string_view reason_name(GiveUpReason reason);

struct Restart {
  TimePoint not_before;
  int attempt;  // the number of the attempt about to start (2 for the first restart)
};
struct GiveUp {
  GiveUpReason reason;
};
using RestartDecision = std::variant<Restart, GiveUp>;

class RestartPolicy {
 public:
  explicit RestartPolicy(RestartConfig config) : config_(std::move(config)) {}

  /// Decides after the attempt that started at `started` failed with `failure` at `now`.
  RestartDecision on_failure(const Error& failure, TimePoint started, TimePoint now,
                             double jitter_fraction = 0.0);
  int restarts_done() const { return restarts_done_; }
  const RestartConfig& config() const { return config_; }

 private:
  bool retryable(const Error& failure) const;

  RestartConfig config_;
  int restarts_done_ = 0;
  int quick_failures_ = 0;
  int repeats_ = 0;
  std::optional<Error> last_failure_;
};

}  // namespace mpilaunch::launcher
