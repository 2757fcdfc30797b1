// Open MPI's own error text reaching the user, --dry-run running nothing, -V and --help.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {

using namespace std::chrono_literals;

// Open MPI 5 sends a failed MPI_Init's help text to its PMIx server and then ends the rank,
// and at times the text never arrives: prterun 5.0.7 itself printed it in 3 of 6 bare runs in
// the Debian 13 chroot (mpilaunch in 7 of 8), each rank saying "not able to aggregate error
// messages". Such a run is repeated there, a dozen times at most, and must be mpi-init-failed;
// Open MPI 4.1 prints the text from the rank itself, every time.
TEST_CASE("misc: Open MPI's error text for --mca btl nosuch reaches stderr") {
  for (int run = 1;; ++run) {
    Job job;
    const Outcome o = job.launch({"--mca", "btl", "nosuch", "-n", "2", app("hello")});
    CHECK_MESSAGE(o.status() != 0, o.summary());
    const bool open_mpi_text =
        o.err.find("A requested component was not found") != std::string::npos ||
        o.err.find("MPI_INIT failed") != std::string::npos;
    CHECK_MESSAGE(count_of(o.err, "mpilaunch: error: ") == 1, o.err);
    CHECK(o.out.find("hello rank") == std::string::npos);
    check_events(job, o.status());
    check_nothing_left(job, o);
    if (MPILAUNCH_E2E_OMPI_MAJOR >= 5 && !open_mpi_text && run < 12 &&
        o.err.find("not able to aggregate error messages") != std::string::npos) {
      CHECK_MESSAGE(count_of(o.err, "\n  kind:      mpi-init-failed\n") == 1, o.err);
      continue;
    }
    CHECK_MESSAGE(open_mpi_text, "Open MPI's own message is missing; stderr:\n", o.err);
    break;
  }
}

TEST_CASE("misc: --dry-run starts nothing and exits 0") {
  Job job;
  const Outcome o = job.launch({"--dry-run", "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(o.out.find("hello rank") == std::string::npos, "a rank ran:\n", o.out);
  CHECK_MESSAGE(!o.out.empty(), "--dry-run printed no plan");
  check_nothing_left(job, o);
}

TEST_CASE("misc: -V and --version print a version and exit 0") {
  for (const std::string option : {"-V", "--version"}) {
    CAPTURE(option);
    Job job;
    const Outcome o = job.launch_plain({option});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(std::regex_search(o.out, std::regex(R"(mpilaunch.*\d+\.\d+)")), o.out);
    check_nothing_left(job, o);
  }
}

TEST_CASE("misc: -h prints the usage and exits 0") {
  Job job;
  const Outcome o = job.launch_plain({"-h"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(o.out.find("mpilaunch") != std::string::npos, o.out);
  CHECK_MESSAGE(o.out.find("-n") != std::string::npos, o.out);
  check_nothing_left(job, o);
}

namespace {
void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}
}  // namespace

TEST_CASE("misc: site and user config files and MPILAUNCH_<OPTION> under the command line") {
  Job job;
  write_file(job.site_config_dir() / "mpilaunch.conf",
             "# site\nmax-restarts = 1\ntimeout = 50\ntag-output = true\n");
  write_file(job.user_config_dir() / "mpilaunch.conf", "timeout = 40\nkill-grace = 2\n");
  job.extra_env = {"MPILAUNCH_KILL_GRACE=1"};
  // --dry-run says where each setting came from.
  Outcome o = job.launch({"--dry-run", "--max-restarts", "2", "-n", "2", app("hello")});
  REQUIRE_MESSAGE(o.status() == 0, o.summary());
  const std::string site = (job.site_config_dir() / "mpilaunch.conf").string();
  const std::string user = (job.user_config_dir() / "mpilaunch.conf").string();
  for (const std::string want :
       {"--max-restarts 2 ", "--timeout 40 ", "--kill-grace 1 ", "--tag-output "}) {
    CAPTURE(want);
    const std::size_t at = o.out.find("  " + want);
    REQUIRE_MESSAGE(at != std::string::npos, o.out);
    const std::string line = o.out.substr(at, o.out.find('\n', at) - at);
    if (want.starts_with("--max-restarts")) CHECK(line.ends_with("from command line"));
    if (want.starts_with("--timeout")) CHECK(line.ends_with("from " + user + ":1"));
    if (want.starts_with("--kill-grace")) CHECK(line.ends_with("from MPILAUNCH_KILL_GRACE"));
    if (want.starts_with("--tag-output")) CHECK(line.ends_with("from " + site + ":4"));
  }
  // The settings take effect: the site's --tag-output tags a real run's lines.
  o = job.launch({"-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(o.out.find("]<stdout>:") != std::string::npos, o.out);
  check_nothing_left(job, o);
}

TEST_CASE("misc: a bad config line is one bad-option error naming file:line, nothing runs") {
  Job job;
  write_file(job.user_config_dir() / "mpilaunch.conf", "\n\noversubscrbe = true\n");
  const Outcome o = job.launch({"-n", "1", app("hello")});
  check_error_block(o, "bad-option", 64);
  const std::string where = (job.user_config_dir() / "mpilaunch.conf").string() + ":3";
  CHECK_MESSAGE(o.err.find(where) != std::string::npos, o.err);
  CHECK_MESSAGE(o.err.find("did you mean '--oversubscribe'") != std::string::npos, o.err);
  CHECK(o.out.find("hello rank") == std::string::npos);
  check_nothing_left(job, o);
}

namespace {

std::vector<std::filesystem::path> topology_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("topology-")) files.push_back(entry.path());
  return files;
}

std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string stale_name(int i) {
  char name[64];
  std::snprintf(name, sizeof name, "topology-%016x.xml", i);
  return name;
}

// One hello through a topology cache directory; the job must succeed either way.
void hello_with_cache(const std::string& setting, std::vector<std::string> more_env = {}) {
  Job job;
  job.extra_env = {"MPILAUNCH_TOPOLOGY_CACHE=" + setting};
  job.extra_env.insert(job.extra_env.end(), more_env.begin(), more_env.end());
  const Outcome o = job.launch({"-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(count_of(o.out, " ok\n") == 2);
  check_nothing_left(job, o);
}

}  // namespace

TEST_CASE("misc: the agent caches the topology for its PMIx server and reuses it") {
  TempDir cache("topology-cache");
  hello_with_cache(cache.path().string());
  auto files = topology_files(cache.path());
  REQUIRE(files.size() == 1);
  CHECK(first_line(files[0]).starts_with("<?xml"));
  struct stat first {};
  REQUIRE(::stat(files[0].c_str(), &first) == 0);

  // Reused, not written again: the same file (a rewrite renames a new one into place).
  hello_with_cache(cache.path().string());
  files = topology_files(cache.path());
  REQUIRE(files.size() == 1);
  struct stat second {};
  REQUIRE(::stat(files[0].c_str(), &second) == 0);
  CHECK(second.st_ino == first.st_ino);

  // A damaged file is discovered again and replaced; the job does not notice.
  { std::ofstream(files[0], std::ios::trunc) << "<topology broken"; }
  hello_with_cache(cache.path().string());
  files = topology_files(cache.path());
  REQUIRE(files.size() == 1);
  CHECK(first_line(files[0]).starts_with("<?xml"));
}

TEST_CASE("misc: ranks read the agent's topology XML and see what their own discovery sees") {
  TempDir cache("topology-cache");
  // topo_counts loads the topology keeping no, the important and all I/O devices.
  const Outcome direct = run(Command{.argv = {app("topo_counts")}, .env = clean_environment({})});
  REQUIRE_MESSAGE(direct.status() == 0, direct.summary());
  const std::vector<std::string> discovered = lines_of(direct.out);
  REQUIRE(discovered.size() == 4);
  CHECK(discovered[3] == "source discovered");

  auto counts = [&](std::vector<std::string> options, const std::string& cache_setting,
                    const std::string& more_env = "E2E_NOTHING=1") {
    Job job;
    job.extra_env = {"MPILAUNCH_TOPOLOGY_CACHE=" + cache_setting, more_env};
    options.insert(options.end(), {"-n", "1", app("topo_counts")});
    const Outcome o = job.launch(options);
    CHECK_MESSAGE(o.status() == 0, o.summary());
    check_nothing_left(job, o);
    return lines_of(o.out);
  };
  const std::vector<std::string> ranked = counts({}, cache.path().string());
  REQUIRE(ranked.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(ranked[i] == discovered[i]);
  const auto files = topology_files(cache.path());
  REQUIRE(files.size() == 1);
  CHECK(ranked[3] == "source " + files[0].string());

  // A rank whose environment steers hwloc, or has another GPU visibility than its agent,
  // discovers for itself; so does every rank when caching is off.
  CHECK(counts({"-x", "HWLOC_HIDE_ERRORS=1"}, cache.path().string()).back() == "source discovered");
  CHECK(counts({"-x", "CUDA_VISIBLE_DEVICES=0"}, cache.path().string()).back() ==
        "source discovered");
  CHECK(counts({}, "off").back() == "source discovered");
  // The same list for agent and ranks: a file of its own, discovered under that list.
  const std::vector<std::string> gpus = counts({}, cache.path().string(), "CUDA_VISIBLE_DEVICES=0");
  REQUIRE(gpus.size() == 4);
  CHECK(gpus[3].starts_with("source " + cache.path().string() + "/topology-"));
  CHECK(gpus[3] != ranked[3]);
  CHECK(topology_files(cache.path()).size() == 2);
}

TEST_CASE("misc: the topology cache keeps its newest files only") {
  TempDir cache("topology-cache");
  // Twenty stale entries of other machine states, older than anything written now.
  const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24);
  for (int i = 0; i < 20; ++i) {
    const auto file = cache.path() / stale_name(i);
    std::ofstream(file) << "<?xml version=\"1.0\"?>\n";
    std::filesystem::last_write_time(file, old + std::chrono::seconds(i));
  }
  hello_with_cache(cache.path().string());
  const auto files = topology_files(cache.path());
  CHECK(files.size() == 16);
  // The one just written is among them; the oldest stale ones are gone.
  bool fresh = false;
  for (const auto& f : files) fresh = fresh || std::filesystem::last_write_time(f) > old + 1h;
  CHECK(fresh);
  CHECK_FALSE(std::filesystem::exists(cache.path() / stale_name(0)));
}

TEST_CASE("misc: no topology cache when the user steers hwloc (HWLOC_*)") {
  TempDir cache("topology-cache");
  hello_with_cache(cache.path().string(), {"HWLOC_HIDE_ERRORS=1"});
  CHECK(topology_files(cache.path()).empty());
}

}  // namespace mpilaunch::e2e
