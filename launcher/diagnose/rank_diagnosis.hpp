#pragma once
/// Sharpens a rank failure with what the rank printed: Open MPI reports a missing component or
/// a failed MPI_Init in text and then aborts, so "rank 0 called MPI_Abort" alone hides the cause.
/// Pure: the native error and the tail of the rank's stderr in, the error to report out.

#include <string>
#include <string_view>

#include "common/error.hpp"

namespace mpilaunch::launcher {

/// How much of a rank's stderr the supervisor keeps for diagnosis.
inline constexpr std::size_t kStderrTailBytes = 8 * 1024;

/// Appends `data` to `tail`, keeping at most kStderrTailBytes (from a line start when possible).
void keep_tail(std::string& tail, std::string_view data);

/// When `native` is an exit or abort during startup or the run and the rank's own text names
/// a more specific cause (component-not-found, mpi-init-failed, pmix-error, out-of-resources),
/// returns that kind with the native rank, host, pid, codes and the text as evidence.
Error diagnose_rank_failure(const Error& native, std::string_view stderr_tail);

/// How much of the other ranks' stderr on a node diagnose_with_peers() reads at most.
inline constexpr std::size_t kPeersTailBytes = 64 * 1024;

/// diagnose_rank_failure() with the text of the rank's peers on its node too (`peers_tail`,
/// their stderr tails one after the other). Open MPI 5 prints a help text once for all the ranks
/// of a node that hit it, in the stderr of one of them: the shared-memory warning that names
/// the step in one rank's, the failed MPI_Init in another's. The rank's own text comes first and
/// wins a tie; the peers' text names the cause when the rank's own names none, and the step
/// (shared-memory, shared-memory-full) of the cause the rank's own text names.
Error diagnose_with_peers(const Error& native, std::string_view own_tail,
                          std::string_view peers_tail);

/// Whether `later`, the diagnosed failure of another rank that ended while the job was being
/// torn down after `current`, names the cause that `current` could not: `current` is still a
/// bare abort or non-zero exit (its rank's own text named nothing) and `later` is a failure to
/// start MPI (mpi-init-failed, component-not-found). Open MPI 5 prints the help text of a failed
/// MPI_Init once for all the ranks that hit it, in the stderr of one of them, and a rank whose
/// abort reaches the launcher first may have printed nothing of it. A later rank never
/// displaces a cause that is already diagnosed, nor with a failure of the run (pmix-error,
/// out-of-resources), which a teardown can provoke.
bool explains_failure(const Error& current, const Error& later);

}  // namespace mpilaunch::launcher
