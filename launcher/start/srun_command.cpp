#include "launcher/start/srun_command.hpp"

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
  std::string text = "srun: " + std::string(detail);
  // srun's word for a task killed by SIGTERM. slurmstepd's "CANCELLED AT" banner usually comes
  // first and names the cause, but not always: then this line is all there is to go on.
  if (detail.ends_with(": Terminated"))
    text +=
        ": the agent got SIGTERM, most likely because Slurm cancelled the job step "
        "(scancel, preemption or the allocation ending)";
  return Error{.kind = ErrorKind::AgentStartFailed, .host = node, .phase = "srun", .detail = text};
}

std::optional<Error> slurm_step_end_line(std::string_view line, const std::string& node) {
  // slurmstepd names itself "slurmstepd" or "slurmstepd-<node>"; the banner is fixed text.
  if (!line.starts_with("slurmstepd")) return std::nullopt;
  const std::size_t banner = line.find("*** ");
  if (banner == std::string_view::npos) return std::nullopt;
  const std::string_view text = line.substr(banner);
  if (!text.starts_with("*** STEP ") && !text.starts_with("*** JOB ")) return std::nullopt;
  if (text.find(" CANCELLED AT ") == std::string_view::npos) return std::nullopt;
  const std::size_t due = text.find(" DUE TO ");
  std::string_view reason;
  if (due != std::string_view::npos) {
    reason = text.substr(due + 8);
    reason = reason.substr(0, reason.find(" ***"));
  }
  if (reason == "TIME LIMIT")
    return Error{.kind = ErrorKind::Timeout,
                 .host = node,
                 .phase = "slurm",
                 .detail = "Slurm ended the job step at the allocation's time limit"};
  std::string detail = "Slurm cancelled the job step";
  if (reason.empty())
    detail += " (scancel, or the allocation ended)";
  else
    detail += " due to " + std::string(reason);  // PREEMPTION, NODE FAILURE, ...
  return Error{.kind = ErrorKind::AgentLost, .host = node, .detail = std::move(detail)};
}

bool inside_slurm_allocation(const std::optional<std::string>& slurm_job_id) {
  return slurm_job_id.has_value() && !slurm_job_id->empty();
}

}  // namespace mpilaunch::launcher
