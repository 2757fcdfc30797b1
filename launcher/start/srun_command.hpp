#pragma once
/// The srun command line that starts one agent on one node of a Slurm allocation, and the
/// reading of srun's own error lines. Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch::launcher {

/// argv for `srun` starting `agent --stdio` as a one-task step on `node`. See docs/slurm.md
/// for why each flag is there.
std::vector<std::string> srun_command(const std::string& srun, const std::string& agent,
                                      const std::string& node);

/// One line srun wrote on its stderr: an Error (AgentStartFailed, phase "srun") when it is
/// srun's own error text ("srun: error: ..."), else nullopt (the agent's own stderr). A task
/// "Terminated" line says that Slurm most likely cancelled the step.
std::optional<Error> srun_error_line(std::string_view line, const std::string& node);

/// One line the job step's slurmstepd wrote through srun when Slurm ended the step
/// ("slurmstepd: error: *** STEP 7.0 ON n1 CANCELLED AT ... DUE TO TIME LIMIT ***"): Timeout
/// in phase "slurm" for the allocation's time limit, AgentLost for scancel, preemption or a
/// node failure (the reason in detail); else nullopt.
std::optional<Error> slurm_step_end_line(std::string_view line, const std::string& node);

/// Whether the environment says we run inside a Slurm allocation (SLURM_JOB_ID set).
bool inside_slurm_allocation(const std::optional<std::string>& slurm_job_id);

}  // namespace mpilaunch::launcher
