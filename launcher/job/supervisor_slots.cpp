// Supervisor: slots counted by the agents (a host file line without slots= is the node's
// cores, as mpirun 4.1.4 counts them), and the map made from them (also ppr:N:OBJECT, N per
// object each agent reports).

#include "common/text_format.hpp"

#include "launcher/job/supervisor_link.hpp"

namespace mpilaunch::launcher {

bool Supervisor::map_on_agent_slots() {
  LaunchPlan& plan = config_.plan;
  if (!plan.slots_from_agents) return true;
  // mpirun's slots are cores, or hwthreads with --use-hwthread-cpus; only those the node lets
  // us use (a cgroup's allowed CPUs) are in the agent's report.
  const HwLevel unit = plan.placement.use_hwthreads ? HwLevel::HwThread : HwLevel::Core;
  const HwLevel object = plan.ppr_object.value_or(plan.span_object.value_or(HwLevel::Socket));
  std::vector<int> cores, objects;
  for (const auto& link : links_) {
    cores.push_back(std::max(1, link->topology.count(unit)));
    objects.push_back(std::max(1, link->topology.count(object)));
  }
  if (Status st = map_on_reported_slots(plan, cores, objects); !st) {
    fail(st.error(), JobEvent::AgentFailed);
    return false;
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (std::size_t i = 0; i < cores.size(); ++i)
    hosts.push_back({{"host", links_[i]->host.name},
                     {"cores", cores[i]},
                     {"ranks", static_cast<int>(i) < plan.map.node_count()
                                   ? plan.map.ranks_on(static_cast<int>(i)).size()
                                   : 0}});
  events_.write("slots-counted", {{"np", plan.map.size()}, {"hosts", std::move(hosts)}});
  // The hosts with ranks are the first ones (map_on_reported_slots); the others' agents stay,
  // idle until a spawn places children there, as mpirun's daemons do.
  ranks_.assign(static_cast<std::size_t>(plan.map.size()), RankStatus{});
  status_.nodes.clear();
  for (int n = 0; n < plan.map.node_count(); ++n)
    status_.nodes[plan.map.node_name(n)].pending = static_cast<int>(plan.map.ranks_on(n).size());
  if (config_.stdin_rank >= plan.map.size()) {
    fail(Error{.kind = ErrorKind::BadOption,
               .detail =
                   mpilaunch::format("--stdin {}: the job has {} ranks (0 to {})",
                                     config_.stdin_rank, plan.map.size(), plan.map.size() - 1)},
         JobEvent::AgentFailed);
    return false;
  }
  return true;
}

}  // namespace mpilaunch::launcher
