#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/cli/mca_param_files.hpp"

using namespace mpilaunch::launcher;

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
      "  mtl = ^ofi  \r\n"
      "\n"
      "no equals sign here\n"
      " = no name\n"
      "rmaps_base_mapping_policy = node # as mpirun reads it\n"
      "orte_default_hostfile = /etc/hosts.mpi\n"
      "empty =\n",
  });
  CHECK(values == Values{{"btl_base_warn_component_unused", "0"},
                         {"mtl", "^ofi"},
                         {"rmaps_base_mapping_policy", "node"},
                         {"orte_default_hostfile", "/etc/hosts.mpi"},
                         {"empty", ""}});
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
    INFO(text);
    CHECK(mca_bool(text) == expected);
  }
}
