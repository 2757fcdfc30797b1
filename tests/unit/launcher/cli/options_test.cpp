#include <doctest/doctest.h>

#include "launcher/cli/options.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {
Result<Options> parse(std::vector<std::string> args) {
  return parse_options(args);
}
}  // namespace

TEST_CASE("mpirun spellings of the process count are all accepted") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"-n", "4", "a"},
                                                                {"-np", "4", "a"},
                                                                {"--np", "4", "a"},
                                                                {"--np=4", "a"},
                                                                {"-n4", "a"}}) {
    const auto o = parse(args);
    REQUIRE(o.has_value());
    CHECK(o->np == 4);
    CHECK(o->program == std::vector<std::string>{"a"});
  }
}

TEST_CASE("options stop at the program; its own options are left alone") {
  const auto o = parse({"-n", "2", "./app", "-n", "5", "--weird"});
  REQUIRE(o.has_value());
  CHECK(o->np == 2);
  CHECK(o->program == std::vector<std::string>{"./app", "-n", "5", "--weird"});
  const auto dashdash = parse({"--", "-app"});
  CHECK(dashdash->program == std::vector<std::string>{"-app"});
}

TEST_CASE("hosts, environment, mca, output and launcher options") {
  const auto o = parse({"-H",
                        "a:2,b",
                        "--host",
                        "c",
                        "-x",
                        "A=1",
                        "-x",
                        "B",
                        "--mca",
                        "btl",
                        "self,tcp",
                        "-mca",
                        "k",
                        "v",
                        "--wdir",
                        "/w",
                        "--tag-output",
                        "--timestamp-output",
                        "--output-filename",
                        "out",
                        "--launcher=local",
                        "--oversubscribe",
                        "-N",
                        "2",
                        "--map-by",
                        "node",
                        "--dry-run",
                        "--events",
                        "e.json",
                        "--timeout",
                        "2.5",
                        "prog"});
  REQUIRE(o.has_value());
  CHECK(o->hosts == std::vector<std::string>{"a:2,b", "c"});
  CHECK(o->exports == std::vector<std::string>{"A=1", "B"});
  CHECK(o->mca.size() == 2);
  CHECK(o->mca[0] == std::pair<std::string, std::string>{"btl", "self,tcp"});
  CHECK(o->wdir == "/w");
  CHECK(o->tag_output);
  CHECK(o->timestamp_output);
  CHECK(o->output_filename == "out");
  CHECK(o->launcher == LauncherKind::Local);
  CHECK(o->oversubscribe);
  CHECK(o->per_node == 2);
  CHECK(o->map_by == MapBy::Node);
  CHECK(o->dry_run);
  CHECK(o->events_file == "e.json");
  CHECK(o->timeout_seconds == doctest::Approx(2.5));
}

// positive_int's three answers (-n, -N, --npersocket, --ssh-fanout): digits that do not fit
// are too large, not malformed; signs, blanks and other bases are not whole numbers.
TEST_CASE("counts: whole numbers from 1 to the option's bound, each mistake named") {
  const struct {
    std::string value;
    std::string detail;  // "" when accepted
    int n = 0;
  } cases[] = {
      {"1", "", 1},
      {"007", "", 7},
      {"1048576", "", 1048576},
      {"1048577", "-n 1048577 is too large: at most 1048576"},
      {"2147483648", "-n 2147483648 is too large: at most 1048576"},
      {"99999999999999999999999", "-n 99999999999999999999999 is too large: at most 1048576"},
      {"-3", "-n -3: the value must be at least 1"},
      {"-99999999999999999999999", "-n needs a whole number, not '-99999999999999999999999'"},
      {"", "-n needs a whole number, not ''"},
      {"+3", "-n needs a whole number, not '+3'"},
      {" 3", "-n needs a whole number, not ' 3'"},
      {"3 ", "-n needs a whole number, not '3 '"},
      {"0x10", "-n needs a whole number, not '0x10'"},
      {"1e3", "-n needs a whole number, not '1e3'"},
      {"2.0", "-n needs a whole number, not '2.0'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.value);
    const auto o = parse({"-n", c.value, "a"});
    if (c.detail.empty()) {
      REQUIRE_MESSAGE(o.has_value(), o.error().detail);
      CHECK(o->np == c.n);
    } else {
      REQUIRE_FALSE(o.has_value());
      CHECK(o.error().kind == ErrorKind::BadOption);
      CHECK(o.error().detail == c.detail);
    }
  }
  // -n 0 (and -0) runs a rank on every slot, as no -n does (mpirun 4.1.4, measured).
  for (const char* zero : {"0", "-0", "00"}) {
    const auto o = parse({"-np", zero, "a"});
    REQUIRE(o.has_value());
    CHECK_FALSE(o->np);
  }
  CHECK(parse({"-N", "0", "a"}).error().detail == "-N 0: the value must be at least 1");
  CHECK(parse({"--ssh-fanout", "65537", "a"}).error().detail ==
        "--ssh-fanout 65537 is too large: at most 65536");
  CHECK(parse({"--ssh-fanout", "65536", "a"}).has_value());
}

TEST_CASE("bad input names the option and how to fix it") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const Case cases[] = {
      {{"-n", "-1", "a"}, "at least 1"},
      {{"-n", "abc", "a"}, "whole number"},
      {{"-n", "3x", "a"}, "whole number"},
      {{"-n"}, "needs 1 value"},
      {{"--mca", "k"}, "needs 2 values"},
      {{"--bogus", "a"}, "unknown option '--bogus'"},
      {{"--oversubscrib", "a"}, "did you mean '--oversubscribe'"},
      {{"--launcher=pbs", "a"}, "choose 'local', 'ssh' or 'srun'"},
      {{"--map-by", "sideways", "a"}, "unknown policy; use slot, node"},
      {{"-n", "2"}, "no program"},
      {{"--tag-output=yes", "a"}, "takes no '=' value"},
      {{"--timeout", "-3", "a"}, "seconds"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expected);
    const auto o = parse(c.args);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().kind == ErrorKind::BadOption);
    CHECK(o.error().detail.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("--help and --version need no program") {
  CHECK(parse({"--help"})->help);
  CHECK(parse({"-V"})->version);
  CHECK_FALSE(usage_text().empty());
}

TEST_CASE("options: the placement options are kept as written, checked as they come") {
  auto o = parse_options({"--map-by", "ppr:2:socket:PE=2", "--rank-by", "core", "--bind-to",
                          "core:overload-allowed", "--report-bindings", "--display-map",
                          "--use-hwthread-cpus", "--cpus-per-rank", "3", "./a"});
  REQUIRE(o.has_value());
  CHECK(o->map_by_text == "ppr:2:socket:PE=2");
  CHECK(o->rank_by == "core");
  CHECK(o->bind_to == "core:overload-allowed");
  CHECK(o->report_bindings);
  CHECK(o->display_map);
  CHECK(o->use_hwthread_cpus);
  CHECK(o->cpus_per_proc == "3");
  const auto elbow = parse_options({"--bind-to", "elbow", "./a"});
  REQUIRE(elbow.has_value());
  CHECK_FALSE(unsupported_options(*elbow));  // the value is checked with the others
  CHECK(parse_options({"-bind-to", "none", "./a"}).has_value());
}

TEST_CASE("options carry the MCA parameter mpirun 4.1.4 gives its ranks, as given, last wins") {
  using Mca = std::vector<std::pair<std::string, std::string>>;
  struct Row {
    std::vector<std::string> args;
    Mca expected;
  };
  const std::vector<Row> rows = {
      {{"a"}, {}},
      {{"--bind-to", "core", "a"}, {{"hwloc_base_binding_policy", "core"}}},
      {{"-bind-to", "CORE", "a"}, {{"hwloc_base_binding_policy", "CORE"}}},
      {{"--bind-to", "core", "--bind-to", "none", "a"}, {{"hwloc_base_binding_policy", "none"}}},
      {{"--map-by=ppr:1:socket:pe=1", "--rank-by", "core", "a"},
       {{"rmaps_base_mapping_policy", "ppr:1:socket:pe=1"}, {"rmaps_base_ranking_policy", "core"}}},
      {{"--bynode", "--bind-to-core", "a"},
       {{"rmaps_base_bynode", "1"}, {"hwloc_base_bind_to_core", "1"}}},
      {{"-N", "2", "--pernode", "--npersocket", "1", "a"},
       {{"rmaps_ppr_n_pernode", "2"}, {"rmaps_ppr_pernode", "1"}, {"rmaps_ppr_n_persocket", "1"}}},
      {{"--cpus-per-rank", "1", "--use-hwthread-cpus", "-oversubscribe", "a"},
       {{"rmaps_base_cpus_per_rank", "1"},
        {"hwloc_base_use_hwthreads_as_cpus", "1"},
        {"rmaps_base_oversubscribe", "1"}}},
      {{"-rf", "rf", "--display-map", "--display-devel-allocation", "a"},
       {{"orte_rankfile", "rf"},
        {"rmaps_base_display_map", "1"},
        {"orte_display_devel_alloc", "1"}}},
      {{"--display-allocation", "a"}, {{"orte_display_alloc", "1"}}},
      {{"--tag-output", "-q", "--output-filename", "out", "--max-restarts", "2", "a"},
       {{"orte_tag_output", "1"},
        {"orte_execute_quiet", "1"},
        {"orte_output_filename", "out"},
        {"orte_max_restarts", "2"}}},
      // Options without effect here pass theirs too (-v none, as under mpirun 4.1.4).
      {{"-d", "--debug-daemons", "--novm", "-v", "--show-progress", "a"},
       {{"orte_debug", "1"},
        {"orte_debug_daemons", "1"},
        {"orte_no_vm", "1"},
        {"orte_report_launch_progress", "1"}}},
      // --report-bindings is passed only to unbound ranks (the supervisor decides); -x, -n none.
      {{"--report-bindings", "-x", "A=1", "-n", "1", "a"}, {}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args.front());
    const auto o = parse(row.args);
    REQUIRE(o.has_value());
    CHECK(o->option_mca == row.expected);
  }
}

// mpirun 4.1.4 (measured): "--mca btl a --mca btl b" and "-mca btl a --mca btl a" exit 1 ("MCA
// parameters can only be listed once on a command line"); --mca with --gmca of one name, or one
// --mca in each of two contexts, run.
TEST_CASE("an MCA parameter given twice with --mca is refused, as by mpirun") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--mca", "btl", "self,vader", "--mca", "btl", "tcp,self", "a"},
           {"-mca", "btl", "self", "--mca", "btl", "self", "a"},
           {"--gmca", "btl", "self", "--mca", "pml", "ob1", "-mca", "pml", "ob1", "a"}}) {
    const auto o = parse(args);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().kind == ErrorKind::BadOption);
    CHECK(o.error().detail.find("is given twice") != std::string::npos);
  }
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--mca", "btl", "self", "--gmca", "btl", "self", "a"},
           {"-n", "1", "--mca", "btl", "self", "a", ":", "-n", "1", "--mca", "btl", "self", "b"},
           {"--mca", "btl", "self", "--mca", "pml", "ob1", "a"}}) {
    INFO(args.size());
    CHECK(parse(args).has_value());
  }
}
