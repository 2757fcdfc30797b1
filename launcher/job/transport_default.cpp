#include "launcher/job/transport_default.hpp"

#include "common/text_format.hpp"

namespace mpilaunch::launcher {

TransportChoice choose_transport(const std::vector<std::string>& env,
                                 const std::vector<NodeTransportFacts>& nodes) {
  for (const std::string& entry : env)
    for (const char* name : {"OMPI_MCA_pml=", "OMPI_MCA_mtl="})
      if (entry.starts_with(name))
        return {std::nullopt, mpilaunch::format("the user chose: {}", entry)};
  for (const NodeTransportFacts& node : nodes)
    if (!node.facts.empty())
      return {std::nullopt,
              mpilaunch::format("node {} has {}{}", node.node, node.facts.front(),
                                node.facts.size() > 1
                                    ? mpilaunch::format(" and {} more", node.facts.size() - 1)
                                    : std::string())};
  return {"OMPI_MCA_pml=ob1",
          mpilaunch::format(
              "no fabric device and no pml/mtl choice on {}: Open MPI would settle on "
              "ob1 after probing psm, psm2 and ofi",
              nodes.size() == 1 ? std::string("the node")
                                : mpilaunch::format("any of the {} nodes", nodes.size()))};
}

}  // namespace mpilaunch::launcher
