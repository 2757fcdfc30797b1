#include <doctest/doctest.h>

#include "launcher/diagnose/phrase_template.hpp"

using namespace mpilaunch::launcher;

TEST_CASE("phrase template: spaces match re-wrapped text, holes read fields") {
  const auto c = match_template(
      "prterun noticed that process rank 1 with PID 20390 on node vm exited on\nsignal 11 "
      "(Segmentation fault).",
      "noticed that process rank {rank} with PID {pid} on node {host} exited on signal {signal}");
  REQUIRE(c);
  CHECK(*c->rank == 1);
  CHECK(*c->pid == 20390);
  CHECK(c->host == "vm");
  CHECK(*c->signal == 11);
}

TEST_CASE("phrase template: a word stops at the literal after it, or drops a final period") {
  struct Row {
    const char* text;
    const char* tmpl;
    const char* detail;
  };
  const Row rows[] = {
      {"mpirun: Error: unknown option \"--bogus\"", "Error: unknown option \"{detail}\"",
       "--bogus"},
      {"unable to change wdir to /x/y (No such file)", "unable to change wdir to {detail} (",
       "/x/y"},
      {"execvp error on file ./a (Permission denied)", "execvp error on file {_} ({line})",
       "Permission denied"},
      {"was unable to open the hostfile:\n/etc/hosts.", "was unable to open the hostfile: {detail}",
       "/etc/hosts"},
      {"APPLICATION TIMED OUT, TIMEOUT = 20s", "TIMEOUT = {detail}s", "20"},
      {"developer):\nmca_bml_base_open() failed\n--> Returned", "developer): {line}",
       "mca_bml_base_open() failed"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.text);
    const auto c = match_template(r.text, r.tmpl);
    REQUIRE(c);
    CHECK(c->detail == r.detail);
  }
}

TEST_CASE("phrase template: skips, negative codes, misses") {
  auto c = match_template("Signal: Segmentation fault (11)", "Signal: {*}({signal})");
  REQUIRE(c);
  CHECK(*c->signal == 11);
  c = match_template("with errorcode -3.", "with errorcode {exit}");
  REQUIRE(c);
  CHECK(*c->exit_code == -3);
  c = match_template("1 more processes have sent help message f / t",
                     "more process{*}sent help message {detail} / {topic}");
  REQUIRE(c);
  CHECK(c->topic == "t");
  CHECK_FALSE(match_template("exited on signal", "exited on signal {signal}"));
  CHECK_FALSE(match_template("Node:", "Node: {host}"));
  CHECK_FALSE(match_template("anything", "{rank} first"));  // must start with a literal
  CHECK(match_template("a b", "a b", 0)->end == 3);
  CHECK_FALSE(match_template("a b", "a b", 1));
}
