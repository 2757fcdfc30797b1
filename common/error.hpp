#pragma once
/// Error, the closed ErrorKind taxonomy, kind_name() and is_retryable().
/// Every failure mpilaunch reports, from its own agents or from parsed runtime text, is one Error.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch {

/// The closed set of error kinds. Adding one means adding its name, message, hint, exit code,
/// retry class and a line in docs/errors.md: -Wswitch-enum flags every switch that misses it.
/// A new kind goes at the end (its number travels in the protocol) and into kAllErrorKinds
/// where it reads best (the order of --help errors).
enum class ErrorKind {
  RunAsRootRefused,
  NotEnoughSlots,
  ExecutableNotFound,
  ExecutableNotExecutable,
  WdirError,
  AgentStartFailed,
  AgentLost,
  UnknownHost,
  HostfileError,
  RankExitNonzero,
  RankSignaled,
  RankCalledAbort,
  RankNoFinalize,
  MpiInitFailed,
  PmixError,
  ComponentNotFound,
  BadOption,
  Timeout,
  OutOfResources,
  ProtocolMismatch,
  MalformedFrame,
  Interrupted,
  OutputError,
  Unknown,
  // Kinds added later go here, after Unknown: the protocol carries a kind as its number.
  UnsupportedMpiCall,
};

inline constexpr ErrorKind kAllErrorKinds[] = {
    ErrorKind::RunAsRootRefused,
    ErrorKind::NotEnoughSlots,
    ErrorKind::ExecutableNotFound,
    ErrorKind::ExecutableNotExecutable,
    ErrorKind::WdirError,
    ErrorKind::AgentStartFailed,
    ErrorKind::AgentLost,
    ErrorKind::UnknownHost,
    ErrorKind::HostfileError,
    ErrorKind::RankExitNonzero,
    ErrorKind::RankSignaled,
    ErrorKind::RankCalledAbort,
    ErrorKind::RankNoFinalize,
    ErrorKind::MpiInitFailed,
    ErrorKind::PmixError,
    ErrorKind::ComponentNotFound,
    ErrorKind::UnsupportedMpiCall,
    ErrorKind::BadOption,
    ErrorKind::Timeout,
    ErrorKind::OutOfResources,
    ErrorKind::ProtocolMismatch,
    ErrorKind::MalformedFrame,
    ErrorKind::Interrupted,
    ErrorKind::OutputError,
    ErrorKind::Unknown,
};

/// The kind with the highest number (the end of the enum).
inline constexpr ErrorKind kLastErrorKind = ErrorKind::UnsupportedMpiCall;

/// One failure. Optional fields are unknown when empty and are never guessed (a rank is never
/// defaulted to 0). `phase` is one of the documented phase words (docs/errors.md).
struct Error {
  ErrorKind kind = ErrorKind::Unknown;
  std::string host;  // empty when no node is involved
  std::optional<int> rank;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::optional<int> pid;
  std::optional<int> count;  // how many processes reported the same thing
  std::string phase;
  std::string executable;
  std::string detail;                 // the one extra fact a kind needs: path:line, option, ...
  std::vector<std::string> evidence;  // raw lines it was read from, verbatim

  friend bool operator==(const Error&, const Error&) = default;
};

/// Kebab-case JSON spelling, e.g. "rank-signaled".
std::string_view kind_name(ErrorKind kind);
/// Inverse of kind_name(); nullopt for an unknown spelling.
std::optional<ErrorKind> kind_from_name(std::string_view name);

/// Retry classes of docs/errors.md: whether a whole-job restart can possibly help.
enum class RetryClass {
  Never,
  UntilStartDeadline,
  WithinBudget,
  WithinBudgetStopOnRepeat,
  NoRestart
};
RetryClass retry_class(const Error& error);
/// True for the classes a restart budget may be spent on.
bool is_retryable(const Error& error);

/// Signal name for a number ("SIGSEGV"), or "signal N" when unknown.
std::string signal_name(int signal);

/// True for the signals a process's own fault raises (SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
/// SIGILL, SIGTRAP, SIGSYS), as opposed to a kill sent from outside.
bool is_crash_signal(int signal);

}  // namespace mpilaunch
