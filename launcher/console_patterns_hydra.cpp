// Phrases of MPICH's Hydra (mpiexec.hydra 4.x) and of MPICH ranks. Hydra prints an error stack
// innermost first, each line prefixed "[mpiexec@host]" or "[proxy:P:N@host]", so the first
// matching line is the cause. Sources: MPICH v4.0.2 src/pm/hydra (utils/launch/launch.c,
// utils/args/args.c, utils/sock/sock.c, pm/pmiserv/*.c, ui/mpich/mpiexec.c), ch4_globals.c.

#include "launcher/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;
using enum Scope;

constexpr Pattern kRows[] = {
    {K::ExecutableNotFound,
     Line,
     "execvp error on file {exe} (No such file or directory)",
     {},
     {},
     {},
     Role::Cause,
     ":",
     "",
     true},
    {K::ExecutableNotExecutable,
     Line,
     "execvp error on file {exe} ({line})",
     {},
     {},
     {},
     Role::Cause,
     ":",
     "",
     true},
    {K::WdirError,
     Line,
     "unable to change wdir to {detail} (",
     {},
     {},
     {},
     Role::Cause,
     ":",
     "",
     true},
    {K::HostfileError, Line, "unable to open host file: {detail}"},
    {K::BadOption, Line, "unrecognized argument {detail}"},
    {K::ComponentNotFound, Line, "unrecognized launcher: {detail}"},
    {K::UnknownHost, Line, "unable to get host address for {host}"},
    {K::AgentStartFailed,
     Line,
     "unable to connect to server {host} at port {_} (check for",
     {},
     {},
     "handshake"},
    {K::AgentLost, Line, "assert (!closed) failed", {}, {}, {}, Role::Cause, ":", "", true},
    {K::Timeout,
     Line,
     "APPLICATION TIMED OUT, TIMEOUT = {detail}s",
     {},
     {},
     "job",
     Role::Cause,
     ":",
     "s"},
    {K::RankSignaled,
     Block,
     "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
     {"PID {pid} RUNNING AT {host}", "EXIT CODE: {status}", "RANK {rank} PID",
      "KILLED BY SIGNAL: {signal}"}},
    {K::RankSignaled, Line, "TERMINATED WITH THE EXIT STRING: {*}(signal {signal})"},
    {K::RankExitNonzero, Line, "Exit codes: {*}] {statuses}"},
    {K::RankCalledAbort, Line, "Abort({exit}) on node {rank} (rank"},
    {K::MpiInitFailed, Line, "Fatal error in internal_Init"},
    {K::MpiInitFailed, Line, "Fatal error in PMPI_Init"},
    {K::MpiInitFailed, Line, "Fatal error in MPI_Init"},
};

}  // namespace

PatternTable hydra_patterns() {
  return {Runtime::Hydra, kRows};
}

}  // namespace mpilaunch::launcher
