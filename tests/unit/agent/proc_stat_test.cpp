#include <doctest/doctest.h>

#include "agent/proc_stat.hpp"

using namespace mpilaunch::agent;

TEST_CASE("proc stat: name, parent and start time, whatever the name holds") {
  // A line as Linux writes it, for a bash run by sshd.
  const auto bash = parse_proc_stat(
      "4242 (bash) S 4241 4242 4242 0 -1 4194560 1234 0 0 0 3 1 0 0 20 0 1 0 987654 8896512 "
      "1020 18446744073709551615 1 1 0 0 0 0 65536 3670020 1266777851 0 0 0 17 1 0 0 0 0 0 0 0 "
      "0 0 0 0 0 0\n");
  REQUIRE(bash);
  CHECK(bash->comm == "bash");
  CHECK(bash->ppid == 4241);
  CHECK(bash->start_ticks == 987654);

  // Spaces and parentheses inside the name: it ends at the last ')'.
  const auto odd = parse_proc_stat("7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0");
  REQUIRE(odd);
  CHECK(odd->comm == "a) b (c)");
  CHECK(odd->ppid == 1);
  CHECK(odd->start_ticks == 55);
}

TEST_CASE("proc stat: truncated or garbled text is refused") {
  CHECK(!parse_proc_stat(""));
  CHECK(!parse_proc_stat("4242 bash S 1"));        // no parentheses
  CHECK(!parse_proc_stat("4242 (bash) S 1 2 3"));  // stops before field 22
  CHECK(
      !parse_proc_stat("4242 (bash) S x 4242 4242 0 -1 4194560 1234 0 0 0 3 1 0 0 20 0 1 0 "
                       "987654 1"));  // a parent that is no number
  CHECK(
      !parse_proc_stat("4242 (bash) S 1 4242 4242 0 -1 4194560 1234 0 0 0 3 1 0 0 20 0 1 0 "
                       "-5 1"));  // a negative start time
}
