#pragma once
/// Names the straggler of a hung job in its typed error: the rank(s) whose stack differs from
/// the crowd's, and where they are. Pure.

#include <string>
#include <vector>

#include "common/error.hpp"
#include "launcher/stacks/stack_text.hpp"

namespace mpilaunch::launcher {

/// "rank 1 on node2 in main > read_input > read" (several groups joined by "; "); empty when
/// no group stands out (stragglers() in stack_merge.hpp).
std::string describe_stragglers(const std::vector<ProcessStack>& stacks);

/// Adds the stragglers to a timeout error: its detail gains "; straggler: ...", and its rank
/// and host become the first straggler's when the error named none. Unchanged when none stands
/// out.
void name_stragglers(Error& timeout, const std::vector<ProcessStack>& stacks);

}  // namespace mpilaunch::launcher
