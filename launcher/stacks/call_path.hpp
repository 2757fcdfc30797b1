#pragma once
/// A thread's frames as a person reads a hang: the function names normalised (glibc's internal
/// aliases, symbol versions, C++ parameter lists and compiler clones dropped), unknown frames,
/// inlined repeats and the start-up frames below main dropped, and everything inside MPI
/// collapsed to the MPI call the application made. Pure.

#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch::launcher {

/// "__GI___poll" -> "poll", "__libc_start_main@@GLIBC_2.34" -> "__libc_start_main" (kept as a
/// start-up frame), "ns::f(int) const" -> "ns::f", "solve.constprop.0" -> "solve",
/// "PMPI_Allreduce" -> "MPI_Allreduce", "mpi_allreduce_" -> "MPI_Allreduce"; "" for "??".
std::string normalise_function(std::string_view raw);

/// True for a name normalise_function() turned into an MPI call ("MPI_Recv").
bool is_mpi_call(std::string_view normalised);

/// The call path, outermost first ({"main", "solve", "MPI_Allreduce"}), from frames printed
/// innermost first. The path ends at the outermost MPI call when there is one.
std::vector<std::string> call_path(const std::vector<std::string>& frames_innermost_first);

/// "main > solve > MPI_Allreduce".
std::string join_path(const std::vector<std::string>& path);

}  // namespace mpilaunch::launcher
