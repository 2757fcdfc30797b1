#pragma once
/// What the teardown's deadline does with the processes of an attempt that are still not
/// accounted for (issues 23, 24): every wait of a teardown has an end, the processes of
/// spawned jobs included. Pure: the supervisor (close_unresponsive_links()) applies it.

#include <cstdint>
#include <span>
#include <vector>

namespace mpilaunch::launcher {

/// One process of the attempt (an initial rank or a spawned one), as the launcher knows it.
struct ProcessState {
  int node = -1;         // its node; -1: none known
  bool started = false;  // its agent reported it running
  bool ended = false;    // its end was reported (or it was given up)
};

struct TeardownVerdict {
  /// Nodes whose agent still runs a process it was told to kill: their links are closed as
  /// agent-lost (phase teardown), which ends every process there.
  std::vector<int> silent_nodes;
  /// Processes never reported started on a node whose agent answered the teardown (a spawned
  /// job its agents could not register, a fork that never happened): ended as never started.
  std::vector<std::uint32_t> never_started;
  /// Processes on a node whose link is gone: nobody can report them any more, ended as lost.
  std::vector<std::uint32_t> lost;
};

/// `processes[i]` is process i; `link_open[n]` whether node n's agent link is open and ready.
/// A node with a started process still running is silent; its unstarted ones go with its link.
TeardownVerdict judge_teardown_deadline(std::span<const ProcessState> processes,
                                        const std::vector<bool>& link_open);

}  // namespace mpilaunch::launcher
