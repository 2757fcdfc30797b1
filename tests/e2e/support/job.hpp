#pragma once
/// One mpilaunch run under test, isolated from every other: its own marker (inherited by its
/// agents and ranks), its own MPILAUNCH_TMPDIR and events file inside a fresh temp dir.
/// Destruction SIGKILLs whatever still carries the marker, so a failed test cannot leak.

#include <filesystem>
#include <string>
#include <vector>

#include "tests/e2e/support/command.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {

/// The binaries under test: this build's, or those of the build directory MPILAUNCH_TEST_BUILD
/// names.
std::string launcher_path();
std::string agent_path();
/// <build>/tests/apps/`name`.
std::string app(const std::string& name);

class Job {
 public:
  Job();
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  /// Runs `mpilaunch --events <events_path()> args...`.
  Outcome launch(const std::vector<std::string>& args, Millis deadline = Millis{60'000});
  /// The command launch_plain() would run, for tests that start mpilaunch in the background.
  Command command(const std::vector<std::string>& args, Millis deadline = Millis{60'000}) const;
  /// Runs `mpilaunch args...` exactly as given.
  Outcome launch_plain(const std::vector<std::string>& args, Millis deadline = Millis{60'000});

  std::vector<std::string> extra_env;  // "NAME=value" added to the launcher's environment
  std::string cwd;                     // the launcher's working directory; empty: the test's

  const std::string& mark() const { return mark_; }
  const TempDir& dir() const { return dir_; }
  std::string events_path() const { return dir_.file("events.jsonl"); }
  std::filesystem::path tmpdir() const { return dir_.path() / "tmp"; }  // MPILAUNCH_TMPDIR
  /// Where this job's launcher looks for the site and the user config file (mpilaunch.conf).
  std::filesystem::path site_config_dir() const { return dir_.path() / "etc"; }
  std::filesystem::path user_config_dir() const { return dir_.path() / "config" / "mpilaunch"; }

 private:
  std::string mark_;
  TempDir dir_;
};

}  // namespace mpilaunch::e2e
