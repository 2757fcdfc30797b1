#pragma once
/// One namespace's PMIx job, node and per-rank values, as plain data computed from the job
/// spec. pmix_host.cpp turns them into pmix_info_t keys; nothing here knows PMIx types.

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol.hpp"
#include "common/result.hpp"

namespace mpilaunch::agent {

struct RankValues {
  std::uint32_t rank = 0;
  std::uint16_t local_rank = 0;
  std::uint16_t node_rank = 0;
  std::uint32_t node_id = 0;
  std::string hostname;
};

struct NamespaceValues {
  std::string job_id;
  std::uint32_t job_size = 0;
  std::uint32_t num_nodes = 0;
  std::string node_list;  // input of PMIx_generate_regex
  std::string proc_list;  // input of PMIx_generate_ppn
  // This node:
  std::uint32_t node_id = 0;
  std::string hostname;
  std::vector<std::uint32_t> local_ranks;
  std::string local_peers;        // "0,1,2"
  std::vector<RankValues> ranks;  // every rank of the job, in rank order
};

/// Validates the spec (dense ranks 0..N-1, each exactly once, node index in range) and
/// computes the values for node `node_index`.
Result<NamespaceValues> namespace_values(const protocol::JobSpec& spec, std::uint32_t node_index);

}  // namespace mpilaunch::agent
