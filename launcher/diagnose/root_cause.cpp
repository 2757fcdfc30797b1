#include "launcher/diagnose/root_cause.hpp"

#include <algorithm>
#include <limits>

namespace mpilaunch::launcher {
namespace {

// Lower is more likely the cause. Refusals and configuration outrank what they set off; a
// rank's own failure outranks the teardown kills after it; vague start-up failures and
// unrecognised text come last.
int cause_rank(const Finding& f) {
  const Error& e = f.error;
  int r = 0;
  switch (e.kind) {
    case ErrorKind::RunAsRootRefused:
    case ErrorKind::BadOption:
    case ErrorKind::HostfileError:
    case ErrorKind::ComponentNotFound:
    case ErrorKind::UnsupportedMpiCall:
    case ErrorKind::NotEnoughSlots:
    case ErrorKind::ExecutableNotFound:
    case ErrorKind::ExecutableNotExecutable:
    case ErrorKind::WdirError:
    case ErrorKind::UnknownHost:
    case ErrorKind::AgentStartFailed:
    case ErrorKind::OutOfResources:
    case ErrorKind::ProtocolMismatch:
      r = 0;
      break;
    case ErrorKind::Timeout:
    case ErrorKind::RankCalledAbort:
    case ErrorKind::AgentLost:
    case ErrorKind::MalformedFrame:
    case ErrorKind::Interrupted:
    case ErrorKind::OutputError:
      r = 1;
      break;
    case ErrorKind::RankExitNonzero:
    case ErrorKind::RankNoFinalize:
      r = 2;
      break;
    case ErrorKind::RankSignaled:
      // SIGKILL and SIGTERM are what a runtime sends the survivors while it tears a job down.
      r = (e.signal && (*e.signal == 9 || *e.signal == 15)) ? 3 : 2;
      break;
    case ErrorKind::MpiInitFailed:
    case ErrorKind::PmixError:
      r = 4;
      break;
    case ErrorKind::Unknown:
      r = 5;
      break;
  }
  if (f.role == Role::Consequence) r += 10;
  if (f.marked_root) r = -1;
  return r;
}

// Fields the runtime's exit code supplies when the text lacks them.
void complete(Error& e, std::optional<int> rc) {
  if (e.kind == ErrorKind::RankSignaled && e.signal && !e.exit_code) e.exit_code = 128 + *e.signal;
  // A rank process that failed in MPI_Init (its pid known: not orte_init or prte_init in the
  // launcher) ends the job with its own code: prterun 5.0.7 passes it on without an exit
  // banner when it lost the help text of a one-rank job (measured: 14, as with the text).
  const bool rank_init_failure = e.kind == ErrorKind::MpiInitFailed && e.pid;
  const bool rc_is_its_status = e.kind == ErrorKind::RunAsRootRefused ||
                                e.kind == ErrorKind::NotEnoughSlots ||
                                e.kind == ErrorKind::RankExitNonzero || rank_init_failure;
  if (rc_is_its_status && !e.exit_code && rc && *rc != 0) e.exit_code = *rc;
}

// Without any recognised text, only the exit code and the most error-like block are left.
// ORTE and PRRTE always print a banner for a failed rank, Hydra never does; a runtime that
// printed nothing readable most likely passed a rank's status through.
std::optional<Error> fallback(Runtime runtime, std::optional<int> rc,
                              const std::optional<UnmatchedBlock>& unmatched) {
  const bool banner = unmatched && unmatched->bannered;
  if (rc && *rc != 0) {
    if (runtime == Runtime::Hydra && *rc < 255)
      return Error{.kind = ErrorKind::RankExitNonzero, .exit_code = *rc};
    const bool open_mpi_or_unknown =
        runtime == Runtime::Orte4 || runtime == Runtime::Prrte5 || runtime == Runtime::Unknown;
    if (open_mpi_or_unknown && !banner && *rc > 128 && *rc < 160)
      return Error{.kind = ErrorKind::RankSignaled, .exit_code = *rc, .signal = *rc - 128};
    if (runtime == Runtime::Unknown && !banner && *rc < 128)
      return Error{.kind = ErrorKind::RankExitNonzero, .exit_code = *rc};
  } else if (!banner || rc) {
    return std::nullopt;  // exited 0, or no exit code and no runtime message
  }
  Error e{.kind = ErrorKind::Unknown, .exit_code = rc};
  if (unmatched) {
    e.detail = unmatched->first_line;
    e.evidence = unmatched->evidence;
  }
  return e;
}

// What the context findings of the root cause's kind add: the first one's phase (the step
// that failed, e.g. shared-memory) and each one's evidence.
void sharpen(Error& root, const std::vector<const Finding*>& context) {
  for (const Finding* f : context) {
    if (f->error.kind != root.kind) continue;
    if (root.phase.empty()) root.phase = f->error.phase;
    append_evidence(root.evidence, f->error.evidence);
  }
}

// A rank whose MPI_Init failed and that then exited non-zero: the runtime's exit banner is
// the consequence, the failure inside MPI_Init the cause. (prterun 5 loses the help text that
// would name it more precisely about one time in three, leaving only these two.) Returns the
// MPI_Init failure of the same process when `best` is such an exit, else `best`.
std::size_t init_failure_behind(const std::vector<const Finding*>& kept, std::size_t best) {
  const Error& exit = kept[best]->error;
  if (exit.kind != ErrorKind::RankExitNonzero || kept[best]->marked_root) return best;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const Finding& f = *kept[i];
    if (f.error.kind != ErrorKind::MpiInitFailed || f.role != Role::Cause) continue;
    const bool same_rank = !f.error.rank || !exit.rank || *f.error.rank == *exit.rank;
    const bool same_host = f.error.host.empty() || exit.host.empty() || f.error.host == exit.host;
    if (same_rank && same_host) return i;
  }
  return best;
}

// The exit banner's facts about the process, where the MPI_Init failure's text had none.
void fill_from_exit(Error& init, const Error& exit) {
  if (init.host.empty()) init.host = exit.host;
  if (!init.rank) init.rank = exit.rank;
  if (!init.pid) init.pid = exit.pid;
  if (!init.exit_code) init.exit_code = exit.exit_code;
  if (init.executable.empty()) init.executable = exit.executable;
}

}  // namespace

Explanation choose_root_cause(const std::vector<Finding>& findings, Runtime runtime,
                              std::optional<int> rc,
                              const std::optional<UnmatchedBlock>& unmatched) {
  Explanation out{.runtime = std::string(runtime_name(runtime)), .rc = rc};
  std::vector<const Finding*> kept;
  std::vector<const Finding*> context;
  for (const Finding& f : findings) {
    if (f.role == Role::Context)
      context.push_back(&f);
    else if (!(f.role == Role::Warning && rc && *rc == 0))
      kept.push_back(&f);
  }
  if (kept.empty()) {
    out.error = fallback(runtime, rc, unmatched);
    return out;
  }
  std::size_t best = 0;
  int best_rank = std::numeric_limits<int>::max();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const int r = cause_rank(*kept[i]);
    // Ties go to the earliest line, except job-failed events: a later one revises (or, after a
    // restart, supersedes) the earlier.
    if (r < best_rank || (r == -1 && best_rank == -1)) {
      best_rank = r;
      best = i;
    }
  }
  const std::size_t exit_finding = best;
  best = init_failure_behind(kept, best);
  out.error = kept[best]->error;
  if (best != exit_finding) fill_from_exit(*out.error, kept[exit_finding]->error);
  complete(*out.error, rc);
  sharpen(*out.error, context);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i == best) continue;
    out.secondary.push_back(kept[i]->error);
    complete(out.secondary.back(), std::nullopt);
  }
  return out;
}

}  // namespace mpilaunch::launcher
