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

/// "startup" (before PMIx_Init), "running" (after it), "finalize" (after PMIx_Finalize).
std::string rank_phase(bool connected, bool finalized);

}  // namespace mpilaunch
