// Phrases only PRRTE (Open MPI 5.x prterun; its mpirun execs prterun) prints. The texts both
// generations share are in console_patterns_common.cpp. Sources: PRRTE v3 help-prun.txt,
// help-plm-ssh.txt, help-prte-runtime.txt, help-schizo-base.txt, openpmix help-cli.txt, and
// the 60-dash daemon block of plm_ssh_module.c.

#include "launcher/diagnose/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;

constexpr Pattern kPrrteRows[] = {
    block(K::BadOption,
          "An unrecognized option was included on the {_} command line:", {"Option: {detail}"})
        .about("unregistered-option"),
    block(K::BadOption, "command line that requires an argument, but no argument was given:",
          {"Option: {detail}"})
        .about("missing-argument"),
    block(K::BadOption, "command line option was listed more than once on the command line")
        .about("multi-instances"),
    block(K::BadOption, "directive is not recognized:", {"Directive: {detail}"}),
    block(K::ExecutableNotExecutable, "could not access an executable",
          {"Executable: {exe}", "Node: {host}", "start process rank {rank}"})
        .about("exe-not-accessible"),
    // Open MPI 5.0.7's prterun, for a missing file as for a file without the x bit.
    block(K::ExecutableNotExecutable, "lacked permissions to execute an executable",
          {"Executable: {exe}", "Node: {host}", "start process rank {rank}"}),
    block(K::WdirError, "could not find the specified working directory",
          {"Working directory: {detail}", "Node: {host}", "start process rank {rank}"})
        .about("wdir-not-found"),
    block(K::WdirError, "could not access the specified working directory",
          {"Working directory: {detail}", "Node: {host}", "start process rank {rank}"})
        .about("wdir-not-accessible"),
    block(K::AgentStartFailed, "A daemon failed to report back after being spawned",
          {"Remote host: {host}", "Daemon exit status: {exit}"}),
    block(K::AgentStartFailed, "\"plm_ssh_agent\" was set to a path that could not be found",
          {"plm_ssh_agent: {line}"})
        .about("agent-not-found")
        .in_phase("exec"),
    // prterun's own session directory, /tmp/prterun.HOST.PID.UID, could not be made: measured,
    // one that is there already because an earlier prterun with this process id was killed
    // before it removed it (5.0.7 exits 213; newer PRRTE reuses it). The runtime itself did not
    // start and no rank ran: not an MPI_Init failure, though prte_init's text follows.
    line(K::AgentStartFailed, "PMIX ERROR: {detail} in file {*}session_dir.c")
        .host_from_line()
        .in_phase("session-dir"),
    block(K::AgentStartFailed, "prte_session_dir failed --> Returned value")
        .in_phase("session-dir")
        .as(Role::Context),
    block(K::MpiInitFailed, "\"prte_init()\" failed").about("prte_init:startup:internal-failure"),
};

}  // namespace

PatternTable prrte_patterns() {
  return {Runtime::Prrte5, kPrrteRows};
}

}  // namespace mpilaunch::launcher
