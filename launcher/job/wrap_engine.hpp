#pragma once
/// [io] Wrap mode: `mpilaunch --engine=ompi [wrap options] [mpirun options] PROGRAM ...` runs
/// the installed mpirun (Open MPI 4 or prterun 5), passes its output through unchanged and in
/// real time, classifies it as it streams (ConsoleParser), and gives the same events file,
/// exit-code contract and restart budget as the native engine.

#include <string>
#include <vector>

namespace mpilaunch::launcher {

/// `args` are the words after `--engine=ompi` (or `--engine ompi`). Returns the exit code.
int run_wrapped(const std::vector<std::string>& args);

/// Open MPI's major version from `mpirun --version` text ("mpirun (Open MPI) 4.1.4",
/// "prterun (Open MPI) 5.0.7"); 0 when it is not Open MPI (e.g. Hydra).
int open_mpi_major(const std::string& version_text);

}  // namespace mpilaunch::launcher
