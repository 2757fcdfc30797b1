#include "launcher/diagnose/rank_diagnosis.hpp"

#include "launcher/diagnose/explain.hpp"

namespace mpilaunch::launcher {

void keep_tail(std::string& tail, std::string_view data) {
  tail.append(data);
  if (tail.size() <= kStderrTailBytes) return;
  std::size_t cut = tail.size() - kStderrTailBytes;
  const std::size_t newline = tail.find('\n', cut);
  if (newline != std::string::npos && newline + 1 < tail.size()) cut = newline + 1;
  tail.erase(0, cut);
}

Error diagnose_rank_failure(const Error& native, std::string_view stderr_tail) {
  if (native.kind != ErrorKind::RankCalledAbort && native.kind != ErrorKind::RankExitNonzero)
    return native;
  if (native.phase == "finalize" || stderr_tail.empty()) return native;
  const Explanation explained = explain_text(stderr_tail, std::nullopt);
  if (!explained.error) return native;
  switch (explained.error->kind) {
    case ErrorKind::ComponentNotFound:
    case ErrorKind::UnsupportedMpiCall:
    case ErrorKind::MpiInitFailed:
    case ErrorKind::PmixError:
    case ErrorKind::OutOfResources:
      break;
    case ErrorKind::RunAsRootRefused:
    case ErrorKind::NotEnoughSlots:
    case ErrorKind::ExecutableNotFound:
    case ErrorKind::ExecutableNotExecutable:
    case ErrorKind::WdirError:
    case ErrorKind::AgentStartFailed:
    case ErrorKind::AgentLost:
    case ErrorKind::UnknownHost:
    case ErrorKind::HostfileError:
    case ErrorKind::RankExitNonzero:
    case ErrorKind::RankSignaled:
    case ErrorKind::RankCalledAbort:
    case ErrorKind::RankNoFinalize:
    case ErrorKind::BadOption:
    case ErrorKind::Timeout:
    case ErrorKind::ProtocolMismatch:
    case ErrorKind::MalformedFrame:
    case ErrorKind::Interrupted:
    case ErrorKind::OutputError:
    case ErrorKind::Unknown:
      return native;  // the rank's own words add nothing more specific
  }
  Error sharper = *explained.error;
  sharper.host = native.host;
  sharper.rank = native.rank;
  sharper.pid = native.pid;
  sharper.exit_code = native.exit_code;
  sharper.signal = native.signal;
  // The step the rank's words name (shared-memory) says more than where the job was.
  if (sharper.phase.empty()) sharper.phase = native.phase;
  sharper.executable = native.executable;
  sharper.count.reset();
  return sharper;
}

Error diagnose_with_peers(const Error& native, std::string_view own_tail,
                          std::string_view peers_tail) {
  Error own = diagnose_rank_failure(native, own_tail);
  if (peers_tail.empty()) return own;
  std::string text(own_tail);
  if (!text.empty() && text.back() != '\n') text += '\n';
  text.append(peers_tail);
  Error wider = diagnose_rank_failure(native, text);
  // The peers' words fill in what the rank's own did not say; they never replace a cause of
  // another kind that the rank's own words name.
  if (own.kind == native.kind || wider.kind == own.kind) return wider;
  return own;
}

bool explains_failure(const Error& current, const Error& later) {
  if (current.kind != ErrorKind::RankCalledAbort && current.kind != ErrorKind::RankExitNonzero)
    return false;
  if (current.phase == "finalize") return false;
  return later.kind == ErrorKind::MpiInitFailed || later.kind == ErrorKind::ComponentNotFound;
}

}  // namespace mpilaunch::launcher
