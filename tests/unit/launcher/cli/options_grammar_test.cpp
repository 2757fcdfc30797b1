// The option grammar against mpirun(1) 4.1: every spelling of its man page is recognised as
// itself (never as a short option with the rest as its value), with the answer
// docs/mpirun-compat.md gives; bad values are refused by name.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launcher/cli/options.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

struct Spelling {
  const char* name;
  int arity;
  OptionAnswer answer;
};

// Every option of `man mpirun` (Open MPI 4.1.4), each spelling it lists, with its values.
constexpr OptionAnswer W = OptionAnswer::Works;
constexpr OptionAnswer I = OptionAnswer::Ignored;
constexpr OptionAnswer R = OptionAnswer::Refused;
const Spelling kMpirun[] = {
    {"-h", 0, W},
    {"--help", 0, W},
    {"-q", 0, W},
    {"--quiet", 0, W},
    {"-v", 0, I},
    {"--verbose", 0, I},
    {"-V", 0, W},
    {"--version", 0, W},
    {"-N", 1, W},
    {"-display-map", 0, W},
    {"--display-map", 0, W},
    {"-display-allocation", 0, W},
    {"--display-allocation", 0, W},
    {"-output-proctable", 0, R},
    {"--output-proctable", 0, R},
    {"-dvm", 0, R},
    {"--dvm", 0, R},
    {"-max-vm-size", 1, R},
    {"--max-vm-size", 1, R},
    {"-novm", 0, I},
    {"--novm", 0, I},
    {"-hnp", 1, R},
    {"--hnp", 1, R},
    {"-H", 1, W},
    {"-host", 1, W},
    {"--host", 1, W},
    {"-hostfile", 1, W},
    {"--hostfile", 1, W},
    {"-default-hostfile", 1, W},
    {"--default-hostfile", 1, W},
    {"-machinefile", 1, W},
    {"--machinefile", 1, W},
    {"-cpu-set", 1, W},
    {"--cpu-set", 1, W},
    {"-c", 1, W},
    {"-n", 1, W},
    {"--n", 1, W},
    {"-np", 1, W},
    {"--np", 1, W},
    {"-npersocket", 1, W},
    {"--npersocket", 1, W},
    {"-npernode", 1, W},
    {"--npernode", 1, W},
    {"-pernode", 0, W},
    {"--pernode", 0, W},
    {"--map-by", 1, W},
    {"-map-by", 1, W},
    {"-bycore", 0, W},
    {"--bycore", 0, W},
    {"-byslot", 0, W},
    {"--byslot", 0, W},
    {"-nolocal", 0, W},
    {"--nolocal", 0, W},
    {"-nooversubscribe", 0, W},
    {"--nooversubscribe", 0, W},
    {"-oversubscribe", 0, W},
    {"--oversubscribe", 0, W},
    {"-bynode", 0, W},
    {"--bynode", 0, W},
    {"-cpu-list", 1, W},
    {"--cpu-list", 1, W},
    {"--rank-by", 1, W},
    {"-rank-by", 1, W},
    {"--bind-to", 1, W},
    {"-bind-to", 1, W},
    {"-cpus-per-proc", 1, W},
    {"--cpus-per-proc", 1, W},
    {"-cpus-per-rank", 1, W},
    {"--cpus-per-rank", 1, W},
    {"-bind-to-core", 0, W},
    {"--bind-to-core", 0, W},
    {"-bind-to-socket", 0, W},
    {"--bind-to-socket", 0, W},
    {"-report-bindings", 0, W},
    {"--report-bindings", 0, W},
    {"-rf", 1, W},
    {"--rankfile", 1, W},
    {"-output-filename", 1, W},
    {"--output-filename", 1, W},
    {"-stdin", 1, W},
    {"--stdin", 1, W},
    {"-merge-stderr-to-stdout", 0, W},
    {"--merge-stderr-to-stdout", 0, W},
    {"-tag-output", 0, W},
    {"--tag-output", 0, W},
    {"-timestamp-output", 0, W},
    {"--timestamp-output", 0, W},
    {"-xml", 0, R},
    {"--xml", 0, R},
    {"-xml-file", 1, R},
    {"--xml-file", 1, R},
    {"-xterm", 1, R},
    {"--xterm", 1, R},
    {"-path", 1, W},
    {"--path", 1, W},
    {"-prefix", 1, W},
    {"--prefix", 1, W},
    {"--noprefix", 0, I},
    {"-s", 0, R},
    {"--preload-binary", 0, R},
    {"--preload-files", 1, R},
    {"-set-cwd-to-session-dir", 0, R},
    {"--set-cwd-to-session-dir", 0, R},
    {"-wd", 1, W},
    {"-wdir", 1, W},
    {"--wdir", 1, W},
    {"-x", 1, W},
    {"-gmca", 2, W},
    {"--gmca", 2, W},
    {"-mca", 2, W},
    {"--mca", 2, W},
    {"-am", 1, W},
    {"--am", 1, W},
    {"-tune", 1, W},
    {"--tune", 1, W},
    {"-debug", 0, R},
    {"--debug", 0, R},
    {"--get-stack-traces", 0, W},
    {"-debugger", 1, R},
    {"--debugger", 1, R},
    {"--timeout", 1, W},
    {"-timeout", 1, W},
    {"-tv", 0, R},
    {"--tv", 0, R},
    {"--allow-run-as-root", 0, W},
    {"-allow-run-as-root", 0, W},
    {"--app", 1, W},
    {"-cf", 1, R},
    {"--cartofile", 1, R},
    {"-continuous", 0, R},
    {"--continuous", 0, R},
    {"-disable-recovery", 0, W},
    {"--disable-recovery", 0, W},
    {"-do-not-launch", 0, W},
    {"--do-not-launch", 0, W},
    {"-do-not-resolve", 0, I},
    {"--do-not-resolve", 0, I},
    {"-enable-recovery", 0, W},
    {"--enable-recovery", 0, W},
    {"-index-argv-by-rank", 0, W},
    {"--index-argv-by-rank", 0, W},
    {"-leave-session-attached", 0, I},
    {"--leave-session-attached", 0, I},
    {"-max-restarts", 1, W},
    {"--max-restarts", 1, W},
    {"-ompi-server", 1, R},
    {"--ompi-server", 1, R},
    {"-personality", 1, I},
    {"--personality", 1, I},
    {"--ppr", 1, W},
    {"-report-child-jobs-separately", 0, I},
    {"--report-child-jobs-separately", 0, I},
    {"-report-events", 1, R},
    {"--report-events", 1, R},
    {"-report-pid", 1, W},
    {"--report-pid", 1, W},
    {"-report-uri", 1, R},
    {"--report-uri", 1, R},
    {"-show-progress", 0, I},
    {"--show-progress", 0, I},
    {"-terminate", 0, R},
    {"--terminate", 0, R},
    {"-use-hwthread-cpus", 0, W},
    {"--use-hwthread-cpus", 0, W},
    {"-use-regexp", 0, I},
    {"--use-regexp", 0, I},
    {"-d", 0, I},
    {"--debug-devel", 0, I},
    {"--debug-daemons", 0, I},
    {"--debug-daemons-file", 0, I},
    {"-display-devel-allocation", 0, W},
    {"--display-devel-allocation", 0, W},
    {"-display-devel-map", 0, W},
    {"--display-devel-map", 0, W},
    {"-display-diffable-map", 0, W},
    {"--display-diffable-map", 0, W},
    {"-display-topo", 0, W},
    {"--display-topo", 0, W},
    {"-launch-agent", 1, R},
    {"--launch-agent", 1, R},
    {"--report-state-on-timeout", 0, W},
    {"-report-state-on-timeout", 0, W},
    {"-fwd-mpirun-port", 0, I},
    {"-enable-instant-on-support", 0, I},
};

// A value of the right form for each option that takes one.
std::string value_for(std::string_view name) {
  if (name == "--stdin" || name == "-stdin") return "none";
  if (name == "--map-by" || name == "-map-by") return "node";
  if (name == "--report-pid" || name == "-report-pid") return "+";
  if (name == "--prefix" || name == "-prefix") return "/opt/ompi";
  return "2";
}

}  // namespace

TEST_CASE("grammar: every mpirun(1) spelling is recognised as itself, with its answer") {
  const std::vector<OptionInfo> infos = option_infos();
  for (const Spelling& s : kMpirun) {
    CAPTURE(s.name);
    const OptionInfo* info = find_option_info(infos, s.name);
    REQUIRE_MESSAGE(info != nullptr, "not in the parser's table");
    CHECK(info->arity == s.arity);
    CHECK(info->answer == s.answer);
    std::vector<std::string> args{s.name};
    for (int k = 0; k < s.arity; ++k) args.push_back(value_for(s.name));
    args.insert(args.end(), {"prog", "arg"});
    const auto o = parse_options(args);
    if (s.answer == OptionAnswer::Refused) {
      REQUIRE_FALSE(o.has_value());
      CHECK(o.error().kind == ErrorKind::BadOption);
      CHECK(o.error().detail.starts_with(std::string(s.name) + " is not supported: "));
      continue;
    }
    REQUIRE_MESSAGE(o.has_value(), o.error().detail);
    if (o->help || o->version) continue;
    CHECK(o->program == std::vector<std::string>{"prog", "arg"});
    if (s.answer == OptionAnswer::Ignored)
      CHECK(o->ignored == std::vector<std::string>{s.name});
    else
      CHECK(o->ignored.empty());
  }
}

TEST_CASE("grammar: single-dash long options are never a short option with a value") {
  auto o = parse_options({"-npersocket", "2", "a"});
  REQUIRE(o);
  CHECK_FALSE(o->np);
  CHECK(o->per_socket == 2);
  o = parse_options({"-nooversubscribe", "-np", "3", "a"});
  REQUIRE(o);
  CHECK(o->np == 3);
  CHECK_FALSE(o->oversubscribe);
  o = parse_options({"-npernode", "2", "-host", "a:2,b:2", "-x", "A=1", "-wdir", "/w", "p"});
  REQUIRE(o);
  CHECK(o->per_node == 2);
  CHECK_FALSE(o->np);
  CHECK(o->hosts == std::vector<std::string>{"a:2,b:2"});
  CHECK(o->wdir == "/w");
  o = parse_options({"-bind-to", "none", "-map-by", "node", "-report-bindings", "p"});
  REQUIRE(o);
  CHECK(o->bind_to == "none");
  CHECK(o->map_by == MapBy::Node);
  CHECK(o->report_bindings);
  CHECK(o->program == std::vector<std::string>{"p"});
  // An unknown single-dash word is unknown, not -n with a value.
  o = parse_options({"-nopersist", "p"});
  REQUIRE_FALSE(o);
  CHECK(o.error().detail.find("unknown option '-nopersist'") != std::string::npos);
  // The attached short forms still work.
  o = parse_options({"-n4", "-Hnode1", "p"});
  REQUIRE(o);
  CHECK(o->np == 4);
  CHECK(o->hosts == std::vector<std::string>{"node1"});
}

TEST_CASE("grammar: mpirun spellings that act") {
  auto o = parse_options({"--pernode", "p"});
  REQUIRE(o);
  CHECK(o->per_node == 1);
  o = parse_options({"--bynode", "p"});
  CHECK(o->map_by == MapBy::Node);
  // mpirun 4.1.4: "Conflicting directives for mapping policy" (measured).
  o = parse_options({"--bynode", "--byslot", "p"});
  REQUIRE_FALSE(o);
  CHECK(o.error().detail.find("--bynode and --byslot") != std::string::npos);
  o = parse_options({"--bynode", "--bynode", "p"});
  REQUIRE(o);
  CHECK(o->map_by == MapBy::Node);
  o = parse_options({"--map-by", "slot:OVERSUBSCRIBE", "p"});
  CHECK(o->oversubscribe);
  // mpirun 4.1.4 refuses the two directives together ("Conflicting directives for mapping
  // policy"), whatever their order.
  o = parse_options({"--oversubscribe", "--map-by", "node:NOOVERSUBSCRIBE", "p"});
  REQUIRE_FALSE(o);
  CHECK(o.error().detail.find("conflicting directives") != std::string::npos);
  o = parse_options({"--nooversubscribe", "--oversubscribe", "p"});
  REQUIRE_FALSE(o);
  // A middle context's :OVERSUBSCRIBE changes nothing; --oversubscribe counts anywhere.
  o = parse_options({"-n", "1", "p", ":", "--map-by", "slot:OVERSUBSCRIBE", "q", ":", "r"});
  REQUIRE(o);
  CHECK_FALSE(o->oversubscribe);
  o = parse_options({"-n", "1", "p", ":", "--oversubscribe", "q", ":", "r"});
  REQUIRE(o);
  CHECK(o->oversubscribe);
  // So does :OVERSUBSCRIBE with --nooversubscribe, in either order (measured).
  o = parse_options({"--map-by", "core:OVERSUBSCRIBE", "--nooversubscribe", "p"});
  REQUIRE_FALSE(o);
  CHECK(o.error().detail.find("--map-by core:OVERSUBSCRIBE and --nooversubscribe") !=
        std::string::npos);
  CHECK_FALSE(parse_options({"--nooversubscribe", "--map-by", "core:OVERSUBSCRIBE", "p"}));
  o = parse_options({"--max-restarts", "3", "--disable-recovery", "p"});
  CHECK(o->max_restarts == 0);
  o = parse_options({"--do-not-launch", "p"});
  CHECK(o->do_not_launch);
  CHECK_FALSE(o->dry_run);
  o = parse_options({"--default-hostfile", "hf", "p"});
  CHECK(o->hostfile == "hf");
  o = parse_options({"--default-hostfile", "hf", "--hostfile", "mine", "p"});
  CHECK(o->hostfile == "mine");
  o = parse_options({"-q", "--report-pid", "-", "p"});
  CHECK(o->quiet);
  CHECK(o->report_pid == "-");
}

// Whether the options let the job oversubscribe with several contexts, as mpirun 4.1.4 decides
// (measured on 2 slots with 3 ranks: refused or run; the MCA parameters in launch_plan_test).
TEST_CASE("grammar: --oversubscribe and :(NO)OVERSUBSCRIBE across MPMD contexts") {
  struct Row {
    std::vector<std::string> args;
    bool oversubscribe;
  };
  const Row rows[] = {
      // A first context's --map-by decides alone when the last context gives none: a later
      // --oversubscribe is ignored (also a middle one's; --map-by ppr, --bycore alike).
      {{"--map-by", "core", "p", ":", "q", ":", "--oversubscribe", "r"}, false},
      {{"--map-by", "core", "p", ":", "--oversubscribe", "q", ":", "r"}, false},
      {{"--bycore", "p", ":", "q", ":", "--oversubscribe", "r"}, false},
      {{"--map-by", "slot:NOOVERSUBSCRIBE", "p", ":", "q", ":", "--oversubscribe", "r"}, false},
      {{"--map-by", "core", "--oversubscribe", "p", ":", "q", ":", "r"}, true},
      {{"--map-by", "core", "-n", "1", "--oversubscribe", "p", ":", "q", ":", "r"}, true},
      {{"--map-by", "core:OVERSUBSCRIBE", "p", ":", "q", ":", "--nooversubscribe", "r"}, true},
      // Without a first --map-by, or with the last context's, it counts wherever it stands, and
      // over the last context's :NOOVERSUBSCRIBE.
      {{"p", ":", "q", ":", "--oversubscribe", "r"}, true},
      {{"p", ":", "--map-by", "core", "q", ":", "--oversubscribe", "r"}, true},
      {{"--map-by", "core", "p", ":", "--oversubscribe", "q", ":", "--map-by", "slot", "r"}, true},
      {{"--oversubscribe", "p", ":", "q", ":", "--map-by", "core:NOOVERSUBSCRIBE", "r"}, true},
      {{"p", ":", "q", ":", "--oversubscribe", "--map-by", "core:NOOVERSUBSCRIBE", "r"}, true},
      {{"--nooversubscribe", "p", ":", "q", ":", "--oversubscribe", "r"}, true},
      // A later --nooversubscribe changes nothing.
      {{"--oversubscribe", "p", ":", "q", ":", "--nooversubscribe", "r"}, true},
      {{"p", ":", "--oversubscribe", "q", ":", "--nooversubscribe", "--map-by", "core", "r"}, true},
      // The last context's modifier counts; its --map-by without one keeps the first's.
      {{"p", ":", "q", ":", "--map-by", "core:OVERSUBSCRIBE", "r"}, true},
      {{"--map-by", "core:OVERSUBSCRIBE", "p", ":", "q", ":", "--map-by", "core:NOOVERSUBSCRIBE",
        "r"},
       false},
      {{"--map-by", "core:OVERSUBSCRIBE", "p", ":", "q", ":", "--map-by", "core", "r"}, true},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args);
    const auto o = parse_options(row.args);
    REQUIRE(o);
    CHECK(o->oversubscribe == row.oversubscribe);
  }
}

// Its value is checked once, by make_plan, as the --map-by ppr:X it stands for
// (launch_plan_test).
TEST_CASE("grammar: --ppr is --map-by ppr's old spelling, its value kept as given") {
  const auto bad = parse_options({"--ppr", "x:node", "p"});
  REQUIRE(bad);
  CHECK(bad->ppr == "x:node");
  CHECK(bad->map_by_text.empty());
}

TEST_CASE("grammar: what is recognised but not implemented is refused by name") {
  const std::vector<std::vector<std::string>> lines = {
      {"--display-devel-map", "p"},
  };
  for (const auto& line : lines) {
    CAPTURE(line.front());
    const auto o = parse_options(line);
    REQUIRE(o);
    const Status st = unsupported_options(*o);
    REQUIRE_FALSE(st);
    CHECK(st.error().kind == ErrorKind::BadOption);
    CHECK(st.error().detail.find("is not supported yet") != std::string::npos);
  }
  for (const auto& fine :
       std::vector<std::vector<std::string>>{{"--bind-to", "none", "p"},
                                             {"--rank-by", "slot", "p"},
                                             // Implemented by the placement (placement.hpp):
                                             {"--bind-to", "core", "p"},
                                             {"--ppr", "1:node", "p"},
                                             {"--display-allocation", "p"},
                                             {"--nolocal", "p"},
                                             {"-bind-to-core", "p"},
                                             {"--rank-by", "node", "p"},
                                             {"--cpus-per-proc", "2", "p"},
                                             {"--use-hwthread-cpus", "p"},
                                             {"--report-bindings", "p"},
                                             {"--display-map", "p"},
                                             {"-rf", "f", "p"},
                                             {"--cpu-list", "0,1", "p"},
                                             {"--cpu-set", "0", "p"},
                                             {"--npersocket", "1", "p"},
                                             {"--rankfile", "f", "p"},
                                             {"--stdin", "none", "p"},
                                             {"--stdin", "all", "p"},
                                             {"-stdin", "1", "p"},
                                             {"--merge-stderr-to-stdout", "p"},
                                             {"-n", "2", "--map-by", "node", "p"}}) {
    CAPTURE(fine.front());
    const auto o = parse_options(fine);
    REQUIRE(o);
    CHECK(unsupported_options(*o));
  }
  // mpirun 4.1.4: "Conflicting directives for mapping policy" (its --cpu-list is a mapper).
  const auto o = parse_options({"--cpu-set", "1", "--map-by", "core", "p"});
  REQUIRE(o);
  const Status st = unsupported_options(*o);
  REQUIRE_FALSE(st);
  CHECK(st.error().detail.starts_with("--cpu-list places the ranks over the slots itself"));
}

TEST_CASE("grammar: values too large or unbounded are refused by name") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const Case cases[] = {
      {{"-n", "99999999999", "a"}, "-n 99999999999 is too large"},
      {{"-n", "2000000", "a"}, "-n 2000000 is too large: at most 1048576"},
      {{"-N", "2147483648", "a"}, "-N 2147483648 is too large"},
      {{"--npersocket", "99999999999", "a"}, "too large"},
      {{"--timeout", "9.3e9", "a"}, "--timeout 9.3e9 is too large"},
      {{"--timeout", "inf", "a"}, "--timeout inf is too large"},
      {{"--timeout", "nan", "a"}, "needs a number of seconds"},
      {{"--kill-grace", "1e10", "a"}, "--kill-grace 1e10 is too large"},
      {{"--connect-timeout", "inf", "a"}, "--connect-timeout inf is too large"},
      {{"--wireup-timeout", "1e300", "a"}, "too large"},
      {{"--wait-for-hosts", "1e12", "a"}, "too large"},
      {{"--restart-backoff", "1,1e20", "a"}, "too large"},
      {{"--ssh-fanout", "99999999", "a"}, "too large"},
      {{"--stdin", "some", "a"}, "--stdin some"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expected);
    const auto o = parse_options(c.args);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().kind == ErrorKind::BadOption);
    CHECK(o.error().detail.find(c.expected) != std::string::npos);
  }
  const auto year = parse_options({"--timeout", "31536000", "a"});
  REQUIRE(year);
  CHECK(*year->timeout_seconds == doctest::Approx(31536000.0));
}
