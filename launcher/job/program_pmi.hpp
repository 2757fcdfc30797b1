#pragma once
/// Which interface the ranks get (--pmi): PMIx for Open MPI, the PMI wire protocol for MPICH,
/// or both when the program's MPI cannot be told (scripts, wrappers, static programs).
/// Pure: the program's ELF dependencies are read by launcher/job/elf_needed.hpp.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol.hpp"
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

/// MPMD: one interface choice for the job from each application context's (in order, with
/// its program as given): every interface some context needs (a script's "both" with an Open
/// MPI program's PMIx is both), links_mpi only when every context links MPI. Contexts whose
/// programs link Open MPI (PMIx only) and the MPICH family (PMI only) are refused (bad-option):
/// ranks of two MPI libraries cannot share one MPI_COMM_WORLD (mpirun 4.1.4 starts such MPICH
/// ranks as singletons and fails the job, exit 1).
Result<PmiChoice> choose_job_pmi(const std::vector<PmiChoice>& contexts,
                                 const std::vector<std::string>& programs);

/// A rank that failed in PMIx while the job gave it PMI only: the error's detail says so and
/// names the fix (--pmi=pmix or auto). Other errors are left as they are.
void explain_interface_mismatch(Error& error, const PmiChoice& choice);

/// A rank of a program that links MPI, in a job of more than one rank, that ended with status 0
/// without ever reaching its node's PMIx or PMI server: its MPI found no server it could use
/// (Open MPI 5 given PMI only falls back silently) and ran it alone, as rank 0 of a world of 1.
/// The job would "succeed" with N copies of rank 0, so this is a wire-up failure (pmix-error,
/// which explain_interface_mismatch() completes); nothing otherwise.
std::optional<Error> singleton_error(const protocol::RankExited& exit, const std::string& host,
                                     const PmiChoice& choice, std::size_t job_size);

/// "PMIx", "PMI" or "PMIx and PMI".
std::string pmi_label(const PmiChoice& choice);

}  // namespace mpilaunch::launcher
