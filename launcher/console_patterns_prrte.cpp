// Phrases only PRRTE (Open MPI 5.x prterun; its mpirun execs prterun) prints. The texts both
// generations share are in console_patterns_common.cpp. Sources: PRRTE v3 help-prun.txt,
// help-plm-ssh.txt, help-prte-runtime.txt, help-schizo-base.txt, openpmix help-cli.txt, and
// the 60-dash daemon block of plm_ssh_module.c.

#include "launcher/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;
using enum Scope;

constexpr Pattern kRows[] = {
    {K::BadOption,
     Block,
     "An unrecognized option was included on the {_} command line:",
     {"Option: {detail}"},
     "unregistered-option"},
    {K::BadOption,
     Block,
     "command line that requires an argument, but no argument was given:",
     {"Option: {detail}"},
     "missing-argument"},
    {K::BadOption,
     Block,
     "command line option was listed more than once on the command line",
     {},
     "multi-instances"},
    {K::BadOption,
     Block,
     "directive is not recognized:",
     {"Directive: {detail}"},
     "unrecognized-directive"},
    {K::ExecutableNotExecutable,
     Block,
     "could not access an executable",
     {"Executable: {exe}", "Node: {host}", "start process rank {rank}"},
     "exe-not-accessible"},
    // Open MPI 5.0.7's prterun, for a missing file as for a file without the x bit.
    {K::ExecutableNotExecutable,
     Block,
     "lacked permissions to execute an executable",
     {"Executable: {exe}", "Node: {host}", "start process rank {rank}"}},
    {K::WdirError,
     Block,
     "could not find the specified working directory",
     {"Working directory: {detail}", "Node: {host}", "start process rank {rank}"},
     "wdir-not-found"},
    {K::WdirError,
     Block,
     "could not access the specified working directory",
     {"Working directory: {detail}", "Node: {host}", "start process rank {rank}"},
     "wdir-not-accessible"},
    {K::AgentStartFailed,
     Block,
     "A daemon failed to report back after being spawned",
     {"Remote host: {host}", "Daemon exit status: {exit}"}},
    {K::AgentStartFailed,
     Block,
     "\"plm_ssh_agent\" was set to a path that could not be found",
     {"plm_ssh_agent: {detail}"},
     "agent-not-found",
     "exec"},
    {K::MpiInitFailed, Block, "\"prte_init()\" failed", {}, "prte_init:startup:internal-failure"},
};

}  // namespace

PatternTable prrte_patterns() {
  return {Runtime::Prrte5, kRows};
}

}  // namespace mpilaunch::launcher
