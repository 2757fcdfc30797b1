#pragma once
/// Slurm's compressed host lists ("n[01-04,07],gpu[1-2]-ib") and per-node counts ("2(x3),1").
/// Pure and bounded: at most kMaxExpandedHosts names or counts, whatever the input.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch::launcher {

inline constexpr std::size_t kMaxExpandedHosts = 100'000;

/// Expands a Slurm host list in order: items separated by ',' (or blanks) outside brackets;
/// each item is literal text and bracket groups of numbers and ranges ("[1-3,7]"), several
/// groups giving every combination ("a[1-2]b[3-4]": a1b3 a1b4 a2b3 a2b4). A range keeps the
/// width of its first number ("[08-10]": 08 09 10). Errors are HostfileError with the detail
/// "origin: what is wrong; the fix", `origin` naming the source (e.g. "SLURM_JOB_NODELIST=...").
Result<std::vector<std::string>> expand_hostlist(std::string_view text, std::string_view origin);

/// Expands Slurm's per-node counts (SLURM_TASKS_PER_NODE, SLURM_JOB_CPUS_PER_NODE): "2(x3),1"
/// is {2, 2, 2, 1}. Counts are >= 1. Errors as for expand_hostlist.
Result<std::vector<int>> expand_node_counts(std::string_view text, std::string_view origin);

}  // namespace mpilaunch::launcher
