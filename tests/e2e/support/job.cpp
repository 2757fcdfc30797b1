#include "tests/e2e/support/job.hpp"

#include <unistd.h>

#include "tests/e2e/support/marked_processes.hpp"
#include "tests/e2e/support/test_build.hpp"

namespace mpilaunch::e2e {

std::string launcher_path() {
  return in_test_build("launcher/mpilaunch").value_or(MPILAUNCH_E2E_LAUNCHER);
}
std::string agent_path() {
  return in_test_build("agent/mpilaunch-agent").value_or(MPILAUNCH_E2E_AGENT);
}
std::string app(const std::string& name) {
  return in_test_build("tests/apps").value_or(MPILAUNCH_E2E_APPS) + "/" + name;
}

Job::Job() : mark_(random_mark()) {
  std::filesystem::create_directory(tmpdir());
}

Job::~Job() {
  kill_marked(mark_);
}

Outcome Job::launch(const std::vector<std::string>& args, Millis deadline) {
  std::vector<std::string> with_events = {"--events", events_path()};
  with_events.insert(with_events.end(), args.begin(), args.end());
  return launch_plain(with_events, deadline);
}

Outcome Job::launch_plain(const std::vector<std::string>& args, Millis deadline) {
  return run(command(args, deadline));
}

Command Job::command(const std::vector<std::string>& args, Millis deadline) const {
  Command c;
  c.argv = {launcher_path()};
  c.argv.insert(c.argv.end(), args.begin(), args.end());
  std::vector<std::string> env = {
      std::string(kMarkVariable) + "=" + mark_,
      "MPILAUNCH_TMPDIR=" + tmpdir().string(),
      "MPILAUNCH_AGENT=" + agent_path(),
      // Config files come from the job's own directory, never from /etc or ~.
      "MPILAUNCH_SYSCONFDIR=" + site_config_dir().string(),
      "XDG_CONFIG_HOME=" + (dir_.path() / "config").string(),
  };
  // The tests may run as root (containers, CI): say so the documented way, as mpirun wants too,
  // so that the launcher's root warning does not land in every stderr under test.
  if (::geteuid() == 0)
    env.insert(env.end(), {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"});
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  c.env = clean_environment(env);
  c.cwd = cwd;
  c.deadline = deadline;
  return c;
}

}  // namespace mpilaunch::e2e
