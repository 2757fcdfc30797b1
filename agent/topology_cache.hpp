#pragma once
/// [io] This machine's topology as hwloc XML, in a per-user cache, for the PMIx server and
/// for the ranks. Discovery (reading /proc and /sys) is about a third of PMIx_server_init,
/// around 2 ms here, paid by every agent of every job; reading the XML takes a tenth of that.
/// Every Open MPI and MPICH rank discovers too, PCI devices included, in MPI_Init (tens of ms
/// a rank here): given the XML (agent/rank_env.hpp) it reads it instead. The XML is complete
/// (every object type kept, I/O devices, disallowed CPUs): each reader's own type filters and
/// allowed set apply on import, so it sees what its own discovery would have found. The file
/// is named by everything that would change the discovery (boot, cgroup, online and allowed
/// CPUs and memory, hwloc version, GPU visibility lists, hwloc plugin list:
/// agent/topology_key.hpp), so a different machine state never reuses it. Slurm's slurmd
/// keeps a topology XML for the same reason.
///
/// Where: $MPILAUNCH_TOPOLOGY_CACHE (a directory of ours, or "off"), else
/// /dev/shm/mpilaunch-topology-UID (or $TMPDIR, /tmp), created mode 0700; a directory that is
/// not ours or is open to others is not used. It keeps its newest 16 files.

#include <string>

struct hwloc_topology;

namespace mpilaunch::agent {

/// The cache directory to use, created if needed; empty when caching is off or unsafe.
std::string topology_cache_dir();

/// The complete XML of this machine's topology, discovered and stored when missing (once per
/// machine state); empty when the environment steers hwloc (HWLOC_*), caching is off, or
/// hwloc fails.
std::string topology_file();

/// The topology in `xml` (from topology_file()) with hwloc's default filters (no I/O
/// devices), marked as this system; nullptr when `xml` is empty or unreadable: libpmix then
/// discovers on its own. The caller owns the result (hwloc_topology_destroy).
hwloc_topology* load_topology(const std::string& xml);

}  // namespace mpilaunch::agent
