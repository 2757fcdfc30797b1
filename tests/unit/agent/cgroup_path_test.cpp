#include <doctest/doctest.h>

#include "agent/cgroup_path.hpp"

using mpilaunch::agent::cgroup2_dir;

namespace {
constexpr const char* kHybrid =
    "25 30 0:22 / /sys/fs/cgroup ro,nosuid shared:9 - tmpfs tmpfs ro,mode=755\n"
    "26 25 0:23 / /sys/fs/cgroup/memory rw,relatime shared:10 - cgroup cgroup rw,memory\n"
    "27 25 0:24 / /sys/fs/cgroup/unified rw,relatime shared:11 - cgroup2 cgroup2 rw\n";
constexpr const char* kUnified =
    "30 1 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate\n";
}  // namespace

TEST_CASE("cgroup2_dir: the v2 cgroup under its mount, hybrid and unified layouts") {
  CHECK(cgroup2_dir(kHybrid, "4:memory:/x\n0::/\n") == "/sys/fs/cgroup/unified");
  CHECK(cgroup2_dir(kHybrid, "0::/job/a\n") == "/sys/fs/cgroup/unified/job/a");
  CHECK(cgroup2_dir(kUnified, "0::/user.slice/user-1000.slice/session-2.scope\n") ==
        "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope");
}

TEST_CASE("cgroup2_dir: a mount of a subtree (a container's) strips its root") {
  const char* mount = "40 1 0:26 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  CHECK(cgroup2_dir(mount, "0::/kubepods/pod1/c1\n") == "/sys/fs/cgroup/c1");
  CHECK(cgroup2_dir(mount, "0::/kubepods/pod1\n") == "/sys/fs/cgroup");
  CHECK(cgroup2_dir(mount, "0::/kubepods/pod10\n") == std::nullopt);
}

TEST_CASE("cgroup2_dir: no v2 hierarchy, no mount of it, or escapes: nothing") {
  CHECK(cgroup2_dir(kHybrid, "4:memory:/x\n") == std::nullopt);
  CHECK(cgroup2_dir("26 25 0:23 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
                    "0::/\n") == std::nullopt);
  CHECK(cgroup2_dir("27 25 0:24 / /a\\040b rw - cgroup2 cgroup2 rw\n", "0::/\n") == std::nullopt);
  CHECK(cgroup2_dir("", "") == std::nullopt);
}
