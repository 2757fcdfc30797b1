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

}  // namespace mpilaunch::launcher
