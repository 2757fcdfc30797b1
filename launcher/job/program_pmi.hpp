#pragma once
/// Which interface the ranks get (--pmi): PMIx for Open MPI, the PMI wire protocol for MPICH,
/// or both when the program's MPI cannot be told (scripts, wrappers, static programs).
/// Pure: the program's ELF dependencies are read by launcher/job/elf_needed.hpp.

#include <string>
#include <vector>

#include "common/result.hpp"
#include "launcher/cli/options.hpp"

namespace mpilaunch::launcher {

struct PmiChoice {
  bool pmix = true;    // register ranks with the agents' PMIx servers
  bool pmi = false;    // give every rank a PMI_FD socket
  std::string reason;  // one line for --dry-run and the events file
  /// The program itself links an MPI or PMIx library (read from its ELF): its ranks will reach
  /// PMI(x) init, so none doing so in time is a wire-up failure, not a program without MPI.
  bool links_mpi = false;
  friend bool operator==(const PmiChoice&, const PmiChoice&) = default;
};

/// `program` is the path as resolved on this machine; `needed` its DT_NEEDED list, or the
/// error saying why it could not be read (a script, not found here, ...).
PmiChoice choose_pmi(PmiKind requested, const std::string& program,
                     const Result<std::vector<std::string>>& needed);

/// A rank that failed in PMIx while the job gave it PMI only: the error's detail says so and
/// names the fix (--pmi=pmix or auto). Other errors are left as they are.
void explain_interface_mismatch(Error& error, const PmiChoice& choice);

/// "PMIx", "PMI" or "PMIx and PMI".
std::string pmi_label(const PmiChoice& choice);

}  // namespace mpilaunch::launcher
