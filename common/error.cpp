#include "common/error.hpp"

#include <csignal>
#include <cstring>

namespace mpilaunch {

std::string_view kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::RunAsRootRefused:
      return "run-as-root-refused";
    case ErrorKind::NotEnoughSlots:
      return "not-enough-slots";
    case ErrorKind::ExecutableNotFound:
      return "executable-not-found";
    case ErrorKind::ExecutableNotExecutable:
      return "executable-not-executable";
    case ErrorKind::WdirError:
      return "wdir-error";
    case ErrorKind::AgentStartFailed:
      return "agent-start-failed";
    case ErrorKind::AgentLost:
      return "agent-lost";
    case ErrorKind::UnknownHost:
      return "unknown-host";
    case ErrorKind::HostfileError:
      return "hostfile-error";
    case ErrorKind::RankExitNonzero:
      return "rank-exit-nonzero";
    case ErrorKind::RankSignaled:
      return "rank-signaled";
    case ErrorKind::RankCalledAbort:
      return "rank-called-abort";
    case ErrorKind::RankNoFinalize:
      return "rank-no-finalize";
    case ErrorKind::MpiInitFailed:
      return "mpi-init-failed";
    case ErrorKind::PmixError:
      return "pmix-error";
    case ErrorKind::ComponentNotFound:
      return "component-not-found";
    case ErrorKind::UnsupportedMpiCall:
      return "unsupported-mpi-call";
    case ErrorKind::BadOption:
      return "bad-option";
    case ErrorKind::Timeout:
      return "timeout";
    case ErrorKind::OutOfResources:
      return "out-of-resources";
    case ErrorKind::ProtocolMismatch:
      return "protocol-mismatch";
    case ErrorKind::MalformedFrame:
      return "malformed-frame";
    case ErrorKind::Interrupted:
      return "interrupted";
    case ErrorKind::OutputError:
      return "output-error";
    case ErrorKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<ErrorKind> kind_from_name(std::string_view name) {
  for (ErrorKind kind : kAllErrorKinds)
    if (kind_name(kind) == name) return kind;
  return std::nullopt;
}

RetryClass retry_class(const Error& error) {
  switch (error.kind) {
    case ErrorKind::RunAsRootRefused:
    case ErrorKind::NotEnoughSlots:
    case ErrorKind::ExecutableNotFound:
    case ErrorKind::ExecutableNotExecutable:
    case ErrorKind::WdirError:
    case ErrorKind::HostfileError:
    case ErrorKind::ComponentNotFound:
    case ErrorKind::UnsupportedMpiCall:
    case ErrorKind::BadOption:
    case ErrorKind::ProtocolMismatch:
    case ErrorKind::OutputError:  // a full disk or a reader gone is still so on a retry
      return RetryClass::Never;
    case ErrorKind::AgentStartFailed:
      if (error.phase == "resolve" || error.phase == "connect" || error.phase == "handshake")
        return RetryClass::UntilStartDeadline;
      // prterun's session directory left by a killed prterun of the same process id: the next
      // run has another one (wrap mode restarted it when this text read as mpi-init-failed).
      if (error.phase == "session-dir") return RetryClass::WithinBudget;
      return RetryClass::Never;
    case ErrorKind::UnknownHost:
      return RetryClass::UntilStartDeadline;
    case ErrorKind::RankExitNonzero:
    case ErrorKind::RankSignaled:
    case ErrorKind::RankCalledAbort:
    case ErrorKind::RankNoFinalize:
    case ErrorKind::AgentLost:
    case ErrorKind::MalformedFrame:
      return RetryClass::WithinBudget;
    case ErrorKind::Timeout:
      // The whole run's limit and a Slurm allocation's end (the allocation is gone) cannot be
      // retried; a launch or wire-up deadline can.
      return error.phase == "job" || error.phase == "slurm" ? RetryClass::NoRestart
                                                            : RetryClass::WithinBudget;
    case ErrorKind::MpiInitFailed:
    case ErrorKind::PmixError:
    case ErrorKind::OutOfResources:
    case ErrorKind::Unknown:
      return RetryClass::WithinBudgetStopOnRepeat;
    case ErrorKind::Interrupted:
      return RetryClass::NoRestart;
  }
  return RetryClass::Never;
}

bool is_retryable(const Error& error) {
  const RetryClass c = retry_class(error);
  return c == RetryClass::WithinBudget || c == RetryClass::WithinBudgetStopOnRepeat;
}

bool is_crash_signal(int signal) {
  switch (signal) {
    case SIGSEGV:
    case SIGBUS:
    case SIGABRT:
    case SIGFPE:
    case SIGILL:
    case SIGTRAP:
    case SIGSYS:
      return true;
    default:
      return false;
  }
}

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  if (abbrev == nullptr) return "signal " + std::to_string(signal);
  return std::string("SIG") + abbrev;
}

}  // namespace mpilaunch
