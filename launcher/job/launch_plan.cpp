#include "launcher/job/launch_plan.hpp"

#include <fmt/format.h>

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

  auto map = map_job(slots, MapRequest{o.np, o.per_node, o.map_by, o.oversubscribe});
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
          fmt::format("-x {}: the variable is not set here, so it is not exported", x));
    }
  }
  for (const auto& [key, value] : o.mca)
    plan.env.push_back(fmt::format("OMPI_MCA_{}={}", key, value));

  plan.argv = o.program;
  plan.wdir =
      o.wdir.empty() ? machine.cwd : (o.wdir[0] == '/' ? o.wdir : machine.cwd + "/" + o.wdir);
  return plan;
}

std::string render_plan(const LaunchPlan& plan, const std::string& agent_command) {
  std::string out;
  out += fmt::format("hosts from: {}\n", plan.hosts_source);
  out += fmt::format("launcher:   {}\n", plan.launcher == LauncherKind::Ssh    ? "ssh"
                                         : plan.launcher == LauncherKind::Srun ? "srun"
                                                                               : "local");
  out += fmt::format("program:    {}\n", fmt::join(plan.argv, " "));
  out += fmt::format("wdir:       {}\n", plan.wdir);
  out += fmt::format("interface:  {} ({})\n", pmi_label(plan.pmi), plan.pmi.reason);
  out += fmt::format("processes:  {} on {} node{}\n", plan.map.size(), plan.map.node_count(),
                     plan.map.node_count() == 1 ? "" : "s");
  for (int n = 0; n < plan.map.node_count(); ++n) {
    const HostEntry& h = plan.nodes[static_cast<std::size_t>(n)];
    out += fmt::format("  node {} {} (slots {}{}): ranks {}\n", n, h.name, h.slots,
                       h.max_slots ? fmt::format(", max {}", *h.max_slots) : "",
                       fmt::join(plan.map.ranks_on(n), ","));
    std::string command = agent_command;
    // The srun starter's command names its node: shown here with this node's name.
    if (const auto at = command.find("--nodelist=NODE");
        plan.launcher == LauncherKind::Srun && at != std::string::npos)
      command.replace(at, 15, "--nodelist=" + h.name);
    out += fmt::format("    agent: {}{}\n",
                       plan.launcher == LauncherKind::Ssh ? "ssh " + h.name + " " : "", command);
  }
  for (const std::string& e : plan.env) out += fmt::format("  env: {}\n", e);
  for (const std::string& w : plan.warnings) out += fmt::format("warning: {}\n", w);
  return out;
}

}  // namespace mpilaunch::launcher
