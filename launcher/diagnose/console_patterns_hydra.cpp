// Phrases of MPICH's Hydra (mpiexec.hydra 4.x) and of MPICH ranks. Hydra prints an error stack
// innermost first, each line prefixed "[mpiexec@host]" or "[proxy:P:N@host]", so the first
// matching line is the cause. Sources: MPICH v4.0.2 src/pm/hydra (utils/launch/launch.c,
// utils/args/args.c, utils/sock/sock.c, pm/pmiserv/*.c, ui/mpich/mpiexec.c), ch4_globals.c.

#include "launcher/diagnose/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;

constexpr Pattern kHydraRows[] = {
    line(K::ExecutableNotFound, "execvp error on file {exe} (No such file or directory)")
        .host_from_line(),
    line(K::ExecutableNotExecutable, "execvp error on file {exe} ({line})").host_from_line(),
    line(K::WdirError, "unable to change wdir to {detail} (").host_from_line(),
    line(K::HostfileError, "unable to open host file: {detail}").in_phase("read"),
    line(K::BadOption, "unrecognized argument {detail}"),
    line(K::ComponentNotFound, "unrecognized launcher: {detail}"),
    line(K::UnknownHost, "unable to get host address for {host}"),
    line(K::AgentStartFailed, "unable to connect to server {host} at port {_} (check for")
        .in_phase("handshake"),
    line(K::AgentLost, "assert (!closed) failed").host_from_line(),
    line(K::Timeout, "APPLICATION TIMED OUT, TIMEOUT = {detail}s").in_phase("job").unit("s"),
    // The frame Hydra prints on stdout; EXIT CODE is a raw wait status. Intel MPI adds RANK.
    block(K::RankSignaled, "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
          {"PID {pid} RUNNING AT {host}", "EXIT CODE: {status}", "RANK {rank} PID",
           "KILLED BY SIGNAL: {signal}"}),
    line(K::RankSignaled, "TERMINATED WITH THE EXIT STRING: {*}(signal {signal})"),
    line(K::RankExitNonzero, "Exit codes: {*}] {statuses}"),
    line(K::RankCalledAbort, "Abort({exit}) on node {rank} (rank"),
    line(K::MpiInitFailed, "Fatal error in internal_Init"),
    line(K::MpiInitFailed, "Fatal error in PMPI_Init"),
    line(K::MpiInitFailed, "Fatal error in MPI_Init"),
};

}  // namespace

PatternTable hydra_patterns() {
  return {Runtime::Hydra, kHydraRows};
}

}  // namespace mpilaunch::launcher
