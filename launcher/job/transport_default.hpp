#pragma once
/// Open MPI's transport default. Without fabric hardware Open MPI 4.1 still tries its
/// fabric-only paths in every rank's MPI_Init (pml cm probes the psm/psm2 and ofi mtls, which
/// costs about 200 ms per start on this kind of machine) and then settles on pml ob1 (shared
/// memory and TCP). When no node of the job reported a fabric device or an MCA file choosing
/// a pml/mtl, and the user chose neither, ranks get OMPI_MCA_pml=ob1: the choice Open MPI
/// would make, without the probing. Pure; see docs/transport.md.

#include <optional>
#include <string>
#include <vector>

namespace mpilaunch::launcher {

struct NodeTransportFacts {
  std::string node;
  std::vector<std::string> facts;  // AgentHello::transport_facts
};

struct TransportChoice {
  std::optional<std::string> env;  // "OMPI_MCA_pml=ob1", or nothing: Open MPI chooses
  std::string reason;              // one line: why
};

/// `env`: NAME=value entries the ranks will get (-x, --mca) followed by the launcher's own
/// OMPI_MCA_pml / OMPI_MCA_mtl if set (ranks of local agents inherit them).
TransportChoice choose_transport(const std::vector<std::string>& env,
                                 const std::vector<NodeTransportFacts>& nodes);

}  // namespace mpilaunch::launcher
