#include "launcher/cli/deprecation.hpp"

#include "common/mca_params.hpp"
#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>

namespace mpilaunch::launcher {
namespace {

// How a parameter's value says the deprecated form is in use.
enum class Given { Boolean, Count, Text };

struct DeprecatedForm {
  bool mapping;                   // Open MPI's rmaps help file (aggregated), else hwloc's
  bool plural;                    // "option" or "options" in the block
  std::string_view options;       // the deprecated spellings, as the block lists them
  std::string_view replacement;   // the option that replaces them
  std::string_view parameters;    // the deprecated MCA parameters, as the block lists them
  std::string_view replaced_by;   // the MCA setting that replaces them
  std::vector<std::string> keys;  // the MCA parameters that give the form (any of them)
  Given given;
};

// mpirun 4.1.4's order (measured): the binding blocks, then the mapping ones.
const std::vector<DeprecatedForm>& forms() {
  static const std::vector<DeprecatedForm> table = {
      {false,
       false,
       "--bind-to-core",
       "--bind-to core",
       "hwloc_base_bind_to_core",
       "hwloc_base_binding_policy=core",
       {"hwloc_base_bind_to_core"},
       Given::Boolean},
      {false,
       false,
       "--bind-to-socket",
       "--bind-to socket",
       "hwloc_base_bind_to_socket",
       "hwloc_base_binding_policy=socket",
       {"hwloc_base_bind_to_socket"},
       Given::Boolean},
      {true,
       true,
       "--ppr, -ppr",
       "--map-by ppr:<pattern>",
       "rmaps_base_pattern, rmaps_ppr_pattern",
       "rmaps_base_mapping_policy=ppr:<pattern>",
       {"rmaps_base_pattern", "rmaps_ppr_pattern"},
       Given::Text},
      {true,
       true,
       "--cpus-per-proc, -cpus-per-proc, --cpus-per-rank, -cpus-per-rank",
       "--map-by <obj>:PE=N, default <obj>=NUMA",
       "rmaps_base_cpus_per_proc",
       "rmaps_base_mapping_policy=<obj>:PE=N, default <obj>=NUMA",
       {"rmaps_base_cpus_per_proc", "rmaps_base_cpus_per_rank"},
       Given::Count},
      {true,
       true,
       "--bycore, -bycore",
       "--map-by core",
       "rmaps_base_bycore",
       "rmaps_base_mapping_policy=core",
       {"rmaps_base_bycore"},
       Given::Boolean},
      {true,
       true,
       "--byslot, -byslot",
       "--map-by slot",
       "rmaps_base_byslot",
       "rmaps_base_mapping_policy=slot",
       {"rmaps_base_byslot"},
       Given::Boolean},
      {true,
       true,
       "--bynode, -bynode",
       "--map-by node",
       "rmaps_base_bynode",
       "rmaps_base_mapping_policy=node",
       {"rmaps_base_bynode"},
       Given::Boolean},
  };
  return table;
}

bool gives(Given given, const std::string& value) {
  switch (given) {
    case Given::Boolean:
      return mca_bool(value).value_or(false);
    case Given::Count:
      return parse_int<long long>(value).value_or(0) > 0;
    case Given::Text:
      return !value.empty();
  }
  return false;
}

std::string block(const DeprecatedForm& form) {
  const std::string_view s = form.plural ? "s" : "";
  return mpilaunch::format(
      "--------------------------------------------------------------------------\n"
      "The following command line option{} and corresponding MCA parameter have\n"
      "been deprecated and replaced as follows:\n"
      "\n"
      "  Command line option{}:\n"
      "    Deprecated:  {}\n"
      "    Replacement: {}\n"
      "\n"
      "  Equivalent MCA parameter:\n"
      "    Deprecated:  {}\n"
      "    Replacement: {}\n"
      "\n"
      "The deprecated forms *will* disappear in a future version of Open MPI.\n"
      "Please update to the new syntax.\n"
      "--------------------------------------------------------------------------\n",
      s, s, form.options, form.replacement, form.parameters, form.replaced_by);
}

}  // namespace

DeprecationNotice deprecation_notice(
    const std::vector<std::pair<std::string, std::string>>& option_mca,
    const std::vector<std::pair<std::string, std::string>>& mca_args, const McaLookup& others) {
  auto given = [](const std::vector<std::pair<std::string, std::string>>& pairs,
                  const std::string& key) -> const std::string* {
    for (auto it = pairs.rbegin(); it != pairs.rend(); ++it)
      if (it->first == key) return &it->second;
    return nullptr;
  };
  auto mca = [&](const std::string& key) -> std::optional<std::string> {
    if (const std::string* value = given(mca_args, key)) return *value;
    return others(key);
  };
  auto in_use = [&](const DeprecatedForm& form) {
    for (const std::string& key : form.keys) {
      if (const std::string* value = given(mca_args, key)) {
        if (gives(form.given, *value)) return true;
      } else if (given(option_mca, key) != nullptr) {
        return true;
      } else if (const auto other = others(key); other && gives(form.given, *other)) {
        return true;
      }
    }
    return false;
  };
  const auto aggregate = mca("orte_base_help_aggregate");
  const bool aggregated = !aggregate || mca_bool(*aggregate).value_or(false);
  DeprecationNotice notice;
  bool mapping_shown = false;
  for (const DeprecatedForm& form : forms()) {
    if (!in_use(form)) continue;
    if (form.mapping && mapping_shown && aggregated) {
      ++notice.held_back;
      continue;
    }
    mapping_shown = mapping_shown || form.mapping;
    notice.blocks += block(form);
  }
  return notice;
}

std::string aggregation_lines(int held_back, std::string_view host, int pid) {
  if (held_back <= 0) return {};
  return mpilaunch::format(
      "[{0}:{1}] {2} more process{3} sent help message help-orte-rmaps-base.txt / deprecated\n"
      "[{0}:{1}] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error "
      "messages\n",
      host, pid, held_back, held_back == 1 ? " has" : "es have");
}

}  // namespace mpilaunch::launcher
