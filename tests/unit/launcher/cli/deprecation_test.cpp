// mpirun 4.1.4's deprecation blocks: which forms print one, in which order, which are held back.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "launcher/cli/deprecation.hpp"
#include "launcher/cli/options.hpp"

using namespace mpilaunch::launcher;

namespace {

// The "Deprecated:" option lines of the blocks, in order.
std::vector<std::string> deprecated_options(const std::string& blocks) {
  std::vector<std::string> out;
  const std::string marker = "  Command line option";
  for (std::size_t at = blocks.find(marker); at != std::string::npos;
       at = blocks.find(marker, at + 1)) {
    const std::size_t from = blocks.find("Deprecated:  ", at) + 13;
    out.push_back(blocks.substr(from, blocks.find('\n', from) - from));
  }
  return out;
}

DeprecationNotice notice(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& others = {}) {
  auto o = parse_options(args);
  REQUIRE_MESSAGE(o, (o ? "" : o.error().detail));
  return deprecation_notice(o->option_mca, o->mca,
                            [&](const std::string& key) -> std::optional<std::string> {
                              const auto it = others.find(key);
                              if (it == others.end()) return std::nullopt;
                              return it->second;
                            });
}

}  // namespace

TEST_CASE("deprecation: mpirun 4.1.4's block, word for word") {
  CHECK(notice({"--bind-to-core", "p"}).blocks ==
        "--------------------------------------------------------------------------\n"
        "The following command line option and corresponding MCA parameter have\n"
        "been deprecated and replaced as follows:\n"
        "\n"
        "  Command line option:\n"
        "    Deprecated:  --bind-to-core\n"
        "    Replacement: --bind-to core\n"
        "\n"
        "  Equivalent MCA parameter:\n"
        "    Deprecated:  hwloc_base_bind_to_core\n"
        "    Replacement: hwloc_base_binding_policy=core\n"
        "\n"
        "The deprecated forms *will* disappear in a future version of Open MPI.\n"
        "Please update to the new syntax.\n"
        "--------------------------------------------------------------------------\n");
  const std::string ppr = notice({"-ppr", "1:node", "p"}).blocks;
  CHECK(ppr.find("The following command line options and corresponding") != std::string::npos);
  CHECK(ppr.find("  Command line options:\n    Deprecated:  --ppr, -ppr\n    Replacement: --map-by "
                 "ppr:<pattern>\n") != std::string::npos);
  CHECK(ppr.find("    Deprecated:  rmaps_base_pattern, rmaps_ppr_pattern\n    Replacement: "
                 "rmaps_base_mapping_policy=ppr:<pattern>\n") != std::string::npos);
}

TEST_CASE("deprecation: which forms print, in mpirun 4.1.4's order, the later mapping ones held") {
  const struct {
    std::vector<std::string> args;
    std::map<std::string, std::string> others;  // OMPI_MCA_*, --tune files, parameter files
    std::vector<std::string> shown;
    int held_back;
  } rows[] = {
      {{"p"}, {}, {}, 0},
      {{"--bind-to", "core", "--map-by", "core", "-N", "1", "--cpu-set", "0", "p"}, {}, {}, 0},
      {{"--bind-to-socket", "p"}, {}, {"--bind-to-socket"}, 0},
      {{"-bind-to-core", "-bind-to-core", "p"}, {}, {"--bind-to-core"}, 0},
      {{"--bycore", "p"}, {}, {"--bycore, -bycore"}, 0},
      {{"-byslot", "p"}, {}, {"--byslot, -byslot"}, 0},
      {{"--bynode", "p"}, {}, {"--bynode, -bynode"}, 0},
      {{"--cpus-per-rank", "2", "p"},
       {},
       {"--cpus-per-proc, -cpus-per-proc, --cpus-per-rank, -cpus-per-rank"},
       0},
      // Binding blocks first, both shown; the first mapping block only, the rest held back.
      {{"--bynode", "--cpus-per-proc", "1", "--bind-to-socket", "p"},
       {},
       {"--bind-to-socket", "--cpus-per-proc, -cpus-per-proc, --cpus-per-rank, -cpus-per-rank"},
       1},
      {{"--cpus-per-proc", "1", "--ppr", "1:node", "p"}, {}, {"--ppr, -ppr"}, 1},
      // orte_base_help_aggregate false: every block.
      {{"--cpus-per-proc", "1", "--bynode", "--mca", "orte_base_help_aggregate", "0", "p"},
       {},
       {"--cpus-per-proc, -cpus-per-proc, --cpus-per-rank, -cpus-per-rank", "--bynode, -bynode"},
       0},
      // The MCA parameters, from --mca or elsewhere; a false, zero or empty value is none.
      {{"--mca", "hwloc_base_bind_to_core", "true", "p"}, {}, {"--bind-to-core"}, 0},
      {{"--mca", "hwloc_base_bind_to_core", "0", "p"}, {}, {}, 0},
      {{"--mca", "rmaps_base_pattern", "1:node", "--ppr", "1:node", "p"}, {}, {"--ppr, -ppr"}, 0},
      {{"--mca", "rmaps_base_cpus_per_proc", "0", "p"}, {}, {}, 0},
      {{"--mca", "rmaps_base_pattern", "", "p"}, {}, {}, 0},
      {{"p"}, {{"rmaps_base_bycore", "yes"}}, {"--bycore, -bycore"}, 0},
      {{"p"}, {{"rmaps_base_bycore", "0"}}, {}, 0},
      {{"p"}, {{"hwloc_base_bind_to_socket", "1"}}, {"--bind-to-socket"}, 0},
      {{"p"},
       {{"rmaps_base_cpus_per_rank", "1"}},
       {"--cpus-per-proc, -cpus-per-proc, --cpus-per-rank, -cpus-per-rank"},
       0},
      // --mca decides over the option, the option over the other sources.
      {{"--bind-to-core", "--mca", "hwloc_base_bind_to_core", "0", "p"}, {}, {}, 0},
      {{"--bind-to-core", "p"}, {{"hwloc_base_bind_to_core", "0"}}, {"--bind-to-core"}, 0},
      // Given with a later MPMD context (options or --mca): none.
      {{"-n", "1", "p", ":", "--bind-to-core", "--ppr", "1:node", "-n", "1", "q"}, {}, {}, 0},
      {{"-n", "1", "p", ":", "--mca", "rmaps_base_bynode", "1", "-n", "1", "q"}, {}, {}, 0},
  };
  for (const auto& row : rows) {
    CAPTURE(row.args);
    const DeprecationNotice n = notice(row.args, row.others);
    CHECK(deprecated_options(n.blocks) == row.shown);
    CHECK(n.held_back == row.held_back);
  }
}

TEST_CASE("deprecation: the lines for the held-back blocks, as mpirun 4.1.4 ends") {
  CHECK(aggregation_lines(0, "vm", 12) == "");
  CHECK(aggregation_lines(1, "vm", 23513) ==
        "[vm:23513] 1 more process has sent help message help-orte-rmaps-base.txt / deprecated\n"
        "[vm:23513] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error "
        "messages\n");
  CHECK(aggregation_lines(2, "n1", 7)
            .starts_with("[n1:7] 2 more processes have sent help message help-orte-rmaps-base.txt "
                         "/ deprecated\n"));
}
