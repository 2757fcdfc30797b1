// Wrap mode's command line: mpilaunch's own options anywhere before the program, mixed with
// mpirun's; mpirun's options keep their values; the program's words pass untouched.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launcher/job/wrap_options.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("wrap options: own options are taken out wherever they stand before the program") {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> passthrough;
    std::string events;
    int max_restarts;
  };
  const Case cases[] = {
      {{"-n", "2", "--events", "ev.jsonl", "./app"}, {"-n", "2", "./app"}, "ev.jsonl", 0},
      {{"--events=ev", "-np", "2", "--max-restarts", "3", "-x", "A=1", "./app", "a"},
       {"-np", "2", "-x", "A=1", "./app", "a"},
       "ev",
       3},
      // mpirun options with values are skipped whole: '--events' as -x's value is mpirun's.
      {{"-x", "--events", "--mca", "btl", "self", "./app"},
       {"-x", "--events", "--mca", "btl", "self", "./app"},
       "",
       0},
      // After the program everything is the program's, even our spellings.
      {{"-n", "1", "./app", "--events", "x", "--max-restarts", "2"},
       {"-n", "1", "./app", "--events", "x", "--max-restarts", "2"},
       "",
       0},
      {{"--enable-recovery", "-N", "3", "--max-restarts=100", "--allow-run-as-root", "-bind-to",
        "none", "python3", "t.py"},
       {"-N", "3", "--allow-run-as-root", "-bind-to", "none", "python3", "t.py"},
       "",
       100},
      // "--" ends the options for mpirun too: it passes on.
      {{"--", "./app", "--events", "x"}, {"--", "./app", "--events", "x"}, "", 0},
      // MPMD: every context passes through.
      {{"-n", "1", "a", ":", "-n", "2", "b"}, {"-n", "1", "a", ":", "-n", "2", "b"}, "", 0},
      // A prterun option the table does not know passes alone.
      {{"--display", "map", "--events", "e", "./app"},
       {"--display", "map", "--events", "e", "./app"},
       "",
       0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args.front());
    const auto w = parse_wrap_options(c.args);
    REQUIRE_MESSAGE(w.has_value(), w.error().detail);
    CHECK(w->passthrough == c.passthrough);
    CHECK(w->events_file == c.events);
    CHECK(w->restart.max_restarts == c.max_restarts);
  }
}

TEST_CASE("wrap options: restart options read as the native parser reads them") {
  auto w =
      parse_wrap_options({"--restart-on", "rank-exit-nonzero", "--restart-backoff", "2,10", "a"});
  REQUIRE(w);
  REQUIRE(w->restart.restart_on);
  CHECK(w->restart.restart_on->count(ErrorKind::RankExitNonzero) == 1);
  CHECK(w->restart.first_backoff == std::chrono::seconds(2));
  CHECK(w->restart.max_backoff == std::chrono::seconds(10));
  CHECK(w->passthrough == std::vector<std::string>{"a"});
  w = parse_wrap_options({"--mpirun", "/opt/ompi/bin/mpirun", "-n", "1", "a"});
  REQUIRE(w);
  CHECK(w->mpirun == "/opt/ompi/bin/mpirun");
}

TEST_CASE("wrap options: bad values and options without meaning over mpirun are refused") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--max-restarts", "x", "a"},
                                             {"-n", "2", "--status", "s.json", "a"},
                                             {"--launcher=ssh", "a"},
                                             {"--events"},
                                             {"--events", "e"}}) {
    CAPTURE(args.front());
    const auto w = parse_wrap_options(args);
    REQUIRE_FALSE(w.has_value());
    CHECK(w.error().kind == ErrorKind::BadOption);
  }
  const auto status = parse_wrap_options({"-n", "2", "--status", "s.json", "a"});
  CHECK(status.error().detail.find("--status") != std::string::npos);
}
