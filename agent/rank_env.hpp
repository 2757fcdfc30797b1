#pragma once
/// Each rank's environment: the agent's own, minus stale launcher variables, plus what PMIx's
/// setup_fork gives, plus what Open MPI needs for a direct launch, plus the user's -x/--mca.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch::agent {

struct RankPlacement {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  int node_rank = 0;
  int attempt = 1;
  int universe_size = 0;        // every host's slots; 0: the job size
  bool oversubscribed = false;  // more ranks on this node than its slots
};

/// The rank's application context (mpirun's MPMD `a : b`, an appfile's lines) and the job's.
struct RankApp {
  int appnum = 0;                        // index of the rank's context (MPI_APPNUM)
  std::vector<std::uint32_t> app_sizes;  // ranks of every context, in rank order
  std::vector<std::string> argv;         // the context's program and arguments
  /// The directory the rank starts in (its context's --wdir, else the launcher's): its PWD, as
  /// mpirun 4.1.4 sets it for every context. Empty: PWD as inherited.
  std::string wdir;
};

struct RankEnvInput {
  std::vector<std::string> inherited;  // the agent's environ
  std::vector<std::string> pmix;       // from PMIx_server_setup_fork
  std::vector<std::string> job;        // JobSpec.env, then the context's -x: applied last
  RankPlacement placement;
  RankApp app;
  std::string vader_dir;        // private shared-memory backing directory of this node
  std::string ompi_tmpdir;      // Open MPI's session directory base
  bool virtual_nodes = false;   // several nodes on one machine: keep TCP on loopback
  bool whole_job_here = false;  // every rank of the job on this node: TCP on loopback too
  int pmi_fd = -1;              // the rank's PMI socket (MPICH): PMI_FD, PMI_RANK, PMI_SIZE
  std::string topology_xml;     // this machine's topology, complete (agent/topology_cache.hpp)
  bool bound = false;           // the agent binds the rank to CPUs before exec
  /// --prefix DIR (absolute, no trailing '/'; empty: none): DIR/bin and DIR/lib go in front of
  /// PATH and LD_LIBRARY_PATH as mpirun 4.1.4 puts them: twice in front of the agent's value
  /// (orterun and its daemon each add them; with the value unset, just the two), once in front
  /// of a value `job` sets (-x).
  std::string prefix;
};

/// The final environment as NAME=value strings, each name once (later sources win).
std::vector<std::string> build_rank_env(const RankEnvInput& in);

/// True when a rank's environment steers hwloc's discovery (any HWLOC_*) or what it sees (GPU
/// visibility lists other than the agent's own, under which the agent discovered): such a
/// rank discovers for itself instead of reading the agent's XML.
bool topology_steered(const std::vector<std::string>& rank_env,
                      const std::vector<std::string>& agent_env);

/// True for variables a rank must not inherit from the agent's own environment: stale PMIx
/// and PMI contact info, launcher detection switches, other launchers' rank variables.
bool is_stripped_variable(const std::string& name);

/// PMIX_MCA_gds as the agent's PMIx server and its ranks can use it: libpmix stores its own
/// keys in the hash store, so a selection without it ("ds21") makes the server fail inside
/// ("FATAL in dstore_base.c") and its clients hang in PMIx_Init. Returns the value to use
/// instead ("ds21,hash"; an exclusion of hash is dropped), or nothing when `value` is fine.
std::optional<std::string> gds_with_hash(std::string_view value);

/// PMIX_MCA_gds for a libpmix without the shared-memory stores (PMIx 5 has hash and shmem2,
/// no ds21 or ds12: each one named makes libpmix print "component not found"): `value` without
/// ds21/ds12 in a selection ("ds21,hash" gives "hash", "ds21" gives ""), or nothing when it
/// names neither. An exclusion ("^ds21") is fine as it is.
std::optional<std::string> gds_without_shared_store(std::string_view value);

/// The PMIx store for a node's server when the user chose none. The hash store sends every
/// client the whole job's data, which each client unpacks: work that grows with local ranks
/// times job size. The shared-memory store (ds21) lets clients read the job data in place
/// but costs each server a fixed start-up (segments to create, zero and map: a 4 MiB data
/// segment, and a meta segment sized to the job), so it pays only for big nodes of big jobs:
/// 256 ranks on 8 nodes ran 28 % faster with it, 128 on 16 nodes 4 % and 32 on one node 6 %
/// faster once the meta segment was sized to the job (it was 4 MiB), 64 on 4 nodes and 64 on
/// 8 no faster, 16 on one node slower (docs/benchmarks.md, case 8). Always hash when the
/// installed libpmix has no ds21 (`shared_store`: offers_shared_store()).
std::string_view default_gds(std::size_t local_ranks, std::size_t job_size, bool shared_store);

/// Whether the libpmix of this version string (PMIx_Get_version(): "OpenPMIx 4.2.2, ...") has
/// the ds21 shared-memory store: PMIx 5 removed ds12 and ds21 (it has hash and shmem2).
bool offers_shared_store(std::string_view pmix_version);
inline constexpr std::size_t kSharedStoreWork = 1024;  // local ranks x job size, from case 8

/// NS_META_SEG_SIZE for a job of `job_size` ranks when the user set none. The shared-memory
/// store keeps a 24-byte index entry per rank (and one for the job) in meta segments of this
/// size, which each server creates, zeroes and maps per namespace: libpmix's default of 4 MiB
/// (room for 174 762 ranks) cost every ds21 server about 2 ms of page faults at 256 ranks.
/// This is the whole job's index rounded up to whole pages; libpmix chains further segments
/// when a namespace needs more, and server and clients must see the same value (they compute
/// entry offsets from it), so the agent sets it before its server starts and its ranks inherit
/// it.
std::size_t shared_store_meta_bytes(std::size_t job_size);
inline constexpr std::size_t kSharedStoreMetaDefault = std::size_t{4} << 20;  // libpmix's

}  // namespace mpilaunch::agent
