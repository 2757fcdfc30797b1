#pragma once
/// The failures found so far in one log, bounded in number and size. Reports of one event
/// from several places (a rank's signal dump and the launcher's line, an ssh line and the
/// daemon banner after it) are merged into one finding as they arrive.

#include <cstddef>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "launcher/diagnose/console_pattern.hpp"

namespace mpilaunch::launcher {

inline constexpr std::size_t kMaxFindings = 32;
inline constexpr std::size_t kMaxEvidenceLines = 12;
inline constexpr std::size_t kMaxEvidenceLineBytes = 400;

struct Finding {
  Error error;
  Role role = Role::Cause;
  std::string_view topic;      // help topic of the pattern that found it, for aggregation
  bool from_raw_line = false;  // an ssh or shell line, which the daemon banner after it explains
  bool marked_root = false;    // mpilaunch's own events file named it the job's failure
};

class FindingSet {
 public:
  /// Merges `finding` into an earlier report of the same event, or appends it (up to
  /// kMaxFindings; later ones are dropped).
  void add(Finding finding);
  /// "N more processes have sent help message FILE / TOPIC": adds n to the count of the latest
  /// finding with that topic. False when no finding has it.
  bool aggregate(std::string_view topic, int n);
  const std::vector<Finding>& items() const { return items_; }

 private:
  std::vector<Finding> items_;
};

/// Appends `lines` to `evidence`, each cut to kMaxEvidenceLineBytes, up to kMaxEvidenceLines.
void append_evidence(std::vector<std::string>& evidence, const std::vector<std::string>& lines);

/// True when `topic` (as printed, e.g. "orterun:proc-aborted-strsignal") names a pattern's
/// topic ("proc-aborted-strsignal"): equal, or ending in ":" + it.
bool topic_matches(std::string_view printed, std::string_view pattern_topic);

}  // namespace mpilaunch::launcher
