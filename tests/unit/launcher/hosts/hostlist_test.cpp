#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launcher/hosts/hostlist.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;
using Names = std::vector<std::string>;

TEST_CASE("Slurm host lists expand in order, keeping zero padding") {
  struct Case {
    const char* text;
    Names expected;
  };
  const Case cases[] = {
      {"n1", {"n1"}},
      {"x,y[1-3],z", {"x", "y1", "y2", "y3", "z"}},
      {"n[01-04,07]", {"n01", "n02", "n03", "n04", "n07"}},
      {"n[08-10]", {"n08", "n09", "n10"}},
      {"n[8-10]", {"n8", "n9", "n10"}},
      {"n[098-100]", {"n098", "n099", "n100"}},
      {"n[5]", {"n5"}},
      {"a[1-2]b[3-4]", {"a1b3", "a1b4", "a2b3", "a2b4"}},
      {"gpu[1-2]-ib", {"gpu1-ib", "gpu2-ib"}},
      {"[1-2]", {"1", "2"}},
      {"rack[1-2]-n[1,3]", {"rack1-n1", "rack1-n3", "rack2-n1", "rack2-n3"}},
      {"a b\tc", {"a", "b", "c"}},
      {" a, b ", {"a", "b"}},
      {"n[1-2],n1", {"n1", "n2", "n1"}},  // repeats are kept; the caller merges them
      {"node.example.org", {"node.example.org"}},
      {"n[000000007]", {"n000000007"}},  // nine digits, the most a number may have
      {"n[999999999]", {"n999999999"}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const auto names = expand_hostlist(c.text, "list");
    REQUIRE_MESSAGE(names.has_value(), names.error().detail);
    CHECK(names.value() == c.expected);
  }
}

TEST_CASE("malformed Slurm host lists are HostfileError naming the origin and the fix") {
  struct Case {
    const char* text;
    const char* detail;
  };
  const Case cases[] = {
      {"", "SLURM_JOB_NODELIST=: the host list is empty"},
      {"a,,b", "an empty item at character 3; remove the extra comma"},
      {",a", "an empty item at character 1"},
      {"a,", "an empty item at character 3"},
      {"n[1-3", "'n[1-3' has a '[' without ']'"},
      {"n1-3]", "a ']' without '[' at character 5"},
      {"n[1-[2]]", "nests brackets"},
      {"n[]", "'[]' has an empty range"},
      {"n[1,,2]", "'[1,,2]' has an empty range"},
      {"n[3-1]", "range 3-1 in '[3-1]' runs backwards; write [1-3]"},
      {"n[a-b]", "'a-b' in '[a-b]' is not a number or range"},
      {"n[1-]", "'1-' in '[1-]' is not a number or range"},
      {"n[-1]", "'-1' in '[-1]' is not a number or range"},
      {"n[1-2-3]", "'1-2-3' in '[1-2-3]' is not a number or range"},
      {"n[1234567890]", "is not a number or range; write [1-3,7] (up to 9 digits)"},
      {"n[0000000001]", "is not a number or range; write [1-3,7] (up to 9 digits)"},
      {"n[+1]", "'+1' in '[+1]' is not a number or range"},
      {"n[1-+2]", "'1-+2' in '[1-+2]' is not a number or range"},
      {"n[0x1]", "'0x1' in '[0x1]' is not a number or range"},
      {"n[1 2]", "'1 2' in '[1 2]' is not a number"},
      {"n/1", "'n/1' contains '/'"},
      {"-n1", "'-n1' starts with '-'"},
      {"n[1-100001]", "'n[1-100001]' expands to more than 100000 hosts in all"},
      {"a[1-1000]b[1-1000]", "expands to more than 100000 hosts"},
      {"a[1-60000],b[1-60000]", "'b[1-60000]' expands to more than 100000 hosts in all"},
      {"n[0-999999999]x[0-999999999]y[0-999999999]", "expands to more than 100000 hosts"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const std::string origin = std::string("SLURM_JOB_NODELIST=") + c.text;
    const auto r = expand_hostlist(c.text, origin);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::HostfileError);
    CHECK(r.error().detail.find(origin + ": ") == 0);
    CHECK_MESSAGE(r.error().detail.find(c.detail) != std::string::npos, r.error().detail);
  }
}

TEST_CASE("host lists: names stay within 255 characters") {
  const std::string prefix(250, 'a');
  CHECK(expand_hostlist(prefix + "[1-99999]", "x").has_value());
  const auto r = expand_hostlist(prefix + "[999999]", "x");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().detail.find("longer than 255") != std::string::npos);
}

TEST_CASE("Slurm per-node counts: N and N(xM)") {
  struct Case {
    const char* text;
    std::vector<int> expected;
  };
  const Case cases[] = {
      {"1", {1}},
      {"2(x3),1", {2, 2, 2, 1}},
      {"4,2(x2)", {4, 2, 2}},
      {"16(x1)", {16}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const auto counts = expand_node_counts(c.text, "SLURM_TASKS_PER_NODE");
    REQUIRE_MESSAGE(counts.has_value(), counts.error().detail);
    CHECK(counts.value() == c.expected);
  }
  for (const char* bad : {"", "0", "x", "2(x0)", "2(3)", "2(x3", "2x3)", "2(x3),", ",1", "-1",
                          "2(x)", "1(x100001)", "1(x60000),1(x60000)"}) {
    INFO(bad);
    const auto r = expand_node_counts(bad, "SLURM_TASKS_PER_NODE=v");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::HostfileError);
    CHECK(r.error().detail.find("SLURM_TASKS_PER_NODE=v: ") == 0);
  }
}
