#include <doctest/doctest.h>

#include "launcher/job/transport_default.hpp"

using namespace mpilaunch::launcher;

TEST_CASE("transport: ob1 when no node has a fabric and nobody chose a pml or mtl") {
  const TransportChoice c =
      choose_transport({"OMPI_MCA_btl_tcp_if_include=lo", "E2E=1"}, {{"n1", {}}, {"n2", {}}});
  REQUIRE(c.env.has_value());
  CHECK(*c.env == "OMPI_MCA_pml=ob1");
  CHECK(c.reason.find("2 nodes") != std::string::npos);
}

TEST_CASE("transport: one node with a fabric device leaves the choice to Open MPI") {
  const TransportChoice c = choose_transport(
      {}, {{"n1", {}}, {"n2", {"/sys/class/infiniband/mlx5_0", "/sys/class/infiniband/mlx5_1"}}});
  CHECK_FALSE(c.env.has_value());
  CHECK(c.reason.find("n2") != std::string::npos);
  CHECK(c.reason.find("mlx5_0") != std::string::npos);
  CHECK(c.reason.find("1 more") != std::string::npos);
}

TEST_CASE("transport: the user's pml or mtl, from -x, --mca or the environment, wins") {
  for (const char* entry : {"OMPI_MCA_pml=ucx", "OMPI_MCA_mtl=psm2", "OMPI_MCA_pml=^ucx"}) {
    CAPTURE(entry);
    const TransportChoice c = choose_transport({"A=1", entry}, {{"n1", {}}});
    CHECK_FALSE(c.env.has_value());
    CHECK(c.reason.find(entry) != std::string::npos);
  }
  // Names that merely start alike are not a choice.
  CHECK(choose_transport({"OMPI_MCA_pml_ob1_priority=5"}, {{"n1", {}}}).env.has_value());
}
