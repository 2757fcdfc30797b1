#include <doctest/doctest.h>

#include <csignal>
#include <set>
#include <string>

#include "common/error.hpp"
#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/exit_codes.hpp"

using namespace mpilaunch;

TEST_CASE("every error kind has a distinct kebab-case name that round-trips") {
  std::set<std::string> names;
  for (ErrorKind kind : kAllErrorKinds) {
    const std::string name(kind_name(kind));
    CHECK(names.insert(name).second);
    CHECK(name.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_ ") == std::string::npos);
    REQUIRE(kind_from_name(name).has_value());
    CHECK(*kind_from_name(name) == kind);
  }
  CHECK_FALSE(kind_from_name("no-such-kind").has_value());
}

TEST_CASE("every kind has a message and a hint") {
  for (ErrorKind kind : kAllErrorKinds) {
    const Error e{.kind = kind, .host = "node1", .rank = 2};
    CHECK_FALSE(message(e).empty());
    CHECK_FALSE(hint(e).empty());
  }
}

TEST_CASE("messages are built from the fields and never invent a rank") {
  CHECK(
      message(Error{.kind = ErrorKind::RankSignaled, .host = "node-b", .rank = 3, .signal = 11}) ==
      "rank 3 on node-b was killed by signal 11 (SIGSEGV)");
  CHECK(message(Error{.kind = ErrorKind::RankExitNonzero, .exit_code = 3}) ==
        "a process exited with code 3");
  CHECK(message(Error{.kind = ErrorKind::RankCalledAbort, .rank = 1, .exit_code = 7}) ==
        "rank 1 called MPI_Abort with error code 7");
}

// A host file that could not be read at all (missing, a directory, a device) has no line to
// fix: phase "read" gets its own hint.
TEST_CASE("a host file's hint: the line named, or the file itself when it was not read") {
  const std::string line = hint(Error{.kind = ErrorKind::HostfileError, .detail = "hf:3: junk"});
  CHECK(line.find("fix the line named above") != std::string::npos);
  const std::string unread = hint(Error{.kind = ErrorKind::HostfileError,
                                        .phase = "read",
                                        .detail = "hf: cannot be read: No such file or directory"});
  CHECK(unread.find("line named above") == std::string::npos);
  CHECK(unread.find("could not be read") != std::string::npos);
  CHECK(unread.find("path and permissions") != std::string::npos);
}

// prterun's session directory already there (a killed prterun of the same pid): the hint
// names the stale directory, not the ssh or install causes of the other phases.
TEST_CASE("agent-start-failed in phase session-dir: the stale prterun directory is the hint") {
  const std::string h = hint(Error{
      .kind = ErrorKind::AgentStartFailed, .host = "vm", .phase = "session-dir", .detail = "x"});
  CHECK(h.find("prterun.HOST.PID.UID") != std::string::npos);
  CHECK(h.find("ssh") == std::string::npos);
}

// A rank of the job the agent could not bind (the CPUs its topology named do not exist here)
// is neither a refused spawn nor a command-line mistake.
TEST_CASE("a rank the agent could not bind: its own headline and hint") {
  const Error e{.kind = ErrorKind::BadOption,
                .host = "vm",
                .rank = 1,
                .phase = "bind",
                .detail = "binding probe to its CPUs failed: Invalid argument"};
  CHECK(message(e).starts_with("a rank could not be bound"));
  CHECK(message(e).find("spawn") == std::string::npos);
  CHECK(message(e).find("invalid command line") == std::string::npos);
  CHECK(hint(e).find("MPI_Comm_spawn") == std::string::npos);
  CHECK(hint(e).find("--bind-to none") != std::string::npos);
}

// A refused spawn is no command-line mistake: its headline and hint name the MPI_Comm_spawn
// call and its info keys, never 'invalid command line' or --help.
TEST_CASE("a refused spawn's headline and hint name MPI_Comm_spawn, not the command line") {
  const Error bad{.kind = ErrorKind::BadOption,
                  .phase = "spawn",
                  .detail =
                      "rank 0 of ns called MPI_Comm_spawn: MPI_Comm_spawn's info map_by "
                      "ppr:1:node: only node, slot ... are served"};
  CHECK(message(bad).starts_with("a spawn was refused: rank 0 of ns called MPI_Comm_spawn"));
  CHECK(message(bad).find("invalid command line") == std::string::npos);
  CHECK(hint(bad).find("MPI_Comm_spawn") != std::string::npos);
  CHECK(hint(bad).find("--help") == std::string::npos);
  CHECK(message(Error{.kind = ErrorKind::BadOption, .detail = "--bogus"}) ==
        "invalid command line: --bogus");
  const Error host{.kind = ErrorKind::UnknownHost,
                   .host = "dyn9",
                   .phase = "spawn",
                   .detail = "MPI_Comm_spawn's info host names dyn9, which is not a node"};
  CHECK(message(host) ==
        "the host 'dyn9' is unknown: MPI_Comm_spawn's info host names dyn9, which is not a node");
  CHECK(hint(host).find("info keys host") != std::string::npos);
  CHECK(message(Error{.kind = ErrorKind::UnknownHost, .host = "h", .detail = "x"}) ==
        "the host 'h' is unknown");
  const Error slots{.kind = ErrorKind::NotEnoughSlots, .phase = "spawn", .detail = "2 free"};
  CHECK(hint(slots).find("MPI_Comm_spawn's maxprocs") != std::string::npos);
}

// An agent's own fault (a crash inside libpmix, say) gets the hint that reads its last lines; a
// kill from outside, or no signal at all, the general one.
TEST_CASE("a lost agent's hint tells a crash from a kill") {
  CHECK(is_crash_signal(SIGSEGV));
  CHECK(is_crash_signal(SIGABRT));
  CHECK(is_crash_signal(SIGBUS));
  CHECK_FALSE(is_crash_signal(SIGKILL));
  CHECK_FALSE(is_crash_signal(SIGTERM));
  const std::string crashed = hint(Error{.kind = ErrorKind::AgentLost, .signal = SIGABRT});
  CHECK(crashed.find("NS_DATA_SEG_SIZE") != std::string::npos);
  const std::string general = hint(Error{.kind = ErrorKind::AgentLost});
  CHECK(general.find("out of memory") != std::string::npos);
  CHECK(hint(Error{.kind = ErrorKind::AgentLost, .signal = SIGKILL}) == general);
  CHECK(hint(Error{.kind = ErrorKind::RankSignaled, .signal = SIGILL}).find("debugger") !=
        std::string::npos);
}

TEST_CASE("retry classes follow the documented policy") {
  CHECK_FALSE(is_retryable(Error{.kind = ErrorKind::ExecutableNotFound}));
  CHECK_FALSE(is_retryable(Error{.kind = ErrorKind::BadOption}));
  CHECK(is_retryable(Error{.kind = ErrorKind::RankSignaled}));
  CHECK(is_retryable(Error{.kind = ErrorKind::AgentLost}));
  CHECK(retry_class(Error{.kind = ErrorKind::AgentStartFailed, .phase = "auth"}) ==
        RetryClass::Never);
  CHECK(retry_class(Error{.kind = ErrorKind::AgentStartFailed, .phase = "libssh"}) ==
        RetryClass::Never);
  CHECK(retry_class(Error{.kind = ErrorKind::AgentStartFailed, .phase = "session-dir"}) ==
        RetryClass::WithinBudget);
  CHECK(retry_class(Error{.kind = ErrorKind::AgentStartFailed, .phase = "connect"}) ==
        RetryClass::UntilStartDeadline);
  CHECK(retry_class(Error{.kind = ErrorKind::Timeout, .phase = "job"}) == RetryClass::NoRestart);
  CHECK(retry_class(Error{.kind = ErrorKind::Timeout, .phase = "wire-up"}) ==
        RetryClass::WithinBudget);
}

TEST_CASE("exit codes: rank codes pass through, signals are 128+N, own failures are distinct") {
  using namespace exit_codes;
  CHECK(for_error(Error{.kind = ErrorKind::RankExitNonzero, .exit_code = 3}) == 3);
  CHECK(for_error(Error{.kind = ErrorKind::RankSignaled, .signal = 11}) == 139);
  CHECK(for_error(Error{.kind = ErrorKind::RankCalledAbort, .exit_code = 0}) == 1);
  CHECK(for_error(Error{.kind = ErrorKind::RankNoFinalize, .exit_code = 0}) == 1);
  CHECK(for_error(Error{.kind = ErrorKind::BadOption}) == kUsage);
  CHECK(for_error(Error{.kind = ErrorKind::Timeout}) == kTimeout);
  // Rank output that could not be written is EX_IOERR; a reader gone is what a shell shows for
  // a tool that SIGPIPE ended.
  CHECK(for_error(Error{.kind = ErrorKind::OutputError, .rank = 1}) == 74);
  CHECK(for_error(Error{.kind = ErrorKind::OutputError, .signal = SIGPIPE}) == 141);
  CHECK(retry_class(Error{.kind = ErrorKind::OutputError}) == RetryClass::Never);
  std::set<int> own;
  for (ErrorKind k : {ErrorKind::BadOption, ErrorKind::HostfileError, ErrorKind::ExecutableNotFound,
                      ErrorKind::NotEnoughSlots, ErrorKind::AgentStartFailed, ErrorKind::AgentLost,
                      ErrorKind::RunAsRootRefused, ErrorKind::Timeout, ErrorKind::OutOfResources,
                      ErrorKind::ComponentNotFound, ErrorKind::PmixError, ErrorKind::OutputError})
    CHECK(own.insert(for_error(Error{.kind = k})).second);
}

TEST_CASE("error JSON omits unknown fields and round-trips") {
  const Error e{.kind = ErrorKind::RankSignaled,
                .host = "n1",
                .rank = 0,
                .signal = 9,
                .evidence = {"line one"}};
  const auto j = error_to_json(e);
  CHECK(j["kind"] == "rank-signaled");
  CHECK_FALSE(j.contains("exit_code"));
  CHECK_FALSE(j.contains("executable"));
  CHECK(j["message"].get<std::string>().find("rank 0 on n1") != std::string::npos);
  const auto back = error_from_json(j);
  REQUIRE(back.has_value());
  CHECK(back.value() == e);
  CHECK_FALSE(error_from_json(nlohmann::json{{"kind", "bogus"}}).has_value());
}

TEST_CASE("the launcher's block is framed as Open MPI frames its help messages") {
  const Error e{.kind = ErrorKind::NotEnoughSlots, .detail = "4 asked, 2 available"};
  const std::string framed = render_framed(e);
  const std::string frame(74, '-');
  CHECK(framed == frame + "\n" + render_human(e) + frame + "\n");
  // What a scraper of mpirun's output keeps: the lines between the two frame lines.
  const std::size_t open = framed.find(frame + "\n");
  const std::size_t close = framed.rfind(frame + "\n");
  REQUIRE(open == 0);
  REQUIRE(close > open);
  const std::string inside = framed.substr(open + frame.size() + 1, close - frame.size() - 1);
  CHECK(inside.starts_with("mpilaunch: error: "));
  CHECK(inside.find("  kind:      not-enough-slots\n") != std::string::npos);
}

TEST_CASE("error kinds keep their numbers: the protocol carries a kind as its number") {
  CHECK(static_cast<int>(ErrorKind::RunAsRootRefused) == 0);
  CHECK(static_cast<int>(ErrorKind::OutputError) == 22);
  CHECK(static_cast<int>(ErrorKind::Unknown) == 23);
  CHECK(static_cast<int>(ErrorKind::UnsupportedMpiCall) == 24);
  CHECK(kLastErrorKind == ErrorKind::UnsupportedMpiCall);
  CHECK(std::size(kAllErrorKinds) == static_cast<std::size_t>(kLastErrorKind) + 1);
}
