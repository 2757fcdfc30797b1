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
