#pragma once
/// [io] What on this node makes Open MPI's own transport selection matter: high-speed fabric
/// devices and MCA parameter files that choose a pml or mtl. The agent reports these in its
/// hello; the launcher picks a default transport only when no node has any (docs/transport.md).

#include <string>
#include <vector>

namespace mpilaunch::agent {

/// Looks under `root` ("/" normally; MPILAUNCH_FABRIC_ROOT for tests and containers that mount
/// the host's /sys elsewhere) at /sys/class/infiniband/* (InfiniBand, RoCE, Omni-Path, EFA),
/// /sys/class/cxi/* (Slingshot), /dev/hfi1*, /dev/ipath*, and at Open MPI's parameter files
/// (/etc/openmpi/openmpi-mca-params.conf, $HOME/.openmpi/mca-params.conf) for a pml or mtl
/// line. Each finding is one string naming the path (and the parameter).
std::vector<std::string> transport_facts();

}  // namespace mpilaunch::agent
