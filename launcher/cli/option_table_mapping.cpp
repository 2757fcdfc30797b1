// Mapping, ranking and binding: every spelling mpirun(1) 4.1 has. The launcher implements
// placement by slot or node; the rest is recognised here and refused by unsupported_options().
// Each option's MCA parameter (passes()) reaches the ranks as under mpirun 4.1.4.
#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>

#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {
namespace {

// --map-by POLICY[:MODIFIER,...]: the text is kept, slot/node and :(NO)OVERSUBSCRIBE act here.
Status map_by(Options& o, std::string_view text) {
  o.map_by_text = std::string(text);
  std::string policy(text);
  std::transform(policy.begin(), policy.end(), policy.begin(), ::tolower);
  const auto colon = policy.find(':');
  const std::string base = policy.substr(0, colon);
  o.map_by = base == "node" ? MapBy::Node : MapBy::Slot;
  o.oversubscribe_sources.map_by = true;
  // Objects, ppr and modifiers: checked here, applied with the other placement options
  // (common/placement.hpp); a modifier-less --map-by keeps the :(NO)OVERSUBSCRIBE in effect.
  auto p = parse_placement(PlacementOptions{.map_by = o.map_by_text});
  if (!p) return p.error();
  if (p->oversubscribe) o.oversubscribe_sources.modifier = p->oversubscribe;
  return {};
}

Status store(std::string& field, const Values& v) {
  field = std::string(v[0]);
  return {};
}

}  // namespace

void add_mapping_options(std::vector<OptionSpec>& t) {
  t.push_back({{"-n", "--n", "-np", "--np", "-c"}, 1, [](Options& o, const Values& v) -> Status {
                 // -n 0 runs a rank on every slot, as no -n does (mpirun 4.1.4, measured with
                 // -H, a host file and neither).
                 if (parse_int<long long>(v[0]) == 0) {
                   o.np.reset();
                   return {};
                 }
                 auto n = positive_int("-n", v[0], kMaxRanks);
                 if (!n) return n.error();
                 o.np = n.value();
                 return {};
               }});
  t.push_back(
      passes("rmaps_ppr_n_pernode",
             {{"-N", "--npernode", "-npernode"}, 1, [](Options& o, const Values& v) -> Status {
                auto n = positive_int("-N", v[0], kMaxRanks);
                if (!n) return n.error();
                o.per_node = n.value();
                return {};
              }}));
  t.push_back(passes("rmaps_ppr_pernode",
                     {{"--pernode", "-pernode"}, 0, [](Options& o, const Values&) -> Status {
                        o.per_node = 1;
                        return {};
                      }}));
  t.push_back(
      passes("rmaps_ppr_n_persocket",
             {{"--npersocket", "-npersocket"}, 1, [](Options& o, const Values& v) -> Status {
                auto n = positive_int("--npersocket", v[0], kMaxRanks);
                if (!n) return n.error();
                o.per_socket = n.value();
                return {};
              }}));
  t.push_back(passes("rmaps_base_mapping_policy",
                     {{"--map-by", "-map-by"}, 1, [](Options& o, const Values& v) -> Status {
                        return map_by(o, v[0]);
                      }}));
  t.push_back(passes("rmaps_base_byslot",
                     {{"--byslot", "-byslot"}, 0, [](Options& o, const Values&) -> Status {
                        o.by_options.emplace_back("--byslot");
                        return map_by(o, "slot");
                      }}));
  t.push_back(passes("rmaps_base_bycore",
                     {{"--bycore", "-bycore"}, 0, [](Options& o, const Values&) -> Status {
                        o.by_options.emplace_back("--bycore");
                        return map_by(o, "core");
                      }}));
  t.push_back(passes("rmaps_base_bynode",
                     {{"--bynode", "-bynode"}, 0, [](Options& o, const Values&) -> Status {
                        o.by_options.emplace_back("--bynode");
                        return map_by(o, "node");
                      }}));
  t.push_back(passes("rmaps_base_ranking_policy",
                     {{"--rank-by", "-rank-by"}, 1, [](Options& o, const Values& v) -> Status {
                        return store(o.rank_by, v);
                      }}));
  t.push_back(passes("hwloc_base_binding_policy",
                     {{"--bind-to", "-bind-to"}, 1, [](Options& o, const Values& v) -> Status {
                        return store(o.bind_to, v);
                      }}));
  t.push_back(
      passes("hwloc_base_bind_to_core",
             {{"--bind-to-core", "-bind-to-core"}, 0, [](Options& o, const Values&) -> Status {
                o.bind_to = "core";
                return {};
              }}));
  t.push_back(
      passes("hwloc_base_bind_to_socket",
             {{"--bind-to-socket", "-bind-to-socket"}, 0, [](Options& o, const Values&) -> Status {
                o.bind_to = "socket";
                return {};
              }}));
  t.push_back(passes("orte_rankfile",
                     {{"-rf", "--rankfile", "-rankfile"},
                      1,
                      [](Options& o, const Values& v) -> Status { return store(o.rankfile, v); }}));
  t.push_back({{"--cpu-list", "-cpu-list"}, 1, [](Options& o, const Values& v) -> Status {
                 return store(o.cpu_list, v);
               }});
  t.push_back({{"--cpu-set", "-cpu-set"}, 1, [](Options& o, const Values& v) -> Status {
                 return store(o.cpu_set, v);
               }});
  t.push_back(
      passes("rmaps_base_cpus_per_rank",
             {{"--cpus-per-proc", "-cpus-per-proc", "--cpus-per-rank", "-cpus-per-rank"},
              1,
              [](Options& o, const Values& v) -> Status { return store(o.cpus_per_proc, v); }}));
  t.push_back(
      passes("rmaps_ppr_pattern", {{"--ppr", "-ppr"}, 1, [](Options& o, const Values& v) -> Status {
                                     return store(o.ppr, v);
                                   }}));
  t.push_back(passes("hwloc_base_use_hwthreads_as_cpus",
                     {{"--use-hwthread-cpus", "-use-hwthread-cpus"},
                      0,
                      [](Options& o, const Values&) { return set_flag(o.use_hwthread_cpus); }}));
  t.push_back(passes("rmaps_base_oversubscribe",
                     {{"--oversubscribe", "-oversubscribe"}, 0, [](Options& o, const Values&) {
                        return set_flag(o.oversubscribe_sources.flag);
                      }}));
  t.push_back(passes("rmaps_base_no_oversubscribe",
                     {{"--nooversubscribe", "-nooversubscribe"}, 0, [](Options& o, const Values&) {
                        return set_flag(o.oversubscribe_sources.no_flag);
                      }}));
  t.push_back(passes("rmaps_base_no_schedule_local",
                     {{"--nolocal", "-nolocal"}, 0, [](Options& o, const Values&) {
                        return set_flag(o.nolocal);
                      }}));
  t.push_back({{"--report-bindings", "-report-bindings"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.report_bindings);
               }});
  t.push_back(passes("rmaps_base_display_map",
                     {{"--display-map", "-display-map"}, 0, [](Options& o, const Values&) {
                        return set_flag(o.display_map);
                      }}));
  t.push_back(passes("rmaps_base_display_devel_map",
                     {{"--display-devel-map", "-display-devel-map"},
                      0,
                      [](Options& o, const Values&) { return set_flag(o.display_devel_map); }}));
  t.push_back(passes("rmaps_base_display_diffable_map",
                     {{"--display-diffable-map", "-display-diffable-map"},
                      0,
                      [](Options& o, const Values&) { return set_flag(o.display_diffable_map); }}));
  // mpirun 4.1.4 prints nothing more for it (measured: alone nothing, with --display-map the
  // same table); its ranks get the parameter.
  t.push_back(passes(
      "rmaps_base_display_topo_with_map",
      {{"--display-topo", "-display-topo"}, 0, [](Options&, const Values&) { return Status{}; }}));
  t.push_back(passes("orte_display_alloc",
                     {{"--display-allocation", "-display-allocation"},
                      0,
                      [](Options& o, const Values&) { return set_flag(o.display_allocation); }}));
  // mpirun 4.1.4 prints the same block for the devel form and passes it as its own parameter.
  t.push_back(passes("orte_display_devel_alloc",
                     {{"--display-devel-allocation", "-display-devel-allocation"},
                      0,
                      [](Options& o, const Values&) { return set_flag(o.display_allocation); }}));
}

}  // namespace mpilaunch::launcher
