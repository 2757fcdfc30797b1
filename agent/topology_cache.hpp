#pragma once
/// [io] This machine's topology for the PMIx server, from a per-user cache of hwloc XML.
/// Discovery (reading /proc and /sys) is about a third of PMIx_server_init, around 2 ms here,
/// paid by every agent of every job; reading the XML it produced takes a tenth of that. The
/// file is named by everything that would change the discovery (boot, cgroup, online and
/// allowed CPUs and memory, hwloc version: agent/topology_key.hpp), so a different machine
/// state never reuses it. Slurm's slurmd keeps a topology XML for the same reason.
///
/// Where: $MPILAUNCH_TOPOLOGY_CACHE (a directory of ours, or "off"), else
/// /dev/shm/mpilaunch-topology-UID (or $TMPDIR, /tmp), created mode 0700; a directory that is
/// not ours or is open to others is not used. It keeps its newest 16 files.

#include <string>

struct hwloc_topology;

namespace mpilaunch::agent {

/// The cache directory to use, created if needed; empty when caching is off or unsafe.
std::string topology_cache_dir();

/// The topology from the cache, else discovered (without I/O devices) and cached. nullptr when
/// the environment steers hwloc (HWLOC_*), caching is off, or hwloc fails: libpmix then
/// discovers on its own. The caller owns the result (hwloc_topology_destroy).
hwloc_topology* load_cached_topology();

}  // namespace mpilaunch::agent
