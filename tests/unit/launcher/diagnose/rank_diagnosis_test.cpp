#include <doctest/doctest.h>

#include "launcher/diagnose/rank_diagnosis.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {
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
const Error kAbort{.kind = ErrorKind::RankCalledAbort,
                   .host = "node1",
                   .rank = 0,
                   .exit_code = 1,
                   .pid = 42,
                   .phase = "running",
                   .executable = "./app"};
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
