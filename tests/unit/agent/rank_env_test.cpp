#include <doctest/doctest.h>

#include <algorithm>

#include "agent/rank_env.hpp"

using namespace mpilaunch::agent;

namespace {
bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}
std::size_t count_name(const std::vector<std::string>& env, const std::string& name) {
  return static_cast<std::size_t>(std::count_if(
      env.begin(), env.end(), [&](const std::string& e) { return e.starts_with(name + "="); }));
}
}  // namespace

TEST_CASE("a rank gets the direct-launch switch, its placement and PMIx's contact info") {
  RankEnvInput in;
  in.inherited = {"PATH=/bin", "PMIX_SERVER_URI41=stale", "OMPI_MCA_schizo=orte",
                  "OMPI_COMM_WORLD_RANK=9"};
  in.pmix = {"PMIX_SERVER_URI41=fresh", "PMIX_RANK=1"};
  in.job = {"A=1", "OMPI_MCA_btl=self,tcp"};
  in.placement = {
      .rank = 1, .size = 4, .local_rank = 1, .local_size = 2, .node_rank = 1, .attempt = 2};
  in.vader_dir = "/j/vader";
  in.ompi_tmpdir = "/j/ompi";
  const auto env = build_rank_env(in);
  CHECK(has(env, "PATH=/bin"));
  CHECK(has(env, "PMIX_SERVER_URI41=fresh"));
  CHECK(count_name(env, "PMIX_SERVER_URI41") == 1);
  CHECK(has(env, "OMPI_MCA_schizo=^orte,slurm,flux,jsm,alps"));
  CHECK(has(env, "OMPI_COMM_WORLD_RANK=1"));
  CHECK(has(env, "OMPI_COMM_WORLD_SIZE=4"));
  CHECK(has(env, "OMPI_COMM_WORLD_LOCAL_SIZE=2"));
  CHECK(has(env, "MPILAUNCH_ATTEMPT=2"));
  CHECK(has(env, "OMPI_MCA_btl_vader_backing_directory=/j/vader"));
  CHECK(has(env, "A=1"));
  CHECK(has(env, "OMPI_MCA_btl=self,tcp"));
  CHECK(count_name(env, "OMPI_MCA_btl_tcp_if_include") == 0);
}

TEST_CASE("virtual nodes keep TCP on loopback unless the user chose an interface") {
  RankEnvInput in;
  in.virtual_nodes = true;
  CHECK(has(build_rank_env(in), "OMPI_MCA_btl_tcp_if_include=lo"));
  in.job = {"OMPI_MCA_btl_tcp_if_include=eth0"};
  const auto env = build_rank_env(in);
  CHECK(has(env, "OMPI_MCA_btl_tcp_if_include=eth0"));
  CHECK(count_name(env, "OMPI_MCA_btl_tcp_if_include") == 1);
}

TEST_CASE("a job whose every rank is on this node keeps TCP on loopback unless the user chose") {
  RankEnvInput in;
  in.whole_job_here = true;
  CHECK(has(build_rank_env(in), "OMPI_MCA_btl_tcp_if_include=lo"));
  in.inherited = {"OMPI_MCA_btl_tcp_if_include=eth1"};
  auto env = build_rank_env(in);
  CHECK(has(env, "OMPI_MCA_btl_tcp_if_include=eth1"));
  CHECK(count_name(env, "OMPI_MCA_btl_tcp_if_include") == 1);
  // An exclusion is a choice too (with -x/--mca or inherited; on virtual nodes as well): Open
  // MPI refuses an include and an exclude list together.
  in.inherited = {};
  in.job = {"OMPI_MCA_btl_tcp_if_exclude=docker0"};
  CHECK(count_name(build_rank_env(in), "OMPI_MCA_btl_tcp_if_include") == 0);
  in.job = {};
  in.inherited = {"OMPI_MCA_btl_tcp_if_exclude=docker0"};
  in.whole_job_here = false;
  in.virtual_nodes = true;
  CHECK(count_name(build_rank_env(in), "OMPI_MCA_btl_tcp_if_include") == 0);
}

TEST_CASE("stale launcher variables are never inherited") {
  CHECK(is_stripped_variable("PMIX_NAMESPACE"));
  CHECK(is_stripped_variable("PMI_FD"));
  CHECK(is_stripped_variable("OMPI_MCA_pmix_base_verbose"));
  CHECK_FALSE(is_stripped_variable("OMPI_MCA_btl"));
  CHECK_FALSE(is_stripped_variable("HOME"));
}

TEST_CASE("a PMI rank gets its socket, rank, size and local placement; stale PMI_* never leak") {
  RankEnvInput in;
  in.inherited = {"PMI_FD=3", "PMI_RANK=7", "PMI_PORT=host:1"};
  in.placement = {.rank = 5, .size = 8, .local_rank = 1, .local_size = 4};
  CHECK(count_name(build_rank_env(in), "PMI_FD") == 0);
  CHECK(count_name(build_rank_env(in), "PMI_PORT") == 0);
  in.pmi_fd = 9;
  const auto env = build_rank_env(in);
  CHECK(has(env, "PMI_FD=9"));
  CHECK(has(env, "PMI_RANK=5"));
  CHECK(has(env, "PMI_SIZE=8"));
  CHECK(has(env, "MPI_LOCALNRANKS=4"));
  CHECK(has(env, "MPI_LOCALRANKID=1"));
  CHECK(count_name(env, "PMI_PORT") == 0);
}

TEST_CASE("the default PMIx store: hash, shared memory once local ranks x job size is large") {
  CHECK(default_gds(1, 1, true) == "hash");
  CHECK(default_gds(16, 16, true) == "hash");
  CHECK(default_gds(8, 64, true) == "hash");        // 512
  CHECK(default_gds(16, 64, true) == "ds21,hash");  // 1024: the threshold itself
  CHECK(default_gds(8, 128, true) == "ds21,hash");  // 128 ranks on 16 nodes
  CHECK(default_gds(8, 127, true) == "hash");
  CHECK(default_gds(kSharedStoreWork - 1, 1, true) == "hash");
  CHECK(default_gds(2, 1024, true) == "ds21,hash");
  CHECK(gds_with_hash(default_gds(64, 64, true)) == std::nullopt);  // both keep hash
  CHECK(gds_with_hash(default_gds(1, 1, true)) == std::nullopt);
}

TEST_CASE("the default PMIx store is hash when libpmix has no ds21 (PMIx 5)") {
  CHECK(default_gds(16, 64, false) == "hash");
  CHECK(default_gds(2, 1024, false) == "hash");
  CHECK(offers_shared_store("OpenPMIx 4.2.2, repo rev: v4.2.2, Oct 05, 2022"));
  CHECK(offers_shared_store("OpenPMIx 3.2.3"));
  CHECK_FALSE(offers_shared_store("OpenPMIx 5.0.7, repo rev: v5.0.7, Feb 28, 2025"));
  CHECK_FALSE(offers_shared_store("OpenPMIx 6.0.0a1"));
  CHECK(offers_shared_store(""));
}

// One 24-byte entry per rank plus the job's, after an 8-byte count, in whole 4 KiB pages; never
// more than libpmix's own default.
TEST_CASE("the shared-memory store's meta segment holds the whole job's index") {
  CHECK(shared_store_meta_bytes(1) == 4096);
  CHECK(shared_store_meta_bytes(169) == 4096);  // 8 + 24 x 170 = 4088
  CHECK(shared_store_meta_bytes(170) == 8192);  // 4112
  CHECK(shared_store_meta_bytes(256) == 8192);
  CHECK(shared_store_meta_bytes(100'000) == 2'400'256);  // 8 + 24 x 100001, in pages
  CHECK(shared_store_meta_bytes(174'762) == kSharedStoreMetaDefault);
  CHECK(shared_store_meta_bytes(10'000'000) == kSharedStoreMetaDefault);
}

TEST_CASE("PMIX_MCA_gds keeps the hash store libpmix needs for its own keys") {
  CHECK(gds_with_hash("ds21") == std::optional<std::string>("ds21,hash"));
  CHECK(gds_with_hash("ds21,ds12") == std::optional<std::string>("ds21,ds12,hash"));
  CHECK(gds_with_hash("hash") == std::nullopt);
  CHECK(gds_with_hash("ds21,hash") == std::nullopt);
  CHECK(gds_with_hash("^ds21") == std::nullopt);  // an exclusion leaves hash available
  CHECK(gds_with_hash("^hash") == std::optional<std::string>("hash"));
  CHECK(gds_with_hash("^ds12,hash") == std::optional<std::string>("^ds12"));
  CHECK(gds_with_hash("") == std::optional<std::string>("hash"));
  CHECK(gds_with_hash("ds21,") == std::optional<std::string>("ds21,hash"));
}

TEST_CASE("PMIX_MCA_gds without the shared-memory stores a PMIx 5 libpmix does not have") {
  CHECK(gds_without_shared_store("ds21,hash") == std::optional<std::string>("hash"));
  CHECK(gds_without_shared_store("ds21") == std::optional<std::string>(""));
  CHECK(gds_with_hash("") == std::optional<std::string>("hash"));  // what the agent then uses
  CHECK(gds_without_shared_store("ds12,ds21,shmem2") == std::optional<std::string>("shmem2"));
  CHECK(gds_without_shared_store("hash") == std::nullopt);
  CHECK(gds_without_shared_store("shmem2,hash") == std::nullopt);
  CHECK(gds_without_shared_store("^ds21") == std::nullopt);
  CHECK(gds_without_shared_store("") == std::nullopt);
}

TEST_CASE("rank env: ranks get the agent's topology XML unless they steer hwloc or GPU lists") {
  RankEnvInput in;
  in.inherited = {"PATH=/usr/bin"};
  in.topology_xml = "/dev/shm/mpilaunch-topology-0/topology-0123456789abcdef.xml";
  auto has = [](const std::vector<std::string>& env, const std::string& entry) {
    return std::find(env.begin(), env.end(), entry) != env.end();
  };
  const auto env = build_rank_env(in);
  CHECK(has(env, "HWLOC_XMLFILE=" + in.topology_xml));
  CHECK(has(env, "HWLOC_THISSYSTEM=1"));

  // Any HWLOC_* steers discovery, inherited or given with -x.
  for (const char* steer : {"HWLOC_COMPONENTS=-pci", "HWLOC_XMLFILE=/elsewhere.xml"}) {
    CAPTURE(steer);
    RankEnvInput inherited = in;
    inherited.inherited.push_back(steer);
    const auto a = build_rank_env(inherited);
    CHECK_FALSE(has(a, "HWLOC_THISSYSTEM=1"));
    CHECK_FALSE(has(a, "HWLOC_XMLFILE=" + in.topology_xml));
    RankEnvInput by_x = in;
    by_x.job.push_back(steer);
    CHECK_FALSE(has(build_rank_env(by_x), "HWLOC_THISSYSTEM=1"));
  }
  // A GPU list the agent had too (it discovered under it) keeps the XML; another one, or one
  // the agent did not have, does not.
  for (const char* gpu : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                          "GPU_DEVICE_ORDINAL", "ZE_AFFINITY_MASK"}) {
    CAPTURE(gpu);
    RankEnvInput same = in;
    same.inherited.push_back(std::string(gpu) + "=0,1");
    CHECK(has(build_rank_env(same), "HWLOC_THISSYSTEM=1"));
    RankEnvInput other = same;
    other.job.push_back(std::string(gpu) + "=1");
    CHECK_FALSE(has(build_rank_env(other), "HWLOC_THISSYSTEM=1"));
    RankEnvInput added = in;
    added.job.push_back(std::string(gpu) + "=0");
    CHECK_FALSE(has(build_rank_env(added), "HWLOC_THISSYSTEM=1"));
  }
  CHECK_FALSE(
      topology_steered({"PATH=/bin", "CUDA_VISIBLE_DEVICESX=1", "MY_HWLOC_X=1"}, {"PATH=/bin"}));

  RankEnvInput none = in;  // no cache (off, or the agent itself was steered)
  none.topology_xml.clear();
  CHECK_FALSE(has(build_rank_env(none), "HWLOC_THISSYSTEM=1"));
}

// mpirun 4.1.4 gives every rank OMPI_MCA_mpi_oversubscribe: 1 on a node with more ranks than
// slots (Open MPI then yields when idle), 0 otherwise; OMPI_UNIVERSE_SIZE is the slots.
TEST_CASE("ranks learn whether their node is oversubscribed, and the universe's slots") {
  RankEnvInput in;
  in.placement = {.rank = 2, .size = 3, .universe_size = 2, .oversubscribed = true};
  auto env = build_rank_env(in);
  CHECK(has(env, "OMPI_MCA_mpi_oversubscribe=1"));
  CHECK(has(env, "OMPI_UNIVERSE_SIZE=2"));
  in.placement = {.rank = 0, .size = 2, .universe_size = 17, .oversubscribed = false};
  env = build_rank_env(in);
  CHECK(has(env, "OMPI_MCA_mpi_oversubscribe=0"));
  CHECK(has(env, "OMPI_UNIVERSE_SIZE=17"));
  in.placement = {.rank = 0, .size = 3};  // universe unknown: the job size
  CHECK(has(build_rank_env(in), "OMPI_UNIVERSE_SIZE=3"));
  // The user's --mca/-x choice wins, once.
  in.placement.oversubscribed = true;
  in.job = {"OMPI_MCA_mpi_oversubscribe=0"};
  env = build_rank_env(in);
  CHECK(has(env, "OMPI_MCA_mpi_oversubscribe=0"));
  CHECK(count_name(env, "OMPI_MCA_mpi_oversubscribe") == 1);
}

// mpirun 4.1.4 describes the application contexts to every rank: sizes and first ranks, here
// of the one context.
TEST_CASE("ranks see their application context as mpirun describes it") {
  RankEnvInput in;
  in.placement = {.rank = 1, .size = 3};
  const auto env = build_rank_env(in);
  CHECK(has(env, "OMPI_APP_CTX_NUM_PROCS=3"));
  CHECK(has(env, "OMPI_FIRST_RANKS=0"));
}

TEST_CASE("--prefix puts DIR/bin and DIR/lib in front of PATH and LD_LIBRARY_PATH as mpirun") {
  struct Row {
    std::vector<std::string> inherited, job;
    std::string path, ld;  // "" : unset
  };
  // mpirun 4.1.4, measured: twice in front of the launcher's value, once in front of a -x value.
  const Row rows[] = {
      {{"PATH=/usr/bin:/bin"}, {}, "/o/bin:/o/bin:/usr/bin:/bin", "/o/lib:/o/lib"},
      {{"PATH=/bin", "LD_LIBRARY_PATH=/x/lib"}, {}, "/o/bin:/o/bin:/bin", "/o/lib:/o/lib:/x/lib"},
      {{"PATH=/bin", "LD_LIBRARY_PATH="}, {}, "/o/bin:/o/bin:/bin", "/o/lib:/o/lib:"},
      {{"PATH=/bin", "LD_LIBRARY_PATH=/x"},
       {"LD_LIBRARY_PATH=/y"},
       "/o/bin:/o/bin:/bin",
       "/o/lib:/y"},
      {{"PATH=/bin"}, {"PATH=/usr/bin:/bin"}, "/o/bin:/usr/bin:/bin", "/o/lib:/o/lib"},
      {{"PATH=/bin"}, {"LD_LIBRARY_PATH="}, "/o/bin:/o/bin:/bin", "/o/lib:"},
      {{}, {}, "/o/bin:/o/bin", "/o/lib:/o/lib"},
  };
  for (const Row& row : rows) {
    RankEnvInput in;
    in.inherited = row.inherited;
    in.job = row.job;
    in.prefix = "/o";
    const auto env = build_rank_env(in);
    CAPTURE(row.path);
    CHECK(has(env, "PATH=" + row.path));
    CHECK(has(env, "LD_LIBRARY_PATH=" + row.ld));
    CHECK(count_name(env, "PATH") == 1);
    CHECK(count_name(env, "LD_LIBRARY_PATH") == 1);
  }
  RankEnvInput none;
  none.inherited = {"PATH=/bin"};
  const auto env = build_rank_env(none);
  CHECK(has(env, "PATH=/bin"));
  CHECK(count_name(env, "LD_LIBRARY_PATH") == 0);
}

// mpirun 4.1.4 (measured): every rank's PWD is its context's directory (--wdir, else mpirun's),
// whatever PWD the launcher had; a -x PWD=... wins.
TEST_CASE("a rank's PWD is the directory it starts in") {
  RankEnvInput in;
  in.inherited = {"PWD=/home/launcher"};
  in.placement = {.rank = 0, .size = 1, .local_rank = 0, .local_size = 1, .node_rank = 0};
  CHECK(has(build_rank_env(in), "PWD=/home/launcher"));
  in.app.wdir = "/w/sub";
  auto env = build_rank_env(in);
  CHECK(has(env, "PWD=/w/sub"));
  CHECK(count_name(env, "PWD") == 1);
  in.job = {"PWD=/mine"};
  CHECK(has(build_rank_env(in), "PWD=/mine"));
}
