// Phrases only ORTE (Open MPI 4.x orterun, mpirun, mpiexec) prints. The texts both generations
// share are in console_patterns_common.cpp. Sources: orte/tools/orterun/help-orterun.txt,
// opal/util/cmd_line.c, orte/mca/plm/rsh/help-plm-rsh.txt, help-orte-rmaps-base.txt,
// help-orte-runtime.txt, help-ess-base.txt (Open MPI v4.1.8).

#include "launcher/diagnose/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;

constexpr Pattern kOrteRows[] = {
    line(K::BadOption, "Error: unknown option \"{detail}\""),
    line(K::BadOption, "Error: option \"{detail}\" did not have enough parameters"),
    block(K::BadOption, "policy is not recognized:", {"Policy: {detail}"})
        .about("unrecognized-policy"),
    block(K::ExecutableNotExecutable, "could not access or execute an executable",
          {"Executable: {exe}", "Node: {host}", "start process rank {rank}"})
        .about("exe-not-accessible"),
    block(K::WdirError, "could not change to the specified working directory",
          {"Working directory: {detail}", "Node: {host}", "start process rank {rank}"})
        .about("wdir-not-found"),
    block(K::AgentStartFailed, "\"plm_rsh_agent\" was set to a path that could not be found",
          {"plm_rsh_agent: {line}"})
        .about("agent-not-found")
        .in_phase("exec"),
    block(K::AgentStartFailed, "not able to find the executable \"orted\"")
        .about("no-local-orted")
        .in_phase("exec"),
    block(K::MpiInitFailed, "It looks like orte_init failed for some reason",
          {"developer): {line}"})
        .about("orte_init:startup:internal-failure"),
    block(K::PmixError, "appears to have been direct launched using \"srun\""),
};

}  // namespace

PatternTable orte_patterns() {
  return {Runtime::Orte4, kOrteRows};
}

}  // namespace mpilaunch::launcher
