#pragma once
/// Turns the facts an agent reports about an ended rank into an Error, or nothing on success.

#include <optional>
#include <string>

#include "common/error.hpp"
#include "common/protocol.hpp"

namespace mpilaunch {

/// Success is an exit code of 0 with MPI_Finalize reached (or PMIx never used at all, as for
/// a plain program). Otherwise, in order: MPI_Abort -> rank-called-abort; a signal ->
/// rank-signaled; a non-zero code -> rank-exit-nonzero; code 0 after PMIx_Init but without
/// finalize -> rank-no-finalize. `phase` says how far the rank got: startup, running, finalize.
std::optional<Error> classify_rank_exit(const protocol::RankExited& exit, const std::string& host);

/// Whether the rank crashed by a fault of its own: killed by SIGSEGV, SIGBUS, SIGFPE, SIGILL,
/// SIGABRT, SIGSYS or SIGTRAP without having called MPI_Abort. No launcher or runtime sends
/// those, so such an end is never a consequence of the job's teardown.
bool crashed(const protocol::RankExited& exit);

/// Whether the failed rank `later`, reaching the launcher while it tears the job down after
/// `first`, is the real cause. Only a rank's death displaces, and only an MPI_Abort: ranks
/// abort because a peer died (MPICH's UCX connecting in MPI_Init, Open MPI's errors-are-fatal
/// on a broken connection), never the reverse, yet the dead peer's report can arrive second (a
/// crashed process is reaped once the kernel has torn it down; a report waits for the rank's
/// output to drain). A crash always displaces (no teardown sends those signals); any other end
/// only when it came before the teardown reached its agent, as the teardown's SIGTERM makes
/// some programs exit non-zero.
bool displaces(const protocol::RankExited& later, const protocol::RankExited& first);

/// Whether the rank was killed by SIGTERM or SIGKILL that the job's teardown did not send (it
/// ended before the teardown reached its agent) and not after MPI_Abort: someone outside the
/// job killed it, e.g. Slurm ending the job step, which takes the agent down at the same time.
bool killed_from_outside(const protocol::RankExited& exit);

/// "startup" (before PMIx_Init), "running" (after it), "finalize" (after PMIx_Finalize).
std::string rank_phase(bool connected, bool finalized);

}  // namespace mpilaunch
