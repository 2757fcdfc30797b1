#pragma once
/// A Clock that moves only when told.

#include "common/clock.hpp"

namespace mpilaunch::testing {

class ManualClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  void advance(Duration d) { now_ += d; }

 private:
  TimePoint now_{};
};

}  // namespace mpilaunch::testing
