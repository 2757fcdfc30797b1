#include "launcher/job/launch_plan.hpp"

#include "common/text_format.hpp"

#include <charconv>

#include "launcher/start/srun_command.hpp"

namespace mpilaunch::launcher {

bool is_local_name(const std::string& name, const std::string& hostname) {
  return name == "localhost" || name == "127.0.0.1" || name == "::1" || name == hostname ||
         (!hostname.empty() && name.starts_with(hostname + "."));
}

Result<LaunchPlan> make_plan(const Options& o, const HostList& hosts, const MachineFacts& machine,
                             const EnvLookup& getenv) {
  LaunchPlan plan;
  std::vector<NodeSlots> slots;
  std::vector<HostEntry> entries = hosts.hosts;
  if (entries.empty()) {
    plan.isolated = true;
    plan.hosts_source = "this machine (isolated local mode)";
    entries.push_back(HostEntry{.name = machine.hostname, .slots = std::max(1, machine.cpus)});
  } else {
    plan.hosts_source = hosts.source;
  }
  for (const HostEntry& h : entries) {
    slots.push_back(NodeSlots{h.name, h.slots, h.max_slots});
    plan.universe_size += h.slots;
  }

  bool all_local = true;
  for (const HostEntry& h : entries)
    all_local = all_local && is_local_name(h.name, machine.hostname);
  plan.launcher = o.launcher;
  // Inside a Slurm allocation whose nodes are the hosts, srun starts the agents: it works
  // without ssh keys and Slurm accounts for (and cleans up) everything the job starts.
  const bool slurm_hosts = hosts.source.starts_with("slurm ");
  if (plan.launcher == LauncherKind::Auto)
    plan.launcher = !plan.isolated && slurm_hosts && inside_slurm_allocation(getenv("SLURM_JOB_ID"))
                        ? LauncherKind::Srun
                    : plan.isolated || all_local ? LauncherKind::Local
                                                 : LauncherKind::Ssh;
  if (plan.isolated && plan.launcher == LauncherKind::Ssh)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = "--launcher=ssh needs hosts: give -H or --hostfile"};
  if (plan.launcher == LauncherKind::Srun && !inside_slurm_allocation(getenv("SLURM_JOB_ID")))
    return Error{.kind = ErrorKind::BadOption,
                 .detail =
                     "--launcher=srun needs a Slurm allocation (SLURM_JOB_ID is not set): "
                     "run inside salloc or sbatch, or choose --launcher=ssh|local"};
  if (plan.isolated && plan.launcher == LauncherKind::Srun)
    return Error{.kind = ErrorKind::BadOption,
                 .detail =
                     "--launcher=srun needs the allocation's nodes: SLURM_JOB_NODELIST is "
                     "not set, or give -H or --hostfile"};

  // mpirun honours its MCA parameters from the environment (OMPI_MCA_*) and --mca as well as
  // its own options; the options win.
  PlacementOptions placement_options{.map_by = o.map_by_text,
                                     .rank_by = o.rank_by,
                                     .bind_to = o.bind_to,
                                     .report_bindings = o.report_bindings,
                                     .display_map = o.display_map,
                                     .use_hwthread_cpus = o.use_hwthread_cpus,
                                     .cpus_per_proc = std::nullopt};
  if (!o.cpus_per_proc.empty()) {
    int n = 0;
    const auto [end, ec] =
        std::from_chars(o.cpus_per_proc.data(), o.cpus_per_proc.data() + o.cpus_per_proc.size(), n);
    if (ec != std::errc() || end != o.cpus_per_proc.data() + o.cpus_per_proc.size() || n < 1)
      return Error{.kind = ErrorKind::BadOption,
                   .detail = mpilaunch::format(
                       "--cpus-per-proc {}: give a number of CPUs, 1 or more", o.cpus_per_proc)};
    placement_options.cpus_per_proc = n;
  }
  auto mca = [&](const std::string& key) -> std::optional<std::string> {
    for (auto it = o.mca.rbegin(); it != o.mca.rend(); ++it)
      if (it->first == key) return it->second;
    return getenv("OMPI_MCA_" + key);
  };
  auto truthy = [](const std::optional<std::string>& v) {
    return v && (*v == "1" || *v == "true" || *v == "yes" || *v == "on");
  };
  if (placement_options.map_by.empty())
    placement_options.map_by = mca("rmaps_base_mapping_policy").value_or("");
  if (placement_options.rank_by.empty())
    placement_options.rank_by = mca("rmaps_base_ranking_policy").value_or("");
  if (placement_options.bind_to.empty())
    placement_options.bind_to = mca("hwloc_base_binding_policy").value_or("");
  placement_options.report_bindings =
      placement_options.report_bindings || truthy(mca("hwloc_base_report_bindings"));
  placement_options.display_map =
      placement_options.display_map || truthy(mca("rmaps_base_display_map"));
  placement_options.use_hwthread_cpus =
      placement_options.use_hwthread_cpus || truthy(mca("hwloc_base_use_hwthreads_as_cpus"));
  // Open MPI's mappers: round_robin and ppr are what --map-by selects; seq, rank_file, mindist
  // and resilient are not here yet, and are refused by name rather than ignored.
  if (const auto rmaps = mca("rmaps"); rmaps && !rmaps->empty() && !rmaps->starts_with('^') &&
                                       *rmaps != "round_robin" && *rmaps != "ppr")
    return Error{
        .kind = ErrorKind::BadOption,
        .detail = mpilaunch::format("--mca rmaps {}: mpilaunch does not have this mapper yet; "
                                    "use --map-by (slot, node, an object, ppr:N:OBJ)",
                                    *rmaps)};
  auto placement = parse_placement(placement_options);
  if (!placement) return placement.error();
  plan.placement = placement.value();
  bool oversubscribe = o.oversubscribe || truthy(mca("rmaps_base_oversubscribe"));
  if (plan.placement.oversubscribe) oversubscribe = *plan.placement.oversubscribe;
  plan.placement.oversubscribe = oversubscribe;
  MapRequest request{o.np, o.per_node, plan.placement.by_node ? MapBy::Node : o.map_by,
                     oversubscribe};
  // ppr:N:node is N per node; ppr over a smaller object fills the slots and is checked against
  // each node's objects once its agent has reported them (common/placement.hpp).
  if (plan.placement.ppr > 0 && plan.placement.map_level == HwLevel::Board && !o.per_node)
    request.per_node = plan.placement.ppr;
  auto map = map_job(slots, request);
  if (!map) {
    Error e = map.error();
    if (!o.program.empty()) e.executable = o.program[0];
    return e;
  }
  plan.map = std::move(map).value();
  for (const std::string& name : plan.map.nodes())
    for (const HostEntry& h : entries)
      if (h.name == name) {
        plan.nodes.push_back(h);
        break;
      }
  // Two host entries with the same name are one node; the map never splits them.
  if (static_cast<int>(plan.nodes.size()) != plan.map.node_count())
    return Error{.kind = ErrorKind::HostfileError, .detail = "a host is listed twice"};

  for (const std::string& x : o.exports) {
    const auto eq = x.find('=');
    if (eq != std::string::npos) {
      plan.env.push_back(x);
    } else if (const auto value = getenv(x)) {
      plan.env.push_back(x + "=" + *value);
    } else {
      plan.warnings.push_back(
          mpilaunch::format("-x {}: the variable is not set here, so it is not exported", x));
    }
  }
  for (const auto& [key, value] : o.mca)
    plan.env.push_back(mpilaunch::format("OMPI_MCA_{}={}", key, value));

  plan.argv = o.program;
  plan.wdir =
      o.wdir.empty() ? machine.cwd : (o.wdir[0] == '/' ? o.wdir : machine.cwd + "/" + o.wdir);
  return plan;
}

std::string render_plan(const LaunchPlan& plan, const std::string& agent_command) {
  std::string out;
  out += mpilaunch::format("hosts from: {}\n", plan.hosts_source);
  out += mpilaunch::format("launcher:   {}\n", plan.launcher == LauncherKind::Ssh    ? "ssh"
                                               : plan.launcher == LauncherKind::Srun ? "srun"
                                                                                     : "local");
  out += mpilaunch::format("program:    {}\n", fmt::join(plan.argv, " "));
  out += mpilaunch::format("wdir:       {}\n", plan.wdir);
  out += mpilaunch::format("interface:  {} ({})\n", pmi_label(plan.pmi), plan.pmi.reason);
  out += mpilaunch::format("processes:  {} on {} node{}\n", plan.map.size(), plan.map.node_count(),
                           plan.map.node_count() == 1 ? "" : "s");
  for (int n = 0; n < plan.map.node_count(); ++n) {
    const HostEntry& h = plan.nodes[static_cast<std::size_t>(n)];
    out += mpilaunch::format("  node {} {} (slots {}{}): ranks {}\n", n, h.name, h.slots,
                             h.max_slots ? mpilaunch::format(", max {}", *h.max_slots) : "",
                             fmt::join(plan.map.ranks_on(n), ","));
    std::string command = agent_command;
    // The srun starter's command names its node: shown here with this node's name.
    if (const auto at = command.find("--nodelist=NODE");
        plan.launcher == LauncherKind::Srun && at != std::string::npos)
      command.replace(at, 15, "--nodelist=" + h.name);
    out +=
        mpilaunch::format("    agent: {}{}\n",
                          plan.launcher == LauncherKind::Ssh ? "ssh " + h.name + " " : "", command);
  }
  for (const std::string& e : plan.env) out += mpilaunch::format("  env: {}\n", e);
  for (const std::string& w : plan.warnings) out += mpilaunch::format("warning: {}\n", w);
  return out;
}

}  // namespace mpilaunch::launcher
