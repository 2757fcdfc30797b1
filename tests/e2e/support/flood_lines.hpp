#pragma once
/// Checks the output of tests/apps/flood: fixed-length numbered lines "R:NNNNNNNN:xxx...x" per
/// rank, which must all arrive, whole, each rank's in order.

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mpilaunch::e2e {

inline constexpr long long kFloodLineBytes = 100;  // as tests/apps/flood.c, '\n' included

/// Turns one output line into flood's own line (e.g. strips a tag), or reports it as foreign by
/// returning false.
using LinePayload = std::function<bool(const std::string& line, std::string& payload)>;

/// Lines expected from each rank: rank -> count.
using FloodExpectation = std::map<int, long long>;

/// Ranks 0..ranks-1, `lines` lines each.
FloodExpectation every_rank(int ranks, long long lines);

/// Problems found in `text` (empty when all is well), at most a handful: a foreign or broken
/// line, an unexpected rank, a line out of order, a line missing. Each rank of `expected` must
/// have sent exactly its count of lines, numbered from 0, in order.
std::vector<std::string> flood_problems(const std::string& text, const FloodExpectation& expected,
                                        const LinePayload& payload);

/// flood_problems for untagged output: every line is flood's own.
std::vector<std::string> flood_problems(const std::string& text, const FloodExpectation& expected);

}  // namespace mpilaunch::e2e
