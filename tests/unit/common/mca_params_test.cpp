#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/mca_params.hpp"

using namespace mpilaunch;

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

Values read_files(std::vector<const char*> texts) {
  Values values;
  for (const char* text : texts) add_mca_param_file(text, values);
  return values;
}

}  // namespace

TEST_CASE("mca param files: name = value lines, comments and blanks") {
  const Values values = read_files({
      "# Debian's file\n"
      "btl_base_warn_component_unused=0\n"
      "  mtl = ^ofi  \n"
      "\n"
      " \t \n"
      "orte_default_hostfile = /etc/hosts.mpi\n"
      "\tname\t=\t\f/x y\t\n"
      "empty =\n"
      "blank = \t \n"
      "last = 1",
  });
  CHECK(values == Values{{"btl_base_warn_component_unused", "0"},
                         {"mtl", "^ofi"},
                         {"orte_default_hostfile", "/etc/hosts.mpi"},
                         {"name", "/x y"},
                         {"empty", ""},
                         {"blank", ""},
                         {"last", "1"}});
}

TEST_CASE("mca param files: a value is the rest of its line, as Open MPI 4.1.4 takes it") {
  // Measured with `ompi_info --param all all --level 9 --parsable` under HOME=tmpdir, and with
  // mpirun 4.1.4, which then refuses `node # c` as a mapping policy and `"1"` as a boolean.
  const std::pair<const char*, Values> cases[] = {
      {"a = node # c\n", {{"a", "node # c"}}},
      {"a = x // y\n", {{"a", "x // y"}}},
      {"a = \"none\"\n", {{"a", "\"none\""}}},
      {"a = '/tmp/q'\n", {{"a", "'/tmp/q'"}}},
      {"a = /x = y\n", {{"a", "/x = y"}}},
      {"a = 1\r\n", {{"a", "1\r"}}},  // a CRLF file: mpirun refuses "1\r" as a boolean
      {"a = 1\f\n", {{"a", "1\f"}}},
      {"a = x\\\nb = y\n", {{"a", "x\\"}, {"b", "y"}}},  // no continuation lines
      {"a-b.c = 1\n", {{"a-b.c", "1"}}},
  };
  for (const auto& [text, expected] : cases) {
    INFO(std::string(text));
    CHECK(read_files({text}) == expected);
  }
}

TEST_CASE("mca param files: comments and lines Open MPI 4.1.4 skips") {
  // Each measured with ompi_info: what it sets, and its "keyval parser: error" for the rest.
  const std::pair<const char*, Values> cases[] = {
      {"  # a = 1\n", {}},
      {"// a = 1\n", {}},
      {"/* a = 1 */\n", {}},
      {"/* a = 1\n b = 2 ** / */ c = 3\n", {{"c", "3"}}},  // a block comment spans lines
      {"/* a = 1", {}},
      {"a#c = 1\n", {}},  // the name ends at '#': a comment, then no '='
      {"a /* c */ = 1\n", {}},
      {"noequals\nb = 2\n", {{"b", "2"}}},
      {"= novalue\n", {}},
      {"a b = 1\n", {}},
      {"a b c = 1\n", {{"c", "1"}}},  // "a b" is skipped a word at a time, then c = 1 is read
      {"a:b = 1\n", {{"b", "1"}}},    // ':' is no name's: an error that ends the word a
      {"OMPI_MCA_a = 1\n", {{"OMPI_MCA_a", "1"}}},  // a name as it stands (no parameter has it)
      {"-x A\n", {}},
      {"-x A=1\n", {}},
      {"\r\n", {}},
      // Open MPI's comment rule needs the line's '\n': the last line of a file without one is
      // read (measured: "# orte_tmpdir_base = /x" there sets it).
      {"# a = 1", {{"a", "1"}}},
      {"# a = 1\n", {}},
  };
  for (const auto& [text, expected] : cases) {
    INFO(std::string(text));
    CHECK(read_files({text}) == expected);
  }
}

TEST_CASE("mca param files: a --tune file's -mca lines, read there too") {
  // Measured with ompi_info: Open MPI 4.1.4 reads them in its parameter files as in --tune
  // files, a value being one word or a quoted text that blanks follow.
  const std::pair<const char*, Values> cases[] = {
      {"-mca a /z\n", {{"a", "/z"}}},
      {"--mca a /z # c\n", {{"a", "/z"}}},  // the value is one word; "# c" is skipped
      {"-mca a 1 -mca b 2 -x C=3 -x D\n", {{"a", "1"}, {"b", "2"}}},
      {"-mca a '/z y' \n", {{"a", "/z y"}}},
      {"-mca a \"/z y\" \n", {{"a", "/z y"}}},
      {"-mca a '/z y'\n", {{"a", "/z"}}},  // no blank after the quote: the word "'/z"
      {"-mca a\n", {}},
      {"-mca a=1\n", {}},
      {"x -mca a 1\n", {}},
      {"  -  mca a 1\n", {}},
      {"-mca a 1\nb = 2\n", {{"a", "1"}, {"b", "2"}}},
  };
  for (const auto& [text, expected] : cases) {
    INFO(std::string(text));
    CHECK(read_files({text}) == expected);
  }
}

// Measured with mpirun 4.1.4 --tune FILE -n 1 (the ranks' environment, mpirun's "keyval parser:
// error N reading file F at line L:\n  TEXT" lines; it runs).
TEST_CASE("tune files: -x, parameters and what the parser skips, as mpirun 4.1.4 reads them") {
  const struct {
    const char* text;
    Values mca;
    std::vector<std::string> exports;
    std::vector<std::pair<int, std::string>> skipped;
  } rows[] = {
      {"-x T_A=1 -x T_B=\"x y\" -x T_C='p q'\n",
       {},
       {"T_A=1", "T_B=\"x y\" ", "T_C='p"},
       {{1, "q"}, {1, "'"}}},
      {"# -x T_C=1\n-x T_D=1 # trailing\n  -x T_E=2\n", {}, {"T_D=1", "T_E=2"}, {}},
      {"-x\nT_F=1\n", {{"T_F", "1"}}, {}, {{2, ""}}},
      {"T_G=1\n", {{"T_G", "1"}}, {}, {}},
      {"rmaps_base_oversubscribe = 1\n", {{"rmaps_base_oversubscribe", "1"}}, {}, {}},
      {"-x T_H\n", {}, {"T_H"}, {}},
      {"-n 2\n", {}, {}, {{1, "2"}}},
      {"--bind-to core\n", {}, {}, {{1, "core"}}},
      {"foo\n", {}, {}, {{2, ""}}},
      {"--mca mpi_show_handle_leaks 1 -mca tune_x \"a b\" -x T_I=1\n--gmca tune_y 2\n",
       {{"mpi_show_handle_leaks", "1"}, {"tune_x", "a b"}},
       {"T_I=1"},
       {{2, "tune_y"}, {3, ""}}},
  };
  for (const auto& row : rows) {
    INFO(std::string(row.text));
    const TuneFileSettings settings = read_tune_file(row.text);
    CHECK(settings.mca == row.mca);
    CHECK(settings.exports == row.exports);
    std::vector<std::pair<int, std::string>> skipped;
    for (const KeyvalSkip& skip : settings.skipped) skipped.emplace_back(skip.line, skip.text);
    CHECK(skipped == row.skipped);
    Values as_param_file;  // a parameter file's reading is the same, -x aside
    add_mca_param_file(row.text, as_param_file);
    CHECK(as_param_file == row.mca);
  }
}

TEST_CASE("mca param files: the user's file (read last) and a later line win") {
  // The system's file first, then $HOME's: mpirun 4.1.4 takes the user's value (measured).
  const Values values = read_files({
      "rmaps_base_oversubscribe = 1\nhwloc_base_binding_policy = core\n",
      "rmaps_base_oversubscribe = 0\nhwloc_base_binding_policy = none\n"
      "hwloc_base_binding_policy = socket\n",
  });
  REQUIRE(mca_param_value(values, "rmaps_base_oversubscribe") != nullptr);
  CHECK(*mca_param_value(values, "rmaps_base_oversubscribe") == "0");
  CHECK(*mca_param_value(values, "hwloc_base_binding_policy") == "socket");
  CHECK(mca_param_value(values, "rmaps_base_display_map") == nullptr);
}

TEST_CASE("mca param files: booleans as Open MPI reads them") {
  // Measured with OMPI_MCA_rmaps_base_oversubscribe under mpirun 4.1.4: "enabled", "y", "t"
  // and "2" oversubscribe, "on" is refused (exit 1).
  const std::pair<const char*, std::optional<bool>> cases[] = {
      {"1", true},
      {"2", true},
      {"0", false},
      {"true", true},
      {"t", true},
      {"yes", true},
      {"y", true},
      {"enabled", true},
      {"false", false},
      {"f", false},
      {"no", false},
      {"n", false},
      {"disabled", false},
      {" 1 ", true},
      {"on", std::nullopt},
      {"off", std::nullopt},
      {"TRUE", std::nullopt},
      {"", std::nullopt},
      {"1x", std::nullopt},
  };
  for (const auto& [text, expected] : cases) {
    INFO(std::string(text));
    CHECK(mca_bool(text) == expected);
  }
}
