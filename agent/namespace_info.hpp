#pragma once
/// One namespace's PMIx job and node values, as plain data computed from the job spec.
/// pmix_host.cpp turns them into pmix_info_t keys; nothing here knows PMIx types. Per-rank
/// values are not listed: libpmix derives each rank's hostname, local and node rank from the
/// node and proc maps (local and node rank: the rank's index in its node's group).

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol.hpp"
#include "common/result.hpp"

namespace mpilaunch::agent {

struct NamespaceValues {
  std::string job_id;
  std::uint32_t job_size = 0;
  std::uint32_t universe_size = 0;  // every host's slots (MPI_UNIVERSE_SIZE); job size if unknown
  std::uint32_t num_nodes = 0;      // nodes holding ranks of this namespace
  std::string node_list;            // input of PMIx_generate_regex: those nodes
  std::string proc_list;            // input of PMIx_generate_ppn: their ranks, one group per node
  // This node:
  std::uint32_t node_id = 0;
  std::string hostname;
  std::vector<std::uint32_t> local_ranks;
  std::string local_peers;  // "0,1,2"
  /// Per local rank (in `local_ranks` order) the CPUs it is bound to, a kernel CPU list of OS
  /// indexes; empty: unbound. The rank's PMIX_CPUSET and PMIX_LOCALITY_STRING come from it.
  std::vector<std::string> local_cpus;
  /// More ranks here than the node's slots: Open MPI's ranks must yield when idle.
  bool oversubscribed = false;
  /// Ranks of each application context, in rank order (PMIX_APP_SIZE; MPI_APPNUM is the index).
  std::vector<std::uint32_t> app_sizes;
  /// Every rank's node index in the job and rank within its node, given as per-rank PMIx data
  /// (each local rank has its locality there, and libpmix then derives none from the maps).
  std::vector<std::string> node_names;
  std::vector<std::uint32_t> node_of_rank;
  std::vector<std::uint32_t> local_rank_of_rank;
};

/// The application context (MPI_APPNUM) of `rank`, from the contexts' sizes in rank order.
std::uint32_t app_of_rank(const std::vector<std::uint32_t>& app_sizes, std::uint32_t rank);
/// The first rank of application context `app` (PMIX_APPLDR).
std::uint32_t first_rank_of_app(const std::vector<std::uint32_t>& app_sizes, std::uint32_t app);

/// More ranks on `node` than its slots (unknown slots: never).
inline bool oversubscribed(const protocol::NodeRanks& node) {
  return node.slots > 0 && node.ranks.size() > node.slots;
}

/// Validates the spec (dense ranks 0..N-1, each exactly once, node index in range, application
/// contexts covering the ranks exactly) and
/// computes the values for node `node_index`.
Result<NamespaceValues> namespace_values(const protocol::JobSpec& spec, std::uint32_t node_index);

}  // namespace mpilaunch::agent
