// Phrases only ORTE (Open MPI 4.x orterun, mpirun, mpiexec) prints. The texts both generations
// share are in console_patterns_common.cpp. Sources: orte/tools/orterun/help-orterun.txt,
// opal/util/cmd_line.c, orte/mca/plm/rsh/help-plm-rsh.txt, help-orte-rmaps-base.txt,
// help-orte-runtime.txt (Open MPI v4.1.8).

#include "launcher/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;
using enum Scope;

constexpr Pattern kRows[] = {
    {K::BadOption, Line, "Error: unknown option \"{detail}\""},
    {K::BadOption, Line, "Error: option \"{detail}\" did not have enough parameters"},
    {K::ExecutableNotExecutable,
     Block,
     "could not access or execute an executable",
     {"Executable: {exe}", "Node: {host}", "start process rank {rank}"},
     "exe-not-accessible"},
    {K::WdirError,
     Block,
     "could not change to the specified working directory",
     {"Working directory: {detail}", "Node: {host}", "start process rank {rank}"},
     "wdir-not-found"},
    {K::AgentStartFailed,
     Block,
     "\"plm_rsh_agent\" was set to a path that could not be found",
     {"plm_rsh_agent: {detail}"},
     "agent-not-found",
     "exec"},
    {K::AgentStartFailed,
     Block,
     "not able to find the executable \"orted\"",
     {},
     "no-local-orted",
     "exec"},
    {K::MpiInitFailed,
     Block,
     "It looks like orte_init failed for some reason",
     {"developer): {line}"},
     "orte_init:startup:internal-failure"},
    {K::PmixError, Block, "was not built with SLURM's PMI support"},
};

}  // namespace

PatternTable orte_patterns() {
  return {Runtime::Orte4, kRows};
}

}  // namespace mpilaunch::launcher
