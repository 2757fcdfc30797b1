#include <doctest/doctest.h>

#include "launcher/diagnose/rank_diagnosis.hpp"

#include <algorithm>

#include "common/error_catalog.hpp"
#include "launcher/diagnose/explain.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {
// A rank's end as the launcher types it before any of its text is read: in phase "running",
// with the facts a diagnosis must keep.
Error rank_end(ErrorKind kind, const char* host, int rank, int exit_code, int pid,
               const char* executable) {
  return Error{.kind = kind,
               .host = host,
               .rank = rank,
               .exit_code = exit_code,
               .pid = pid,
               .phase = "running",
               .executable = executable};
}

const char* kComponentText =
    "--------------------------------------------------------------------------\n"
    "A requested component was not found, or was unable to be opened.  This\n"
    "means that this component is either not installed or is unable to be\n"
    "used on your system (e.g., sometimes this means that shared libraries\n"
    "that the component requires are unable to be found/loaded).  Note that\n"
    "Open MPI stopped checking at the first component that it did not find.\n"
    "\n"
    "Host:      node1\n"
    "Framework: btl\n"
    "Component: nosuch\n"
    "--------------------------------------------------------------------------\n";
const Error kAbort = rank_end(ErrorKind::RankCalledAbort, "node1", 0, 1, 42, "./app");
}  // namespace

TEST_CASE(
    "an abort after Open MPI's component text becomes component-not-found, keeping the facts") {
  const Error e = diagnose_rank_failure(kAbort, kComponentText);
  CHECK(e.kind == ErrorKind::ComponentNotFound);
  CHECK(e.rank == 0);
  CHECK(e.host == "node1");
  CHECK(e.exit_code == 1);
  CHECK(e.executable == "./app");
  CHECK(e.detail.find("nosuch") != std::string::npos);
  CHECK_FALSE(e.evidence.empty());
}

TEST_CASE("plain application output and other kinds leave the native error alone") {
  CHECK(diagnose_rank_failure(kAbort, "my solver diverged\n") == kAbort);
  CHECK(diagnose_rank_failure(kAbort, "") == kAbort);
  const Error segv{.kind = ErrorKind::RankSignaled, .rank = 1, .signal = 11};
  CHECK(diagnose_rank_failure(segv, kComponentText) == segv);
  Error finalized = kAbort;
  finalized.phase = "finalize";
  CHECK(diagnose_rank_failure(finalized, kComponentText) == finalized);
}

TEST_CASE("the stderr tail is bounded and starts at a line") {
  std::string tail;
  for (int i = 0; i < 2000; ++i) keep_tail(tail, "line " + std::to_string(i) + "\n");
  CHECK(tail.size() <= kStderrTailBytes);
  CHECK(tail.rfind("line 1999\n") != std::string::npos);
  CHECK(tail.starts_with("line "));
}

namespace {
// Open MPI 4.1.4, --mca btl self,vader, each rank in a mount namespace with its own /dev/shm:
// the job directory its agent made under /dev/shm is not there.
const char* kShmNotSharedText =
    "[vm:13048] shmem: mmap: an error occurred while determining whether or not "
    "/dev/shm/mpilaunch-0-94187957/node0/vader/vader_segment.vm.0.f9d42f10.1 could be created.\n"
    "--------------------------------------------------------------------------\n"
    "At least one pair of MPI processes are unable to reach each other for\n"
    "MPI communications.  This means that no Open MPI device has indicated\n"
    "that it can be used to communicate between these processes.  This is\n"
    "an error; Open MPI requires that all MPI processes be able to reach\n"
    "each other.  This error can sometimes be the result of forgetting to\n"
    "specify the \"self\" BTL.\n"
    "\n"
    "  Process 1 ([[63956,12048],1]) is on host: vm\n"
    "  Process 2 ([[63956,12048],0]) is on host: vm\n"
    "  BTLs attempted: self\n"
    "\n"
    "Your MPI job is now going to abort; sorry.\n"
    "--------------------------------------------------------------------------\n"
    "[vm:13048] *** An error occurred in MPI_Init\n"
    "[vm:13048] *** reported by process [4191432464,1]\n"
    "[vm:13048] *** on a NULL communicator\n"
    "[vm:13048] *** Unknown error\n";
// The same with a shared /dev/shm of 1 MiB (Open MPI 5.0.7 names an sm_segment).
const char* kShmFullText =
    "--------------------------------------------------------------------------\n"
    "It appears as if there is not enough space for "
    "/dev/shm/mpilaunch-0-a71e8ebd/node0/vader/sm_segment.vm.0.c9cb0000.0 (the shared-memory "
    "backing\n"
    "file). It is likely that your MPI job will now either abort or experience\n"
    "performance degradation.\n"
    "\n"
    "  Local host:  vm\n"
    "  Space Requested: 16777216 B\n"
    "  Space Available: 1040384 B\n"
    "--------------------------------------------------------------------------\n"
    "[vm:13047] *** An error occurred in MPI_Init\n"
    "[vm:13047] *** on a NULL communicator\n";
const Error kInitExit = rank_end(ErrorKind::RankExitNonzero, "vm", 1, 1, 13048, "./hello");
}  // namespace

TEST_CASE("an MPI_Init failure after Open MPI's shared-memory warnings names /dev/shm") {
  const Error unshared = diagnose_rank_failure(kInitExit, kShmNotSharedText);
  CHECK(unshared.kind == ErrorKind::MpiInitFailed);
  CHECK(unshared.phase == "shared-memory");
  CHECK(unshared.rank == 1);
  CHECK(unshared.exit_code == 1);
  const bool names_line =
      std::any_of(unshared.evidence.begin(), unshared.evidence.end(),
                  [](const std::string& l) { return l.find("shmem: mmap") != std::string::npos; });
  CHECK(names_line);
  CHECK(hint(unshared).find("/dev/shm") != std::string::npos);
  CHECK(hint(unshared).find("bind-mount") != std::string::npos);

  const Error full = diagnose_rank_failure(kInitExit, kShmFullText);
  CHECK(full.kind == ErrorKind::MpiInitFailed);
  CHECK(full.phase == "shared-memory-full");
  CHECK(hint(full).find("--shm-size") != std::string::npos);
}

TEST_CASE("shared-memory warnings alone are never the cause") {
  // The job ran on (over TCP): the warning does not make a failure of a clean exit ...
  const std::string warning_only =
      "[vm:13048] shmem: mmap: an error occurred while determining whether or not "
      "/dev/shm/x/vader_segment.vm.0.1 could be created.\n";
  CHECK_FALSE(explain_text(warning_only, 0).error);
  // ... and a rank that fails later for its own reasons keeps its own error.
  CHECK(diagnose_rank_failure(kInitExit, warning_only + "my solver diverged\n") == kInitExit);
  // Without the warnings an MPI_Init failure has no phase from its text.
  const Error plain =
      diagnose_rank_failure(kInitExit, "[vm:1] *** An error occurred in MPI_Init\n");
  CHECK(plain.kind == ErrorKind::MpiInitFailed);
  CHECK(plain.phase == "running");
}

TEST_CASE("a peer's MPI_Init failure names the cause a rank only aborted with") {
  // Open MPI 5: rank 1 aborts first with only its shared-memory warning (the help text went
  // once, into rank 0's stderr); rank 0 ends during the teardown with the text.
  const std::string rank1_tail =
      "[vm:13048] shmem: mmap: an error occurred while determining whether or not "
      "/dev/shm/x/sm_segment.vm.0.1 could be created.\n";
  const Error aborted = rank_end(ErrorKind::RankCalledAbort, "vm", 1, 14, 13048, "./hello");
  const Error first = diagnose_rank_failure(aborted, rank1_tail);
  REQUIRE(first == aborted);  // its own words name nothing
  Error rank0 = aborted;
  rank0.rank = 0;
  const Error later = diagnose_rank_failure(rank0, kShmNotSharedText);
  REQUIRE(later.kind == ErrorKind::MpiInitFailed);
  CHECK(explains_failure(first, later));
  CHECK(explains_failure(kInitExit, diagnose_rank_failure(kAbort, kComponentText)));

  // A cause already diagnosed stays; so does one in MPI_Finalize.
  CHECK_FALSE(explains_failure(later, diagnose_rank_failure(kAbort, kComponentText)));
  Error finalizing = aborted;
  finalizing.phase = "finalize";
  CHECK_FALSE(explains_failure(finalizing, later));
  // Crashes and the launcher's own errors are never revised by a peer's text.
  const Error segv{.kind = ErrorKind::RankSignaled, .rank = 1, .signal = 11};
  CHECK_FALSE(explains_failure(segv, later));
  CHECK_FALSE(explains_failure(Error{.kind = ErrorKind::Timeout}, later));
  // What a teardown can provoke in a peer (a lost PMIx server, no memory) revises nothing.
  CHECK_FALSE(explains_failure(aborted, Error{.kind = ErrorKind::PmixError, .rank = 0}));
  CHECK_FALSE(explains_failure(aborted, Error{.kind = ErrorKind::OutOfResources, .rank = 0}));
  CHECK_FALSE(explains_failure(aborted, aborted));
}

TEST_CASE("a rank's peers on its node complete its diagnosis, never overrule it") {
  // Open MPI 5, /dev/shm too small: rank 1 printed the warning that names the step, rank 0 the
  // failed MPI_Init.
  const std::string full_warning =
      "--------------------------------------------------------------------------\n"
      "It appears as if there is not enough space for /dev/shm/x/sm_segment.vm.0.1 (the "
      "shared-memory backing\n"
      "file). It is likely that your MPI job will now either abort or experience\n"
      "performance degradation.\n"
      "--------------------------------------------------------------------------\n";
  const std::string init_failed =
      "[vm:00000] *** An error occurred in MPI_Init\n[vm:00000] *** on a NULL communicator\n";
  const Error rank1 = rank_end(ErrorKind::RankCalledAbort, "vm", 1, 14, 7, "./hello");
  // Its own words name nothing: the peers' name the cause and the step; the facts stay its own.
  const Error from_peers = diagnose_with_peers(rank1, full_warning, init_failed);
  CHECK(from_peers.kind == ErrorKind::MpiInitFailed);
  CHECK(from_peers.phase == "shared-memory-full");
  CHECK(from_peers.rank == 1);
  CHECK(from_peers.pid == 7);
  CHECK(from_peers.exit_code == 14);
  // Its own words name the cause, the peers' the step.
  Error rank0 = rank1;
  rank0.rank = 0;
  const Error own_cause = diagnose_with_peers(rank0, init_failed, full_warning);
  CHECK(own_cause.kind == ErrorKind::MpiInitFailed);
  CHECK(own_cause.phase == "shared-memory-full");
  CHECK(own_cause.rank == 0);
  // No peers' text, or none that names anything: the rank's own diagnosis.
  CHECK(diagnose_with_peers(rank1, full_warning, "") == diagnose_rank_failure(rank1, full_warning));
  CHECK(diagnose_with_peers(rank1, "", "my solver diverged\n") == rank1);
  // A cause of another kind in the rank's own words stays.
  const Error component = diagnose_with_peers(kAbort, kComponentText, init_failed);
  CHECK(component.kind == ErrorKind::ComponentNotFound);
}
