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

/// Whether `later`, reaching the launcher while it tears the job down after `first`, is the
/// real cause. Only a crash displaces an MPI_Abort: ranks abort because a peer died (MPICH's
/// UCX connecting in MPI_Init, Open MPI's errors-are-fatal on a broken connection), never
/// the reverse, and a crashed rank is reported once the kernel has torn it down, which can be
/// after its peer's abort request was served.
bool displaces(const protocol::RankExited& later, const protocol::RankExited& first);

/// "startup" (before PMIx_Init), "running" (after it), "finalize" (after PMIx_Finalize).
std::string rank_phase(bool connected, bool finalized);

}  // namespace mpilaunch
