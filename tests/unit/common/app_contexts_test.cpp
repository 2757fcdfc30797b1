#include "common/app_contexts.hpp"

#include <doctest/doctest.h>

#include <vector>

using mpilaunch::context_of_rank;

TEST_CASE("context_of_rank: contexts take consecutive ranks in order") {
  const std::vector<int> sizes{1, 3, 2};
  CHECK(context_of_rank(sizes, 0) == 0);
  CHECK(context_of_rank(sizes, 1) == 1);
  CHECK(context_of_rank(sizes, 3) == 1);
  CHECK(context_of_rank(sizes, 4) == 2);
  CHECK(context_of_rank(sizes, 5) == 2);
}

TEST_CASE("context_of_rank: past the end or without contexts is context 0") {
  CHECK(context_of_rank(std::vector<int>{1, 2}, 3) == 0);
  CHECK(context_of_rank(std::vector<int>{}, 0) == 0);
  CHECK(context_of_rank(std::vector<int>{0, 2}, 0) == 1);  // an empty context holds no rank
}

TEST_CASE("context_of_rank: the size may be a member of the context") {
  struct Context {
    int ranks;
  };
  const std::vector<Context> contexts{{2}, {2}};
  CHECK(context_of_rank(contexts, 2, &Context::ranks) == 1);
}
