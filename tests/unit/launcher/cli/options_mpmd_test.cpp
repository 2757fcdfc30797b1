// MPMD as mpirun 4.1.4 reads it: a lone ':' starts another application context, each with its
// own -n, -H, -x and --wdir; an appfile (--app) has one context per line. Tables of literal
// command lines and appfiles.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "launcher/cli/options.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

using Words = std::vector<std::string>;
using Mca = std::vector<std::pair<std::string, std::string>>;

TEST_CASE("mpmd: ':' splits the line into contexts, each with its own options and program") {
  const auto o = parse_options({"--oversubscribe",
                                "-n",
                                "1",
                                "-x",
                                "A=1",
                                "--wdir",
                                "sub",
                                "./a",
                                "x",
                                "y",
                                ":",
                                "-np",
                                "2",
                                "-H",
                                "n2:2",
                                "-x",
                                "B",
                                "./b",
                                "a b",
                                ":",
                                "--tag-output",
                                "./c"});
  REQUIRE(o);
  REQUIRE(o->contexts.size() == 3);
  CHECK(o->contexts[0].np == 1);
  CHECK(o->contexts[0].exports == Words{"A=1"});
  CHECK(o->contexts[0].wdir == "sub");
  CHECK(o->contexts[0].hosts.empty());
  CHECK(o->contexts[0].program == Words{"./a", "x", "y"});
  CHECK(o->contexts[1].np == 2);
  CHECK(o->contexts[1].hosts == Words{"n2:2"});
  CHECK(o->contexts[1].exports == Words{"B"});
  CHECK(o->contexts[1].wdir.empty());
  CHECK(o->contexts[1].program == Words{"./b", "a b"});
  CHECK_FALSE(o->contexts[2].np);
  CHECK(o->contexts[2].program == Words{"./c"});
  // Placement options count wherever they are given (mpirun: --oversubscribe after ':' works);
  // output options only before the first program, a later context's ranks get their parameter.
  CHECK(o->oversubscribe);
  CHECK_FALSE(o->tag_output);
  CHECK(o->contexts[2].option_mca == Mca{{"orte_tag_output", "1"}});
  // The first context's values stay where single-program code reads them; -H is merged.
  CHECK(o->np == 1);
  CHECK(o->program == Words{"./a", "x", "y"});
  CHECK(o->exports == Words{"A=1"});
  CHECK(o->hosts == Words{"n2:2"});
}

TEST_CASE("mpmd: options of a later context: its ranks get their MCA parameters (mpirun 4.1.4)") {
  struct Row {
    Words later;  // options given with the second context
    Mca job;      // the job's option_mca (every rank)
    Mca context;  // the second context's (its ranks only)
    bool tag, timestamp, report_bindings, display_map, oversubscribe;
    std::string bind_to, output_filename, stdin_target;
  };
  const Row rows[] = {
      {{"--tag-output"},
       {},
       {{"orte_tag_output", "1"}},
       false,
       false,
       false,
       false,
       false,
       "",
       "",
       ""},
      {{"--timestamp-output"},
       {},
       {{"orte_timestamp_output", "1"}},
       false,
       false,
       false,
       false,
       false,
       "",
       "",
       ""},
      // The launcher gives the first context's unbound ranks this one itself; a later
      // context's ranks get it whatever their binding, as from mpirun.
      {{"--report-bindings"},
       {},
       {{"hwloc_base_report_bindings", "1"}},
       false,
       false,
       false,
       false,
       false,
       "",
       "",
       ""},
      // Placement: the whole job, the parameter for the context's ranks.
      {{"--bind-to", "none"},
       {},
       {{"hwloc_base_binding_policy", "none"}},
       false,
       false,
       false,
       false,
       false,
       "none",
       "",
       ""},
      {{"--oversubscribe"},
       {},
       {{"rmaps_base_oversubscribe", "1"}},
       false,
       false,
       false,
       false,
       true,
       "",
       "",
       ""},
      {{"--output-filename", "of", "--stdin", "none", "--display-map"},
       {},
       {{"orte_output_filename", "of"}, {"rmaps_base_display_map", "1"}},
       false,
       false,
       false,
       false,
       false,
       "",
       "",
       ""},
  };
  for (const Row& row : rows) {
    Words args = {"-n", "1", "./a", ":", "-n", "1"};
    args.insert(args.end(), row.later.begin(), row.later.end());
    args.push_back("./b");
    CAPTURE(args);
    const auto o = parse_options(args);
    REQUIRE(o);
    CHECK(o->option_mca == row.job);
    CHECK(o->contexts[0].option_mca.empty());
    CHECK(o->contexts[1].option_mca == row.context);
    CHECK(o->tag_output == row.tag);
    CHECK(o->timestamp_output == row.timestamp);
    CHECK(o->report_bindings == row.report_bindings);
    CHECK(o->display_map == row.display_map);
    CHECK(o->oversubscribe == row.oversubscribe);
    CHECK(o->bind_to == row.bind_to);
    CHECK(o->output_filename == row.output_filename);
    CHECK(o->stdin_target == row.stdin_target);
  }
  // Given before the first program they are the job's: every rank gets the parameter.
  const auto first = parse_options({"--tag-output", "--report-bindings", "-n", "1", "./a", ":",
                                    "-n", "1", "--tag-output", "./b"});
  REQUIRE(first);
  CHECK(first->tag_output);
  CHECK(first->report_bindings);
  CHECK(first->option_mca == Mca{{"orte_tag_output", "1"}});
  CHECK(first->contexts[1].option_mca == Mca{{"orte_tag_output", "1"}});
}

TEST_CASE("mpmd: one program is one context; ':' inside '--' arguments still splits") {
  const auto one = parse_options({"-n", "2", "./a", "b"});
  REQUIRE(one);
  REQUIRE(one->contexts.size() == 1);
  CHECK(one->contexts[0].program == Words{"./a", "b"});
  const auto two = parse_options({"-n", "1", "--", "./a", ":", "./b"});
  REQUIRE(two);
  CHECK(two->contexts.size() == 2);
}

TEST_CASE("mpmd: a context without a program is refused by name") {
  for (const Words& bad : {Words{"-n", "1", "./a", ":"}, Words{":", "./a"},
                           Words{"./a", ":", ":", "./b"}, Words{"./a", ":", "-n", "1"}}) {
    CAPTURE(bad.front());
    const auto o = parse_options(bad);
    REQUIRE_FALSE(o);
    CHECK(o.error().kind == ErrorKind::BadOption);
    CHECK(o.error().detail.find("has no program") != std::string::npos);
  }
  // A bad option in a later context is reported as any bad option.
  const auto o = parse_options({"./a", ":", "-n", "zero", "./b"});
  REQUIRE_FALSE(o);
  CHECK(o.error().detail.find("-n") != std::string::npos);
}

TEST_CASE("appfile: a line's output options change nothing, its MCA parameters reach ranks") {
  const auto cl = parse_options({"--timestamp-output", "--app", "apps"});
  REQUIRE(cl);
  const auto o = apply_appfile(*cl,
                               "-n 1 --tag-output --report-bindings ./a\n"
                               "-n 1 --output-filename of --display-map ./b\n",
                               "apps");
  REQUIRE(o);
  // mpirun 4.1.4 (measured): the first line's parameters reach every rank, a later line's
  // only its ranks; nothing is tagged, reported, written to files or mapped.
  CHECK(o->option_mca == Mca{{"orte_timestamp_output", "1"},
                             {"orte_tag_output", "1"},
                             {"hwloc_base_report_bindings", "1"}});
  CHECK(o->contexts[0].option_mca.empty());
  CHECK(o->contexts[1].option_mca ==
        Mca{{"orte_output_filename", "of"}, {"rmaps_base_display_map", "1"}});
  CHECK(o->timestamp_output);  // the command line's
  CHECK_FALSE(o->tag_output);
  CHECK_FALSE(o->report_bindings);
  CHECK(o->output_filename.empty());
  CHECK_FALSE(o->display_map);
}

TEST_CASE("appfile: one context per line, comments and blank lines skipped, no quoting") {
  const auto cl = parse_options({"--oversubscribe", "--app", "apps"});
  REQUIRE(cl);
  CHECK(cl->appfile == "apps");
  const auto o = apply_appfile(*cl,
                               "# the solver and its helpers\n"
                               "-n 1 -x A=1 ./a x y   # trailing comment\n"
                               "\n"
                               "  \t\n"
                               "-np 2 --wdir /w -H n1,n2 ./b \"a b\" c\n"
                               "./c",
                               "apps");
  REQUIRE(o);
  REQUIRE(o->contexts.size() == 3);
  CHECK(o->contexts[0].np == 1);
  CHECK(o->contexts[0].exports == Words{"A=1"});
  CHECK(o->contexts[0].program == Words{"./a", "x", "y"});
  CHECK(o->contexts[1].np == 2);
  CHECK(o->contexts[1].wdir == "/w");
  CHECK(o->contexts[1].hosts == Words{"n1,n2"});
  CHECK(o->contexts[1].program == Words{"./b", "\"a", "b\"", "c"});  // as mpirun 4.1.4 splits
  CHECK(o->contexts[2].program == Words{"./c"});
  CHECK(o->oversubscribe);
  CHECK(o->program == Words{"./a", "x", "y"});
}

TEST_CASE("appfile: the command line's -n, -x, --wdir and program are not used (as mpirun)") {
  const auto cl = parse_options({"-n", "4", "-x", "Z=1", "--wdir", "/tmp", "--app", "f", "./p"});
  REQUIRE(cl);
  const auto o = apply_appfile(*cl, "-n 1 ./a\n./b\n", "f");
  REQUIRE(o);
  REQUIRE(o->contexts.size() == 2);
  CHECK(o->contexts[0].exports.empty());
  CHECK(o->contexts[0].wdir.empty());
  CHECK_FALSE(o->contexts[1].np);
  CHECK(o->program == Words{"./a"});
}

TEST_CASE("appfile: errors name the file and the line") {
  const auto cl = parse_options({"--app", "f"});
  REQUIRE(cl);
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : {Case{"", "--app f: the appfile has no program"},
                        Case{"# only a comment\n\n", "--app f: the appfile has no program"},
                        Case{"./a\n-n 2\n", "--app f, line 2: no program on the line"},
                        Case{"./a\n-n two ./b\n", "--app f, line 2: -n needs a whole number"},
                        Case{"--bogus ./a\n", "--app f, line 1: unknown option '--bogus'"},
                        Case{"./a : ./b\n", "--app f, line 1: ':' does not separate contexts"},
                        Case{"--app g ./a\n", "--app f, line 1: --app was given twice"}}) {
    const std::string text = c.text;
    CAPTURE(text);
    const auto o = apply_appfile(*cl, c.text, "f");
    REQUIRE_FALSE(o);
    CAPTURE(o.error().detail);
    CHECK(o.error().kind == ErrorKind::BadOption);
    CHECK(o.error().detail.starts_with(c.expected));
  }
}

// mpirun 4.1.4 (measured) takes --prefix from before the first program (with --app: the command
// line, else the first line) for the whole job, the first one given there; it ignores a second
// one and one given later. Ignored here too, each named for a warning.
TEST_CASE("--prefix: one for the whole job, the first given before the first program") {
  struct Row {
    Words args;
    const char* prefix;  // nullptr: refused, with `said` in the detail
    const char* said;    // else the first warning, if any
  };
  const Row rows[] = {
      {{"--prefix", "/opt/ompi", "./a"}, "/opt/ompi", ""},
      {{"-prefix", "/opt/ompi//", "./a"}, "/opt/ompi", ""},
      {{"--prefix=//x//", "./a"}, "//x", ""},
      {{"--prefix", "/o", "-n", "1", "./a", ":", "--prefix", "/o", "-n", "1", "./b"}, "/o", ""},
      {{"--prefix", "/o", "-n", "1", "./a", ":", "-n", "1", "./b"}, "/o", ""},
      {{"--prefix", "opt", "./a"},
       nullptr,
       "--prefix 'opt': give the install prefix as an absolute"},
      {{"--prefix", "", "./a"}, nullptr, "--prefix '': give the install prefix as an absolute"},
      {{"--prefix", "//", "./a"}, nullptr, "--prefix //: a prefix of slashes only"},
      {{"--prefix", "/a", "--prefix", "/b", "./a"},
       "/a",
       "--prefix /b: ignored, as mpirun 4.1.4 uses the first --prefix (/a)"},
      {{"-n", "1", "./a", ":", "--prefix", "/b", "-n", "1", "./b"},
       "",
       "--prefix /b (with application context 2): ignored, as mpirun 4.1.4 takes --prefix from "
       "before the first program only"},
      {{"--prefix", "/a", "./a", ":", "--prefix", "/b", "./b"},
       "/a",
       "--prefix /b: ignored, as mpirun 4.1.4 uses the first --prefix (/a)"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args);
    const auto o = parse_options(row.args);
    if (row.prefix == nullptr) {
      REQUIRE_FALSE(o);
      CAPTURE(o.error().detail);
      CHECK(o.error().kind == ErrorKind::BadOption);
      CHECK(o.error().detail.starts_with(row.said));
    } else {
      REQUIRE(o);
      CHECK(o->prefix == row.prefix);
      CHECK(o->ignored_options.size() == (*row.said == '\0' ? 0U : 1U));
      if (!o->ignored_options.empty()) CHECK(o->ignored_options[0].starts_with(row.said));
    }
  }
  // An appfile: the command line's --prefix, else the first line's, for every line.
  const auto cl = parse_options({"--prefix", "/o", "--app", "f"});
  REQUIRE(cl);
  auto o = apply_appfile(*cl, "-n 1 ./a\n--prefix /o -n 1 ./b\n", "f");
  REQUIRE(o);
  CHECK(o->prefix == "/o");
  CHECK(o->ignored_options.empty());
  o = apply_appfile(*cl, "--prefix /p -n 1 ./a\n-n 1 ./b\n", "f");
  REQUIRE(o);
  CHECK(o->prefix == "/o");  // mpirun warns that the line's is ignored
  REQUIRE(o->ignored_options.size() == 1);
  CHECK(o->ignored_options[0].starts_with("--prefix /p: ignored"));
  const auto bare = parse_options({"--app", "f"});
  REQUIRE(bare);
  o = apply_appfile(*bare, "--prefix /p -n 1 ./a\n--prefix /q -n 1 ./b\n", "f");
  REQUIRE(o);
  CHECK(o->prefix == "/p");
  o = apply_appfile(*bare, "-n 1 ./a\n--prefix /p -n 1 ./b\n", "f");
  REQUIRE(o);
  CHECK(o->prefix.empty());
  REQUIRE(o->ignored_options.size() == 1);
  CHECK(o->ignored_options[0].starts_with("--prefix /p (on line 2 of --app f): ignored"));
}

// Placement options in a later context (MPMD) or on an appfile line, as mpirun 4.1.4 has them
// (measured on virtual nodes): --map-by, --rank-by and --bind-to count from the last context
// only, starting again from what was given before the first program (or on the command line
// with --app); --npernode and --npersocket hold wherever they stand, the last given winning;
// --ppr, --cpus-per-proc, --use-hwthread-cpus, --cpu-list and --cpu-set change nothing.
TEST_CASE("mpmd and appfiles: placement options where mpirun 4.1.4 counts them") {
  struct Row {
    Words args;
    std::string appfile;  // with --app: the file's text
    std::string map_by, rank_by, bind_to;
    std::optional<int> per_node, per_socket;
    std::size_t ignored = 0;
  };
  const Row rows[] = {
      {{"-n", "1", "./a", ":", "-n", "1", "--rank-by", "node", "./b"}, "", "", "node", ""},
      {{"-n", "1", "./a", ":", "--rank-by", "node", "./b", ":", "./c"}, "", "", "", ""},
      {{"--rank-by", "node", "./a", ":", "./b"}, "", "", "node", ""},
      {{"./a", ":", "--map-by", "node", "./b", ":", "./c"}, "", "", "", ""},
      {{"--bind-to", "none", "./a", ":", "--bind-to", "core", "./b", ":", "./c"},
       "",
       "",
       "",
       "none"},
      {{"./a", ":", "./b", ":", "--bind-to", "none", "--map-by", "node", "./c"},
       "",
       "node",
       "",
       "none"},
      {{"--npernode", "2", "./a", ":", "--npernode", "1", "./b", ":", "./c"}, "", "", "", "", 1},
      {{"./a", ":", "--npersocket", "1", "./b", ":", "./c"}, "", "", "", "", {}, 1},
      {{"./a", ":", "--ppr", "1:node", "--cpus-per-proc", "2", "--use-hwthread-cpus", "--cpu-list",
        "1", "--cpu-set", "1", "./b"},
       "",
       "",
       "",
       "",
       {},
       {},
       5},
      {{"--rank-by", "node", "--app", "f"}, "-n 1 ./a\n-n 1 --rank-by slot ./b\n", "", "slot", ""},
      {{"--rank-by", "node", "--app", "f"}, "-n 1 --rank-by slot ./a\n-n 1 ./b\n", "", "node", ""},
      {{"--app", "f"}, "-n 1 ./a\n-n 1 --rank-by node ./b\n-n 1 ./c\n", "", "", ""},
      {{"--npernode", "2", "--app", "f"}, "--npernode 1 ./a\n./b\n", "", "", "", 1},
      {{"--app", "f"}, "./a\n--npernode 1 ./b\n--npernode 2 ./c\n", "", "", "", 2},
      {{"--app", "f"},
       "--ppr 1:node --cpus-per-rank 2 ./a\n--use-hwthread-cpus --cpu-list 1 ./b\n",
       "",
       "",
       "",
       {},
       {},
       4},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args);
    CAPTURE(row.appfile);
    auto o = parse_options(row.args);
    REQUIRE(o);
    if (!row.appfile.empty()) o = apply_appfile(*o, row.appfile, "f");
    REQUIRE_MESSAGE(o, o.error().detail);
    CHECK(o->map_by_text == row.map_by);
    CHECK(o->rank_by == row.rank_by);
    CHECK(o->bind_to == row.bind_to);
    CHECK(o->per_node == row.per_node);
    CHECK(o->per_socket == row.per_socket);
    CHECK(o->ppr.empty());
    CHECK(o->cpus_per_proc.empty());
    CHECK_FALSE(o->use_hwthread_cpus);
    CHECK(cpu_list_of(*o).empty());
    CHECK(o->ignored_options.size() == row.ignored);
  }
  // Given before the first program they act; a later context's MCA parameter still reaches its
  // ranks (as under mpirun).
  const auto first = parse_options(
      {"--ppr", "1:node", "--cpus-per-proc", "2", "--use-hwthread-cpus", "./a", ":", "./b"});
  REQUIRE(first);
  CHECK(first->ppr == "1:node");
  CHECK(first->cpus_per_proc == "2");
  CHECK(first->use_hwthread_cpus);
  const auto later = parse_options({"./a", ":", "--ppr", "1:node", "./b"});
  REQUIRE(later);
  CHECK(later->contexts[1].option_mca == Mca{{"rmaps_ppr_pattern", "1:node"}});
  REQUIRE(later->ignored_options.size() == 1);
  CHECK(later->ignored_options[0].starts_with(
      "--ppr 1:node (with application context 2): ignored, as mpirun 4.1.4 ignores it"));
}

// -n 0 is a context without -n (every slot of its hosts), as under mpirun 4.1.4 (measured).
TEST_CASE("mpmd and appfiles: -n 0 asks every slot") {
  const auto o = parse_options({"-n", "1", "./a", ":", "-np", "0", "./b"});
  REQUIRE(o);
  CHECK(o->contexts[0].np == 1);
  CHECK_FALSE(o->contexts[1].np);
  const auto cl = parse_options({"--app", "f"});
  REQUIRE(cl);
  const auto app = apply_appfile(*cl, "-n 0 ./a\n", "f");
  REQUIRE(app);
  CHECK_FALSE(app->contexts[0].np);
  CHECK_FALSE(app->np);
}

// mpirun 4.1.4's --tune files (measured): -x and --mca, several to a line, '#' comments; the
// command line's -x wins, the first file wins among files; what its parser skips is skipped.
TEST_CASE("--tune: the files' -x go to every context, their --mca to the launcher") {
  const auto cl =
      parse_options({"--tune", "a,b", "-x", "FOO=cmd", "-n", "1", "./a", ":", "-n", "1", "./b"});
  REQUIRE(cl);
  CHECK(cl->tune == "a,b");
  const auto o = apply_tune(*cl, {{"a", "# tuned\n-x FOO=file -x BAR=one\n--mca btl self\n"},
                                  {"b", "-x BAR=two -x HOMEX\n-mca rmaps_base_oversubscribe 1"}});
  REQUIRE_MESSAGE(o, o.error().detail);
  REQUIRE(o->contexts.size() == 2);
  CHECK(o->contexts[0].exports == std::vector<std::string>{"FOO=cmd", "BAR=one", "HOMEX"});
  CHECK(o->contexts[1].exports == std::vector<std::string>{"FOO=file", "BAR=one", "HOMEX"});
  CHECK(o->exports == std::vector<std::string>{"FOO=cmd", "BAR=one", "HOMEX"});
  CHECK(o->tune_mca == std::vector<std::pair<std::string, std::string>>{
                           {"btl", "self"}, {"rmaps_base_oversubscribe", "1"}});
  CHECK(o->mca.empty());
  // What Open MPI's parser skips, mpirun 4.1.4 skips and runs: a warning each here.
  const struct {
    std::string text;
    std::vector<std::string> says;
  } skipped[] = {
      {"-np 2\n", {"--tune t.conf, line 1: '2' skipped"}},
      {"\n--mca btl\n", {"--tune t.conf, line 2: 'btl' skipped"}},
      {"foo\n", {"--tune t.conf, line 2: the end of a line skipped"}},
      {"-x A=\"a b\"\n", {"--tune t.conf, line 1: 'b' skipped", "--tune t.conf, line 1: '\"'"}}};
  for (const auto& row : skipped) {
    CAPTURE(row.text);
    const auto runs = apply_tune(*cl, {{"t.conf", row.text}});
    REQUIRE(runs);
    REQUIRE(runs->ignored_options.size() == row.says.size());
    for (std::size_t i = 0; i < row.says.size(); ++i)
      CHECK(runs->ignored_options[i].starts_with(row.says[i]));
  }
  const auto am = parse_options({"-am", "x.conf", "--am", "y.conf", "./a"});
  REQUIRE(am);
  CHECK(am->am == "y.conf");
}

// mpirun 4.1.4 takes one --hostfile per application context (a second in one context is its
// "multiple hostfiles" error).
TEST_CASE("mpmd: a --hostfile per context") {
  const auto o = parse_options({"-n", "1", "--hostfile", "hf1", "./a", ":", "-n", "2", "-hostfile",
                                "hf2", "./b", ":", "./c"});
  REQUIRE(o);
  REQUIRE(o->contexts.size() == 3);
  CHECK(o->contexts[0].hostfile == "hf1");
  CHECK(o->contexts[1].hostfile == "hf2");
  CHECK(o->contexts[2].hostfile.empty());
  CHECK(o->hostfile == "hf1");
  const auto twice = parse_options({"--hostfile", "a", "--hostfile", "b", "./a"});
  REQUIRE_FALSE(twice);
  CHECK(twice.error().detail.starts_with("--hostfile was given twice"));
  const auto cl = parse_options({"--app", "f"});
  REQUIRE(cl);
  const auto app = apply_appfile(*cl, "-n 1 --hostfile h1 ./a\n-n 1 ./b\n", "f");
  REQUIRE(app);
  CHECK(app->contexts[0].hostfile == "h1");
  CHECK(app->contexts[1].hostfile.empty());
  CHECK(app->hostfile == "h1");
  // mpirun 4.1.4 (measured) ignores the command line's -H and --hostfile with --app (not
  // --default-hostfile): the lines' own count, each ignored one is named for a warning.
  const auto with_file =
      parse_options({"--hostfile", "job", "-H", "n1", "--default-hostfile", "d", "--app", "f"});
  REQUIRE(with_file);
  const auto both = apply_appfile(*with_file, "--hostfile h1 ./a\n", "f");
  REQUIRE(both);
  CHECK(both->hostfile == "h1");
  CHECK(both->hosts.empty());
  REQUIRE(both->ignored_options.size() == 2);
  CHECK(both->ignored_options[0].starts_with("-H n1: ignored"));
  CHECK(both->ignored_options[1].starts_with("--hostfile job: ignored"));
  const auto job_file = apply_appfile(*with_file, "-n 1 ./a\n", "f");
  REQUIRE(job_file);
  CHECK(job_file->hostfile == "d");
  const auto line_hosts = apply_appfile(*with_file, "-n 1 -H n2 ./a\n-n 1 ./b\n", "f");
  REQUIRE(line_hosts);
  CHECK(line_hosts->hosts == Words{"n2"});
  CHECK(line_hosts->contexts[0].hosts == Words{"n2"});
}

// mpirun 4.1.4 (measured) ignores --mca given after the first program or on an appfile line:
// no rank gets it, nothing changes. Ignored here too, each named for a warning.
TEST_CASE("mpmd: --mca after the first program is ignored, as by mpirun") {
  const auto first = parse_options({"--mca", "a", "1", "-n", "1", "./a", ":", "-n", "1", "./b"});
  REQUIRE(first);
  CHECK(first->mca.size() == 1);
  CHECK(first->ignored_mca.empty());
  const auto in_first = parse_options({"-n", "1", "--gmca", "a", "1", "./a", ":", "./b"});
  REQUIRE(in_first);
  CHECK(in_first->mca.size() == 1);
  const auto later =
      parse_options({"--mca", "a", "1", "-n", "1", "./a", ":", "-n", "1", "-mca", "b", "2", "./b"});
  REQUIRE(later);
  CHECK(later->mca == Mca{{"a", "1"}});
  CHECK(later->ignored_mca == Words{"b 2 (with application context 2)"});
  CHECK(later->contexts[1].option_mca.empty());
  const auto cl = parse_options({"--mca", "a", "1", "--app", "f"});
  REQUIRE(cl);
  const auto line = apply_appfile(*cl, "-n 1 --mca b 2 ./a\n-n 1 ./b\n", "f");
  REQUIRE(line);
  CHECK(line->mca == Mca{{"a", "1"}});
  CHECK(line->ignored_mca == Words{"b 2 (on line 1 of --app f)"});
}

TEST_CASE(
    "--path holds for its context and the later ones; an appfile ignores the command line's") {
  const auto o = parse_options({"-n",     "1",  "./a", ":", "-n", "1",  "--path", "p1",    "b",
                                ":",      "-n", "1",   "c", ":",  "-n", "1",      "-path", "p2:/p3",
                                "--path", "p4", "d",   ":", "-n", "1",  "e"});
  REQUIRE(o);
  REQUIRE(o->contexts.size() == 5);
  CHECK(o->contexts[0].exec_path.empty());
  CHECK_FALSE(o->contexts[0].path_given);
  CHECK(o->contexts[1].exec_path == "p1");
  CHECK(o->contexts[1].path_given);
  CHECK(o->contexts[2].exec_path == "p1");  // mpirun 4.1.4 still searches p1 for c
  CHECK_FALSE(o->contexts[2].path_given);
  CHECK(o->contexts[3].exec_path == "p4");  // the last one given
  CHECK(o->contexts[3].path_given);
  CHECK(o->contexts[4].exec_path == "p4");
  CHECK_FALSE(o->contexts[4].path_given);

  const auto cl = parse_options({"--path", "p0", "--app", "f"});
  REQUIRE(cl);
  const auto a = apply_appfile(*cl, "-n 1 a\n-n 1 --path p1 b\n-n 1 c\n", "f");
  REQUIRE(a);
  REQUIRE(a->contexts.size() == 3);
  CHECK(a->contexts[0].exec_path.empty());
  CHECK(a->contexts[1].exec_path == "p1");
  CHECK(a->contexts[2].exec_path == "p1");
  CHECK_FALSE(a->contexts[2].path_given);
}
