#include "agent/topology_key.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

using namespace mpilaunch::agent;

TEST_CASE("topology cache: every fact that changes discovery names another file") {
  const TopologyFacts base{.boot_id = "6f1c0d2e-aaaa-bbbb-cccc-0123456789ab\n",
                           .cgroup = "0::/user.slice\n",
                           .cpus_online = "0-1\n",
                           .cpus_allowed = "0-1",
                           .mems_allowed = "0",
                           .hwloc = "20900"};
  const std::string name = topology_cache_file(base);
  CHECK(name.starts_with("topology-"));
  CHECK(name.ends_with(".xml"));
  CHECK(name.size() == std::string("topology-0123456789abcdef.xml").size());
  CHECK(topology_cache_file(base) == name);  // stable

  std::set<std::string> names{name};
  auto changed = [&](auto edit) {
    TopologyFacts f = base;
    edit(f);
    names.insert(topology_cache_file(f));
  };
  changed([](TopologyFacts& f) { f.boot_id = "6f1c0d2e-aaaa-bbbb-cccc-0123456789ac\n"; });
  changed([](TopologyFacts& f) { f.cgroup = "0::/slurm/job_7\n"; });
  changed([](TopologyFacts& f) { f.cpus_online = "0\n"; });
  changed([](TopologyFacts& f) { f.cpus_allowed = "1"; });
  changed([](TopologyFacts& f) { f.mems_allowed = "0-1"; });
  changed([](TopologyFacts& f) { f.hwloc = "20a00"; });
  changed([](TopologyFacts& f) { f.gpus = gpu_visibility({"CUDA_VISIBLE_DEVICES=1"}); });
  changed([](TopologyFacts& f) {
    f.plugins = hwloc_plugin_choice({"HWLOC_PLUGINS_BLACKLIST=hwloc_opencl"});
  });
  // The same text moved from one fact to its neighbour is another state too.
  changed([](TopologyFacts& f) {
    f.cpus_allowed = "0-10";
    f.mems_allowed = "";
  });
  CHECK(names.size() == 10);
}

TEST_CASE("topology cache: the GPU visibility lists, absent ones included, last value wins") {
  const std::string none = gpu_visibility({"PATH=/bin"});
  CHECK(none.find("CUDA_VISIBLE_DEVICES unset\n") != std::string::npos);
  CHECK(none.find("ZE_AFFINITY_MASK unset\n") != std::string::npos);
  CHECK(gpu_visibility({"CUDA_VISIBLE_DEVICES_X=1"}) == none);
  CHECK(gpu_visibility({"CUDA_VISIBLE_DEVICES="}) != none);  // set but empty: no GPU at all
  const std::string one = gpu_visibility({"CUDA_VISIBLE_DEVICES=0", "CUDA_VISIBLE_DEVICES=1"});
  CHECK(one.find("CUDA_VISIBLE_DEVICES=1\n") != std::string::npos);
  CHECK(one == gpu_visibility({"CUDA_VISIBLE_DEVICES=1"}));
  CHECK(gpu_visibility({"HIP_VISIBLE_DEVICES=0"}) != gpu_visibility({"ROCR_VISIBLE_DEVICES=0"}));
  CHECK(hwloc_plugin_choice({"PATH=/bin"}) == "HWLOC_PLUGINS_BLACKLIST unset\n");
  CHECK(hwloc_plugin_choice({"HWLOC_PLUGINS_BLACKLIST=hwloc_gl"}) ==
        "HWLOC_PLUGINS_BLACKLIST=hwloc_gl\n");
}

TEST_CASE("topology cache: a user's HWLOC_* setting turns the cache off, the agent's own not") {
  CHECK_FALSE(hwloc_customised({"PATH=/usr/bin", "HOME=/root"}));
  CHECK_FALSE(hwloc_customised({"HWLOC_PLUGINS_BLACKLIST=hwloc_gl"}));
  CHECK(hwloc_customised({"PATH=/usr/bin", "HWLOC_XMLFILE=/tmp/t.xml"}));
  CHECK(hwloc_customised({"HWLOC_COMPONENTS=-linuxio"}));
  CHECK_FALSE(hwloc_customised({"MY_HWLOC_COMPONENTS=x"}));
}

TEST_CASE("topology cache: fields of /proc/self/status") {
  const std::string status =
      "Name:\tmpilaunch-agent\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"
      "Mems_allowed:\t00000000,00000001\nMems_allowed_list:\t0\n";
  CHECK(status_field(status, "Cpus_allowed_list") == "0-1");
  CHECK(status_field(status, "Cpus_allowed") == "3");
  CHECK(status_field(status, "Mems_allowed_list") == "0");
  CHECK(status_field(status, "Nope") == "");
}

TEST_CASE("topology cache: the cgroup's cpuset files, v1 controller or unified hierarchy") {
  const std::string hybrid =
      "9:name=systemd:/\n4:memory:/x\n3:cpuset,cpuacct:/slurm/uid_0/job_7/step_0\n0::/\n";
  CHECK(cpuset_files(hybrid) ==
        std::vector<std::string>{
            "/sys/fs/cgroup/cpuset/slurm/uid_0/job_7/step_0/cpuset.effective_cpus",
            "/sys/fs/cgroup/cpuset/slurm/uid_0/job_7/step_0/cpuset.effective_mems"});
  CHECK(cpuset_files("0::/system.slice/slurmstepd.scope/job_9\n") ==
        std::vector<std::string>{
            "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_9/cpuset.cpus.effective",
            "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_9/cpuset.mems.effective"});
  CHECK(cpuset_files("0::/\n") ==
        std::vector<std::string>{"/sys/fs/cgroup//cpuset.cpus.effective",
                                 "/sys/fs/cgroup//cpuset.mems.effective"});
  CHECK(cpuset_files("").empty());
  CHECK(cpuset_files("garbage\n").empty());
}
