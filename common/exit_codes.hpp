#pragma once
/// mpilaunch's exit codes: one named constant each, documented in docs/exit-codes.md.
/// A failing rank passes its own code through (1..127), a signal gives 128+N; mpilaunch's own
/// failures use the sysexits range 64..78 and 124 so that scripts can tell them apart.

#include "common/error.hpp"

namespace mpilaunch::exit_codes {

inline constexpr int kSuccess = 0;
inline constexpr int kGenericFailure = 1;   // a rank failed without a usable code of its own
inline constexpr int kUsage = 64;           // bad-option: unknown or conflicting options
inline constexpr int kHostfile = 65;        // hostfile-error
inline constexpr int kNoInput = 66;         // executable-not-found/-not-executable, wdir-error
inline constexpr int kNotEnoughSlots = 67;  // not-enough-slots
inline constexpr int kUnavailable = 69;  // agent-start-failed, unknown-host, unsupported-mpi-call
inline constexpr int kInternal = 70;     // pmix-error, protocol-mismatch, malformed-frame, unknown
inline constexpr int kOutOfResources = 71;     // out-of-resources
inline constexpr int kOutputError = 74;        // output-error: rank output not written (EX_IOERR)
inline constexpr int kAgentLost = 75;          // agent-lost
inline constexpr int kRootRefused = 77;        // run-as-root-refused
inline constexpr int kComponentNotFound = 78;  // component-not-found (configuration)
inline constexpr int kTimeout = 124;           // timeout, as GNU timeout(1)
inline constexpr int kSignalBase =
    128;  // 128+N: a rank killed by, or mpilaunch interrupted by, signal N

/// The launcher's exit code for a job that ended with `error`.
constexpr int for_error(const Error& e) {
  switch (e.kind) {
    case ErrorKind::BadOption:
      return kUsage;
    case ErrorKind::HostfileError:
      return kHostfile;
    case ErrorKind::ExecutableNotFound:
    case ErrorKind::ExecutableNotExecutable:
    case ErrorKind::WdirError:
      return kNoInput;
    case ErrorKind::NotEnoughSlots:
      return kNotEnoughSlots;
    case ErrorKind::AgentStartFailed:
    case ErrorKind::UnknownHost:
    case ErrorKind::UnsupportedMpiCall:
      return kUnavailable;
    case ErrorKind::PmixError:
    case ErrorKind::ProtocolMismatch:
    case ErrorKind::MalformedFrame:
    case ErrorKind::Unknown:
      return kInternal;
    case ErrorKind::OutOfResources:
      return kOutOfResources;
    case ErrorKind::AgentLost:
      return kAgentLost;
    case ErrorKind::OutputError:
      // The reader of our output went away: what a Unix tool's SIGPIPE death gives (141).
      return e.signal ? kSignalBase + *e.signal : kOutputError;
    case ErrorKind::RunAsRootRefused:
      return kRootRefused;
    case ErrorKind::ComponentNotFound:
      return kComponentNotFound;
    case ErrorKind::Timeout:
      return kTimeout;
    case ErrorKind::RankSignaled:
    case ErrorKind::Interrupted:
      return e.signal ? kSignalBase + *e.signal : kGenericFailure;
    case ErrorKind::RankExitNonzero:
    case ErrorKind::RankCalledAbort:
    case ErrorKind::RankNoFinalize:
    case ErrorKind::MpiInitFailed:
      // The rank's own code when it is a failure code; MPI_Abort(comm, 0) and a rank that exits 0
      // without MPI_Finalize are still failures, so they give 1.
      return (e.exit_code && (*e.exit_code & 0xff) != 0) ? (*e.exit_code & 0xff) : kGenericFailure;
  }
  return kGenericFailure;
}

}  // namespace mpilaunch::exit_codes
