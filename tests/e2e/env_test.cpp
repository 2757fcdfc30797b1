// What the ranks see: -x variables (with a value, or the launcher's own), --mca as OMPI_MCA_*,
// and --wdir/--wd as their working directory, read back through env_dump on every rank.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

// Runs env_dump on 2 ranks with `options` and the variable names `names`; returns stdout.
std::string dump_env(Job& job, const std::vector<std::string>& options,
                     const std::vector<std::string>& names) {
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {"-n", "2", app("env_dump")});
  argv.insert(argv.end(), names.begin(), names.end());
  const Outcome o = job.launch(argv);
  CHECK_MESSAGE(o.status() == 0, o.summary());
  check_events(job, 0);
  check_nothing_left(job, o);
  return o.out;
}

// `line` printed once by each of the 2 ranks.
void check_each_rank_printed(const std::string& out, const std::string& line) {
  const std::vector<std::string> lines = lines_of(out);
  CHECK_MESSAGE(std::count(lines.begin(), lines.end(), line) == 2, "want twice: ", line,
                "\nstdout:\n", out);
}

}  // namespace

TEST_CASE("env: -x NAME=value and -x NAME (the launcher's value) reach every rank") {
  Job job;
  job.extra_env = {"E2E_INHERITED=from the launcher"};
  const std::string out = dump_env(job, {"-x", "E2E_SET=some value", "-x", "E2E_INHERITED"},
                                   {"E2E_SET", "E2E_INHERITED", "E2E_NEVER_SET"});
  check_each_rank_printed(out, "E2E_SET=some value");
  check_each_rank_printed(out, "E2E_INHERITED=from the launcher");
  check_each_rank_printed(out, "E2E_NEVER_SET unset");
}

TEST_CASE("env: --mca KEY VALUE reaches every rank as OMPI_MCA_KEY") {
  Job job;
  const std::string out =
      dump_env(job, {"--mca", "e2e_test_param", "42"}, {"OMPI_MCA_e2e_test_param"});
  check_each_rank_printed(out, "OMPI_MCA_e2e_test_param=42");
}

TEST_CASE("env: --wdir and --wd set the ranks' working directory") {
  for (const std::string option : {"--wdir", "--wd"}) {
    CAPTURE(option);
    Job job;
    const std::filesystem::path wdir = job.dir().path() / "work dir";
    std::filesystem::create_directory(wdir);
    const std::string out = dump_env(job, {option, wdir.string()}, {});
    check_each_rank_printed(out, "cwd=" + std::filesystem::canonical(wdir).string());
  }
}

TEST_CASE("env: the ranks' PMIx and Open MPI temp dirs lie under MPILAUNCH_TMPDIR") {
  Job job;
  const std::string out = dump_env(job, {}, {"PMIX_SERVER_TMPDIR", "OMPI_MCA_orte_tmpdir_base"});
  const std::string under = "=" + job.tmpdir().string() + "/";
  for (const std::string& line : lines_of(out)) {
    if (!line.starts_with("PMIX_SERVER_TMPDIR") && !line.starts_with("OMPI_MCA_orte_tmpdir_base"))
      continue;
    CHECK_MESSAGE(line.find(under) != std::string::npos, line, " is not under ", under);
  }
  CHECK_MESSAGE(out.find("PMIX_SERVER_TMPDIR=") != std::string::npos, out);
}

}  // namespace mpilaunch::e2e
