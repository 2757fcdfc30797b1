#include <doctest/doctest.h>

#include "agent/namespace_info.hpp"

using namespace mpilaunch;
using namespace mpilaunch::agent;

namespace {
protocol::JobSpec spec(std::vector<protocol::NodeRanks> nodes) {
  protocol::JobSpec s;
  s.job_id = "j";
  s.nspace = "ns";
  s.nodes = std::move(nodes);
  return s;
}
}  // namespace

TEST_CASE("namespace values follow the node map") {
  const auto v = namespace_values(spec({{"n1", {0, 1}}, {"n2", {2, 3}}}), 1);
  REQUIRE(v.has_value());
  CHECK(v->job_size == 4);
  CHECK(v->num_nodes == 2);
  CHECK(v->node_list == "n1,n2");
  CHECK(v->proc_list == "0,1;2,3");
  CHECK(v->hostname == "n2");
  CHECK(v->local_peers == "2,3");
  CHECK(v->ranks[3].local_rank == 1);
  CHECK(v->ranks[3].node_id == 1);
  CHECK(v->ranks[0].hostname == "n1");
}

TEST_CASE("a spec with holes, duplicates or a foreign node index is refused") {
  CHECK(namespace_values(spec({{"n1", {0, 2}}}), 0).error().kind == ErrorKind::MalformedFrame);
  CHECK(namespace_values(spec({{"n1", {0, 0}}}), 0).error().kind == ErrorKind::MalformedFrame);
  CHECK(namespace_values(spec({{"n1", {0}}}), 1).error().kind == ErrorKind::MalformedFrame);
  CHECK(namespace_values(spec({{"n1", {}}}), 0).error().kind == ErrorKind::MalformedFrame);
}
