#include <doctest/doctest.h>

#include <string>

#include "launcher/diagnose/console_line.hpp"

using namespace mpilaunch::launcher;

TEST_CASE("console line: prefixes are stripped in a loop and kept as hints") {
  struct Row {
    std::string in;
    std::string text;
    const char* host;
    int pid;   // -1: none
    int rank;  // -1: none
    bool rank_output;
  };
  const Row rows[] = {
      {"plain text", "plain text", "", -1, -1, false},
      {"[vm:16179] *** Process received signal ***", "*** Process received signal ***", "vm", 16179,
       -1, false},
      {"[ohpc1:04221] [[41394,0],0] ORTE_ERROR_LOG: x", "ORTE_ERROR_LOG: x", "ohpc1", 4221, -1,
       false},
      {"[1,3]<stderr>:boom", "boom", "", -1, 3, true},
      {"[1,3]<stdout>: boom", "boom", "", -1, 3, true},
      {"[1,WILDCARD]<stderr>: The user-provided time limit", "The user-provided time limit", "", -1,
       -1, false},
      {"[1,WILDCARD]<stderr>: " + std::string(74, '-'), std::string(74, '-'), "", -1, -1, false},
      {"[2] [vm:19850:0:19850] Caught signal 11 (Segfault)", "Caught signal 11 (Segfault)", "vm",
       19850, 2, true},
      {"[mpiexec@node-a] main (ui/mpich/mpiexec.c:325): x", "main (ui/mpich/mpiexec.c:325): x",
       "node-a", -1, -1, false},
      {"[proxy:0:1@node-b] launch_procs: y", "launch_procs: y", "node-b", -1, -1, false},
      {"Sun Nov 22 23:21:19 2026<stderr>:[vm:16723] Signal: Segmentation fault (11)",
       "Signal: Segmentation fault (11)", "vm", 16723, -1, true},
      {"[Sun Nov 22 23:25:06 2026]<stderr>: rank 1: aborting with 5", "rank 1: aborting with 5", "",
       -1, -1, true},
      {"2026-11-22T23:01:02.123Z stderr F mpirun noticed that", "mpirun noticed that", "", -1, -1,
       false},
      {"=   PID 17258 RUNNING AT vm", "PID 17258 RUNNING AT vm", "", -1, -1, false},
      {"  Exit code:    3  ", "Exit code: 3", "", -1, -1, false},
      {"[ 0] /lib/libc.so.6(+0x3c050)", "[ 0] /lib/libc.so.6(+0x3c050)", "", -1, -1, false},
  };
  for (const Row& r : rows) {
    CAPTURE(r.in);
    const ConsoleLine line = parse_console_line(r.in);
    CHECK(line.text == r.text);
    CHECK(line.host == r.host);
    CHECK(line.pid.value_or(-1) == r.pid);
    CHECK(line.rank.value_or(-1) == r.rank);
    CHECK(line.rank_output == r.rank_output);
  }
}

TEST_CASE("console line: bytes are cleaned") {
  CHECK(clean_bytes("\x1b[1;31mError\x1b[0m\r") == "Error");
  CHECK(clean_bytes(std::string("a\0b", 3)) == "ab");
  CHECK(clean_bytes("\x1b]0;title\x07visible") == "visible");
  CHECK(clean_bytes("a\tb") == "a       b");
  CHECK(clean_bytes("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(clean_bytes("bad \xff\xfe byte") == "bad ?? byte");
  CHECK(clean_bytes(std::string(kMaxLineBytes * 3, 'x')).size() == kMaxLineBytes);
}

TEST_CASE("console line: banners are 50 or more dashes or equals signs") {
  CHECK(is_separator(std::string(74, '-')));
  CHECK(is_separator(std::string(60, '-')));
  CHECK(is_separator(std::string(55, '-')));
  CHECK(is_separator(std::string(83, '=')));
  CHECK_FALSE(is_separator(std::string(20, '-')));
  CHECK_FALSE(is_separator(std::string(60, '-') + "x"));
  CHECK(is_separator(parse_console_line("[1,0]<stderr>:" + std::string(74, '-')).text));
}

TEST_CASE("console line: one scan says whether cleaning is a no-op") {
  CHECK(scan_line("plain text, 100% ASCII ~").clean);
  CHECK(scan_line("").clean);
  for (std::string bad : {std::string("tab\there"), std::string("cr\r"), std::string("nul\0x", 5),
                          std::string("del\x7f"), std::string("caf\xc3\xa9"),
                          std::string("esc\x1b[0m"), std::string(kMaxLineBytes + 1, 'x')}) {
    CAPTURE(bad);
    CHECK_FALSE(scan_line(bad).clean);
  }
  CHECK(scan_line("a b c").collapsed);
  CHECK_FALSE(scan_line("a  b").collapsed);
  CHECK_FALSE(scan_line(" a").collapsed);
  CHECK_FALSE(scan_line("a ").collapsed);
  const LineScan s = scan_line("Az~ 0");
  for (char c : std::string("Az~ 0")) CHECK(s.bytes.contains(c));
  CHECK_FALSE(s.bytes.contains('a'));
}

TEST_CASE("console line: reusing a line gives what a fresh parse gives") {
  const std::string lines[] = {
      "plain rank output",
      "  leading and trailing  blanks  ",
      "[1,3]<stderr>: tagged  output",
      "[node7:12345] [[4711,1],2] ORTE_ERROR_LOG: Not found",
      "[proxy:0:0@host] HYDU_create_process (utils/launch/launch.c:73): execvp error",
      "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
      "Sun Nov 22 23:21:19 2026[1,0]<stdout>: stamped",
      "2026-11-22T23:01:02.123Z stdout F from a pod",
      "[3] hydra-tagged",
  };
  ConsoleLine reused = parse_console_line("[other:1] a previous line with a host");
  for (const std::string& l : lines) {
    CAPTURE(l);
    const LineScan scan = scan_line(l);
    REQUIRE(scan.clean);
    parse_clean_line_into(l, scan, reused);
    const ConsoleLine fresh = parse_console_line(l);
    CHECK(reused.raw == fresh.raw);
    CHECK(reused.text == fresh.text);
    CHECK(reused.host == fresh.host);
    CHECK(reused.pid == fresh.pid);
    CHECK(reused.rank == fresh.rank);
    CHECK(reused.rank_output == fresh.rank_output);
    CHECK(reused.hydra_prefix == fresh.hydra_prefix);
  }
}
