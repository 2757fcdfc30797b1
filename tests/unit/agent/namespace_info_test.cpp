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
  std::uint32_t ranks = 0;
  for (const auto& node : s.nodes) ranks += static_cast<std::uint32_t>(node.ranks.size());
  s.apps = {{{"./a"}, {}, "", ranks}};
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
  CHECK(v->local_ranks == std::vector<std::uint32_t>{2, 3});
  CHECK(v->node_id == 1);
}

// Ranks dealt round robin: each node's group lists its ranks in order, which is where libpmix
// finds a rank's local and node rank (its index in the group).
TEST_CASE("namespace values of ranks mapped by node") {
  const auto v = namespace_values(spec({{"a", {0, 2, 4}}, {"b", {1, 3}}}), 0);
  REQUIRE(v.has_value());
  CHECK(v->proc_list == "0,2,4;1,3");
  CHECK(v->local_peers == "0,2,4");
  CHECK(v->hostname == "a");
}

// Each local rank's CPUs become its PMIX_CPUSET and PMIX_LOCALITY_STRING (pmix_host.cpp); a
// node given fewer lists than ranks leaves the others unbound.
TEST_CASE("namespace values carry each local rank's CPUs") {
  const auto v =
      namespace_values(spec({{"a", {0, 1}, 2, {"0", "1"}}, {"b", {2, 3}, 2, {"0-1"}}}), 1);
  REQUIRE(v.has_value());
  CHECK(v->local_cpus == std::vector<std::string>{"0-1", ""});
  const auto first = namespace_values(spec({{"a", {0, 1}, 2, {"0", "1"}}, {"b", {2, 3}}}), 0);
  REQUIRE(first.has_value());
  CHECK(first->local_cpus == std::vector<std::string>{"0", "1"});
  // Ranks get per-rank data (their locality, a string without a string when unbound, as under
  // mpirun 4.1.4), and with it every rank's node (libpmix then derives none from the maps).
  CHECK(first->node_of_rank == std::vector<std::uint32_t>{0, 0, 1, 1});
  CHECK(first->local_rank_of_rank == std::vector<std::uint32_t>{0, 1, 0, 1});
  const auto unbound = namespace_values(spec({{"a", {0, 1}}, {"b", {2, 3}, 2, {"0", "1"}}}), 0);
  REQUIRE(unbound.has_value());
  CHECK(unbound->node_of_rank == std::vector<std::uint32_t>{0, 0, 1, 1});
  CHECK(unbound->local_rank_of_rank == std::vector<std::uint32_t>{0, 1, 0, 1});
}

TEST_CASE("a spec with holes, duplicates or a foreign node index is refused") {
  CHECK(namespace_values(spec({{"n1", {0, 2}}}), 0).error().kind == ErrorKind::MalformedFrame);
  CHECK(namespace_values(spec({{"n1", {0, 0}}}), 0).error().kind == ErrorKind::MalformedFrame);
  CHECK(namespace_values(spec({{"n1", {0}}}), 1).error().kind == ErrorKind::MalformedFrame);
  CHECK(namespace_values(spec({{"n1", {}}}), 0).error().kind == ErrorKind::MalformedFrame);
}

TEST_CASE("a node with more ranks than slots is oversubscribed; the universe is every slot") {
  auto s = spec({{"n1", {0, 1, 2}, 2}, {"n2", {3}, 1}, {"n3", {4}, 0}});
  s.universe_size = 6;
  auto v = namespace_values(s, 0);
  REQUIRE(v.has_value());
  CHECK(v->oversubscribed);
  CHECK(v->universe_size == 6);
  CHECK_FALSE(namespace_values(s, 1)->oversubscribed);
  CHECK_FALSE(namespace_values(s, 2)->oversubscribed);  // slots unknown
  s.universe_size = 0;
  CHECK(namespace_values(s, 0)->universe_size == 5);  // unknown: the job size
}

TEST_CASE("application contexts: each rank's context and each context's first rank") {
  auto s = spec({{"n1", {0, 1}}, {"n2", {2, 3, 4}}});
  s.apps = {{{"./a"}, {}, "", 1}, {{"./b", "x"}, {"A=1"}, "/w", 3}, {{"./c"}, {}, "", 1}};
  const auto v = namespace_values(s, 0);
  REQUIRE(v.has_value());
  CHECK(v->app_sizes == std::vector<std::uint32_t>{1, 3, 1});
  CHECK(app_of_rank(v->app_sizes, 0) == 0);
  CHECK(app_of_rank(v->app_sizes, 1) == 1);
  CHECK(app_of_rank(v->app_sizes, 3) == 1);
  CHECK(app_of_rank(v->app_sizes, 4) == 2);
  CHECK(first_rank_of_app(v->app_sizes, 0) == 0);
  CHECK(first_rank_of_app(v->app_sizes, 1) == 1);
  CHECK(first_rank_of_app(v->app_sizes, 2) == 4);
}

TEST_CASE("application contexts that do not cover the ranks exactly are refused") {
  auto s = spec({{"n1", {0, 1}}});
  s.apps = {{{"./a"}, {}, "", 1}};
  CHECK(namespace_values(s, 0).error().kind == ErrorKind::MalformedFrame);
  s.apps = {{{"./a"}, {}, "", 2}, {{"./b"}, {}, "", 1}};
  CHECK(namespace_values(s, 0).error().kind == ErrorKind::MalformedFrame);
  s.apps = {{{}, {}, "", 2}};
  CHECK(namespace_values(s, 0).error().kind == ErrorKind::MalformedFrame);
  s.apps = {};
  CHECK(namespace_values(s, 0).error().kind == ErrorKind::MalformedFrame);
}

// A spawned job is registered on every agent, also where it has no ranks: the maps name only
// the nodes holding its ranks (libpmix refuses a node list longer than the proc list's groups),
// and each rank's node is given by its index in the job, which the maps no longer tell.
TEST_CASE("a namespace without ranks on some nodes: maps of its nodes, each rank's node named") {
  const auto s = spec({{"n1", {}}, {"n2", {0}}, {"n3", {1, 2}}});
  const auto here = namespace_values(s, 2);
  REQUIRE(here.has_value());
  CHECK(here->num_nodes == 2);
  CHECK(here->node_list == "n2,n3");
  CHECK(here->proc_list == "0;1,2");
  CHECK(here->local_peers == "1,2");
  CHECK(here->node_names == std::vector<std::string>{"n1", "n2", "n3"});
  CHECK(here->node_of_rank == std::vector<std::uint32_t>{1, 2, 2});
  CHECK(here->local_rank_of_rank == std::vector<std::uint32_t>{0, 0, 1});
  const auto elsewhere = namespace_values(s, 0);
  REQUIRE(elsewhere.has_value());
  CHECK(elsewhere->node_list == "n2,n3");
  CHECK(elsewhere->local_ranks.empty());
  CHECK(elsewhere->local_peers.empty());
  CHECK(elsewhere->hostname == "n1");
  CHECK(elsewhere->node_id == 0);
  // Every node holding ranks: the maps would say it all, but each rank's locality is per-rank
  // data (as under mpirun 4.1.4), so every rank's node is named too.
  const auto full = namespace_values(spec({{"n1", {0}}, {"n2", {1}}}), 0);
  REQUIRE(full.has_value());
  CHECK(full->node_of_rank == std::vector<std::uint32_t>{0, 1});
}
