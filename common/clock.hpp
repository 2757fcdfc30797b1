#pragma once
/// Time as values: TimePoint and Duration on the steady clock, and the Clock interface that
/// policies are handed (tests use tests/support/manual_clock.hpp). Policies never read a clock.

#include <chrono>

namespace mpilaunch {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace mpilaunch
