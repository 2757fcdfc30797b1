#include "agent/namespace_info.hpp"

#include <algorithm>

#include "common/app_contexts.hpp"
#include "common/text_format.hpp"

namespace mpilaunch::agent {

Result<NamespaceValues> namespace_values(const protocol::JobSpec& spec, std::uint32_t node_index) {
  if (node_index >= spec.nodes.size())
    return Error{.kind = ErrorKind::MalformedFrame,
                 .detail = mpilaunch::format("job spec has {} nodes, this agent is node {}",
                                             spec.nodes.size(), node_index)};
  NamespaceValues v;
  v.job_id = spec.job_id;
  std::size_t total = 0;
  for (const auto& node : spec.nodes) total += node.ranks.size();
  if (total == 0 || total > 10'000'000)
    return Error{.kind = ErrorKind::MalformedFrame, .detail = "job spec with no ranks"};
  v.job_size = static_cast<std::uint32_t>(total);
  v.universe_size = spec.universe_size > 0 ? spec.universe_size : v.job_size;
  std::vector<bool> seen(total, false);
  // The maps name only the nodes holding ranks of this namespace: libpmix pairs the node
  // list with the proc list's groups and drops an empty group, so a node without ranks (a
  // spawned job's, registered on every agent) would leave the two lists unequal, and
  // PMIx_server_register_nspace refuses them (PMIX_ERR_BAD_PARAM).
  std::vector<std::string> names, groups, all_names;
  for (const auto& node : spec.nodes) {
    all_names.push_back(node.name);
    if (!node.ranks.empty()) {
      names.push_back(node.name);
      groups.push_back(mpilaunch::format("{}", fmt::join(node.ranks, ",")));
    }
    for (const std::uint32_t rank : node.ranks) {
      if (rank >= total || seen[rank])
        return Error{
            .kind = ErrorKind::MalformedFrame,
            .detail = mpilaunch::format("job spec places rank {} twice or out of range", rank)};
      seen[rank] = true;
    }
  }
  v.num_nodes = static_cast<std::uint32_t>(names.size());
  v.node_list = mpilaunch::format("{}", fmt::join(names, ","));
  v.proc_list = mpilaunch::format("{}", fmt::join(groups, ";"));
  v.node_id = node_index;
  v.hostname = spec.nodes[node_index].name;
  v.local_ranks = spec.nodes[node_index].ranks;
  v.local_peers = mpilaunch::format("{}", fmt::join(v.local_ranks, ","));
  v.local_cpus = spec.nodes[node_index].cpus;
  v.local_cpus.resize(v.local_ranks.size());
  v.oversubscribed = oversubscribed(spec.nodes[node_index]);
  std::size_t in_apps = 0;
  for (const protocol::AppContext& app : spec.apps) {
    if (app.argv.empty() || app.num_procs == 0)
      return Error{.kind = ErrorKind::MalformedFrame,
                   .detail = "job spec with an application context without program or ranks"};
    in_apps += app.num_procs;
    v.app_sizes.push_back(app.num_procs);
  }
  if (in_apps != total)
    return Error{
        .kind = ErrorKind::MalformedFrame,
        .detail = mpilaunch::format("job spec's application contexts have {} ranks, its nodes {}",
                                    in_apps, total)};
  // Every rank's node, local rank and hostname, given per rank (add_app_info), as mpirun
  // 4.1.4's orted registers them for every job: each rank here also has per-rank locality data
  // (a bound rank its PMIX_CPUSET and PMIX_LOCALITY_STRING, an unbound one a locality string
  // without a string; measured), and given any per-rank data libpmix 4.2 derives no rank's
  // local and node rank from the maps. The per-rank node also keeps PMIX_NODEID right where
  // the maps leave a node out (libpmix numbers the maps' nodes from 0).
  v.node_names = all_names;
  v.node_of_rank.assign(total, 0);
  v.local_rank_of_rank.assign(total, 0);
  for (std::size_t n = 0; n < spec.nodes.size(); ++n)
    for (std::size_t i = 0; i < spec.nodes[n].ranks.size(); ++i) {
      v.node_of_rank[spec.nodes[n].ranks[i]] = static_cast<std::uint32_t>(n);
      v.local_rank_of_rank[spec.nodes[n].ranks[i]] = static_cast<std::uint32_t>(i);
    }
  return v;
}

std::uint32_t app_of_rank(const std::vector<std::uint32_t>& app_sizes, std::uint32_t rank) {
  return static_cast<std::uint32_t>(context_of_rank(app_sizes, rank));
}

std::uint32_t first_rank_of_app(const std::vector<std::uint32_t>& app_sizes, std::uint32_t app) {
  std::uint32_t first = 0;
  for (std::uint32_t a = 0; a < app && a < app_sizes.size(); ++a) first += app_sizes[a];
  return first;
}

}  // namespace mpilaunch::agent
