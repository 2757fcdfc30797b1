#include <doctest/doctest.h>

#include "common/rank_exit.hpp"

using namespace mpilaunch;
using protocol::RankExited;

TEST_CASE("rank exits are classified by the documented precedence") {
  struct Case {
    RankExited exit;
    std::optional<ErrorKind> kind;
    std::optional<int> code;
  };
  const Case cases[] = {
      {RankExited{0, 1, Exited{0}, std::nullopt, true, true}, std::nullopt, std::nullopt},
      {RankExited{0, 1, Exited{0}, std::nullopt, false, false}, std::nullopt, std::nullopt},
      {RankExited{1, 1, Exited{3}, std::nullopt, true, false}, ErrorKind::RankExitNonzero, 3},
      {RankExited{1, 1, Signaled{11, false}, std::nullopt, true, false}, ErrorKind::RankSignaled,
       139},
      {RankExited{1, 1, Exited{7}, 7, true, false}, ErrorKind::RankCalledAbort, 7},
      {RankExited{1, 1, Exited{0}, 0, true, false}, ErrorKind::RankCalledAbort, 0},
      {RankExited{1, 1, Exited{0}, std::nullopt, true, false}, ErrorKind::RankNoFinalize, 0},
  };
  for (const Case& c : cases) {
    const auto e = classify_rank_exit(c.exit, "n1");
    REQUIRE(e.has_value() == c.kind.has_value());
    if (!e) continue;
    CHECK(e->kind == *c.kind);
    CHECK(e->exit_code == c.code);
    CHECK(e->rank == static_cast<int>(c.exit.rank));
    CHECK(e->host == "n1");
  }
  CHECK(classify_rank_exit(RankExited{0, 1, Exited{2}, std::nullopt, false, false}, "")->phase ==
        "startup");
}

TEST_CASE("a rank's death displaces an MPI_Abort that was reported first, the teardown's not") {
  // Ended after the teardown's Kill reached the agent: the last field false.
  const RankExited aborted{0, 10, Signaled{9, false}, 205114895, true, false};  // MPICH: SIGKILLed
  const RankExited segv{3, 13, Signaled{11, false}, std::nullopt, true, false, false};
  const RankExited bus{3, 13, Signaled{7, true}, std::nullopt, true, false, false};
  const RankExited sigabrt{3, 13, Signaled{6, true}, std::nullopt, true, false, false};
  const RankExited term{3, 13, Signaled{15, false}, std::nullopt, true, false, false};
  const RankExited kill{3, 13, Signaled{9, false}, std::nullopt, true, false, false};
  const RankExited exit1{3, 13, Exited{1}, std::nullopt, true, false, false};
  const RankExited aborted_too{3, 13, Exited{5}, 5, true, false};
  const RankExited exit1_early{3, 13, Exited{1}, std::nullopt, true, false, true};
  const RankExited nofinalize_early{3, 13, Exited{0}, std::nullopt, true, false, true};
  const RankExited term_early{3, 13, Signaled{15, false}, std::nullopt, true, false, true};

  CHECK(crashed(segv));
  CHECK(crashed(bus));
  CHECK(crashed(sigabrt));
  CHECK_FALSE(crashed(term));  // the teardown's own signals
  CHECK_FALSE(crashed(kill));
  CHECK_FALSE(crashed(exit1));    // a program's exit: may be its reaction to the teardown
  CHECK_FALSE(crashed(aborted));  // MPI_Abort, even when the agent SIGKILLed it afterwards

  CHECK(displaces(segv, aborted));  // a crash, even when reaped after the Kill
  CHECK(displaces(sigabrt, aborted));
  CHECK_FALSE(displaces(term, aborted));   // the teardown's SIGTERM
  CHECK_FALSE(displaces(exit1, aborted));  // a program's reaction to the teardown
  CHECK(displaces(exit1_early, aborted));  // ended before the teardown reached its agent
  CHECK(displaces(nofinalize_early, aborted));
  CHECK(displaces(term_early, aborted));         // someone else's SIGTERM
  CHECK_FALSE(displaces(aborted_too, aborted));  // the first abort stays the cause
  CHECK_FALSE(displaces(bus, segv));             // the first crash stays the cause
  CHECK_FALSE(displaces(aborted, segv));
  CHECK_FALSE(displaces(exit1, segv));
}

TEST_CASE("a SIGTERM or SIGKILL the teardown did not send is a kill from outside") {
  CHECK(killed_from_outside(RankExited{0, 1, Signaled{15, false}, std::nullopt, false, false}));
  CHECK(killed_from_outside(RankExited{0, 1, Signaled{9, false}, std::nullopt, true, false}));
  CHECK_FALSE(
      killed_from_outside(RankExited{0, 1, Signaled{15, false}, std::nullopt, true, false, false}));
  CHECK_FALSE(killed_from_outside(RankExited{0, 1, Signaled{9, false}, 3, true, false}));
  CHECK_FALSE(
      killed_from_outside(RankExited{0, 1, Signaled{11, false}, std::nullopt, true, false}));
  CHECK_FALSE(killed_from_outside(RankExited{0, 1, Exited{1}, std::nullopt, true, false}));
}
