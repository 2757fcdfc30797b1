#include "common/rank_exit.hpp"

#include <csignal>

namespace mpilaunch {

std::string rank_phase(bool connected, bool finalized) {
  if (finalized) return "finalize";
  return connected ? "running" : "startup";
}

bool crashed(const protocol::RankExited& exit) {
  if (exit.abort_status) return false;
  const auto* signaled = std::get_if<Signaled>(&exit.reason);
  if (signaled == nullptr) return false;
  switch (signaled->signal) {
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGABRT:
    case SIGSYS:
    case SIGTRAP:
      return true;
    default:
      return false;
  }
}

bool killed_from_outside(const protocol::RankExited& exit) {
  const auto* signaled = std::get_if<Signaled>(&exit.reason);
  return signaled != nullptr && !exit.abort_status && exit.ended_before_kill &&
         (signaled->signal == SIGTERM || signaled->signal == SIGKILL);
}

bool displaces(const protocol::RankExited& later, const protocol::RankExited& first) {
  if (!first.abort_status || later.abort_status || later.rank == first.rank) return false;
  return crashed(later) || later.ended_before_kill;
}

std::optional<Error> classify_rank_exit(const protocol::RankExited& exit, const std::string& host) {
  Error e{.host = host,
          .rank = static_cast<int>(exit.rank),
          .pid = exit.pid,
          .phase = rank_phase(exit.connected, exit.finalized)};
  if (exit.abort_status) {
    e.kind = ErrorKind::RankCalledAbort;
    e.exit_code = *exit.abort_status;
    return e;
  }
  if (const auto* signaled = std::get_if<Signaled>(&exit.reason)) {
    e.kind = ErrorKind::RankSignaled;
    e.signal = signaled->signal;
    e.exit_code = 128 + signaled->signal;
    return e;
  }
  const int code = std::get<Exited>(exit.reason).code;
  if (code != 0) {
    e.kind = ErrorKind::RankExitNonzero;
    e.exit_code = code;
    return e;
  }
  if (exit.connected && !exit.finalized) {
    e.kind = ErrorKind::RankNoFinalize;
    e.exit_code = 0;
    return e;
  }
  return std::nullopt;
}

}  // namespace mpilaunch
