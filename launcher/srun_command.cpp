#include "launcher/srun_command.hpp"

namespace mpilaunch::launcher {

std::vector<std::string> srun_command(const std::string& srun, const std::string& agent,
                                      const std::string& node) {
  return {srun, "--nodelist=" + node, "--nodes=1", "--ntasks=1", "--ntasks-per-node=1",
          // Agent steps run beside each other and beside the user's own steps (salloc's
          // shell, a batch script's step); without --overlap the second one would wait.
          "--overlap",
          // The agent forks the ranks inside its step: the step gets the node's whole
          // allocation, not the one CPU its single task asks for (22.05 steps are --exact).
          "--whole",
          // Slurm ends the step when its only task, the agent, fails.
          "--kill-on-bad-exit=1",
          // No PMI from Slurm: the agent is the ranks' PMIx/PMI server.
          "--mpi=none", "--cpu-bind=none",
          // Frames pass as they come, never held back until a newline.
          "--unbuffered", "--quiet", "--job-name=mpilaunch-agent", agent, "--stdio"};
}

std::optional<Error> srun_error_line(std::string_view line, const std::string& node) {
  constexpr std::string_view kPrefix = "srun: error: ";
  if (!line.starts_with(kPrefix)) return std::nullopt;
  std::string_view detail = line.substr(kPrefix.size());
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r'))
    detail.remove_suffix(1);
  return Error{.kind = ErrorKind::AgentStartFailed,
               .host = node,
               .phase = "srun",
               .detail = "srun: " + std::string(detail)};
}

bool inside_slurm_allocation(const std::optional<std::string>& slurm_job_id) {
  return slurm_job_id.has_value() && !slurm_job_id->empty();
}

}  // namespace mpilaunch::launcher
