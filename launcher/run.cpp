#include "launcher/run.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>

#include <fmt/format.h>

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/exit_codes.hpp"
#include "common/protocol.hpp"
#include "launcher/agent_starter.hpp"
#include "launcher/doctor_command.hpp"
#include "launcher/event_log.hpp"
#include "launcher/explain_command.hpp"
#include "launcher/hosts_from_system.hpp"
#include "launcher/launch_plan.hpp"
#include "launcher/options.hpp"
#include "launcher/output_forwarder.hpp"
#include "launcher/supervisor.hpp"
#include "launcher/wrap_engine.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::launcher {
namespace {

std::string random_hex(int bytes) {
  std::random_device rd;
  std::string out;
  for (int i = 0; i < bytes; ++i) out += fmt::format("{:02x}", rd() & 0xff);
  return out;
}

MachineFacts this_machine() {
  MachineFacts m;
  char name[256] = {};
  m.hostname = ::gethostname(name, sizeof name - 1) == 0 ? name : "localhost";
  m.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  std::error_code ec;
  m.cwd = std::filesystem::current_path(ec).string();
  return m;
}

// Where this job's temporary files go: $MPILAUNCH_TMPDIR, else /dev/shm (tmpfs, where Open
// MPI's shared-memory segments belong), else $TMPDIR, else /tmp.
std::string temp_base() {
  if (const char* dir = std::getenv("MPILAUNCH_TMPDIR"); dir != nullptr && *dir != '\0') return dir;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  if (const char* dir = std::getenv("TMPDIR"); dir != nullptr && *dir != '\0') return dir;
  return "/tmp";
}

// Reports an error that ends the run before any agent started.
int early_failure(const Error& error, EventLog& events) {
  std::fputs(render_human(error).c_str(), stderr);
  if (error.kind == ErrorKind::BadOption)
    std::fputs("Run 'mpilaunch --help' for the options.\n", stderr);
  const int code = exit_codes::for_error(error);
  events.write("job-failed", {{"error", error_to_json(error)}, {"attempt", 0}});
  events.write("job-end", {{"exit_code", code}, {"status", "failed"}, {"attempts", 0}});
  return code;
}

// Best effort: the --events path from argv, so that even a bad command line is recorded.
std::string events_path_from(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--events") return args[i + 1];
  for (const auto& a : args)
    if (a.starts_with("--events=")) return a.substr(9);
  return {};
}

}  // namespace

int run(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "doctor")
    return run_doctor(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "explain")
    return run_explain(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "--engine=ompi")
    return run_wrapped(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args.size() > 1 && args[0] == "--engine" && args[1] == "ompi")
    return run_wrapped(std::vector<std::string>(args.begin() + 2, args.end()));
  EventLog events;
  auto options = parse_options(args);
  if (!options) {
    (void)events.open(events_path_from(args));
    return early_failure(options.error(), events);
  }
  const Options& o = options.value();
  if (o.help) {
    std::fputs(usage_text().c_str(), stdout);
    return exit_codes::kSuccess;
  }
  if (o.version) {
    std::printf("mpilaunch %s (protocol %u)\n", MPILAUNCH_VERSION,
                static_cast<unsigned>(protocol::kProtocolVersion));
    return exit_codes::kSuccess;
  }
  if (Status st = events.open(o.events_file); !st) return early_failure(st.error(), events);

  const MachineFacts machine = this_machine();
  auto hosts = gather_hosts(o);
  if (!hosts) return early_failure(hosts.error(), events);
  auto plan = make_plan(o, hosts.value(), machine,
                        [](const std::string& name) -> std::optional<std::string> {
                          const char* v = std::getenv(name.c_str());
                          return v == nullptr ? std::nullopt : std::optional<std::string>(v);
                        });
  if (!plan) return early_failure(plan.error(), events);
  for (const std::string& w : plan->warnings)
    std::fprintf(stderr, "mpilaunch: warning: %s\n", w.c_str());

  // The starter is chosen here, in one visible place: ssh for remote hosts, else local.
  const std::string agent = find_agent_binary(o.agent_path);
  std::unique_ptr<AgentStarter> starter;
  if (plan->launcher == LauncherKind::Ssh) {
    // Remote hosts run the agent at the same absolute path as ours (shared installs and
    // container images), else whatever their PATH finds.
    SshSettings ssh{
        .config_file = o.ssh_config,
        .connect_timeout =
            std::chrono::milliseconds(static_cast<std::int64_t>(o.connect_timeout_seconds * 1000)),
        .agent_path = agent.empty() ? "mpilaunch-agent" : agent,
        .wait_for_hosts =
            std::chrono::milliseconds(static_cast<std::int64_t>(o.wait_for_hosts_seconds * 1000))};
    starter = std::make_unique<SshAgentStarter>(std::move(ssh), o.ssh_fanout);
  } else {
    starter = std::make_unique<LocalAgentStarter>(agent.empty() ? "mpilaunch-agent" : agent);
  }
  if (o.dry_run) {
    std::fputs(render_plan(plan.value(), starter->describe()).c_str(), stdout);
    return exit_codes::kSuccess;
  }
  // Containers run as root: ranks run anyway, with one line naming the switches users already
  // have in their manifests; --refuse-root gives sites Open MPI's refusal.
  if (::geteuid() == 0) {
    const auto is_one = [](const char* name) {
      const char* v = std::getenv(name);
      return v != nullptr && std::string_view(v) == "1";
    };
    if (o.refuse_root)
      return early_failure(Error{.kind = ErrorKind::RunAsRootRefused,
                                 .exit_code = exit_codes::kRootRefused,
                                 .detail = "--refuse-root was given and mpilaunch runs as root"},
                           events);
    if (!o.allow_run_as_root &&
        !(is_one("OMPI_ALLOW_RUN_AS_ROOT") && is_one("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")))
      std::fputs(
          "mpilaunch: warning: running the ranks as root; silence this with --allow-run-as-root "
          "or OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n",
          stderr);
  }
  if (agent.empty() && plan->launcher != LauncherKind::Ssh)
    return early_failure(
        Error{.kind = ErrorKind::AgentStartFailed,
              .host = machine.hostname,
              .phase = "exec",
              .detail = "mpilaunch-agent was not found next to mpilaunch or in PATH"},
        events);

  JobConfig config;
  config.job_id = random_hex(4);
  OutputForwarder output(
      OutputConfig{o.tag_output, o.timestamp_output, o.output_filename, config.job_id});
  if (Status st = output.open(); !st) return early_failure(st.error(), events);

  config.token = random_hex(16);
  config.tmpdir = fmt::format("{}/mpilaunch-{}-{}", temp_base(), ::getuid(), config.job_id);
  config.timeout_seconds = o.timeout_seconds;
  if (!config.timeout_seconds)
    if (const char* env = std::getenv("MPIEXEC_TIMEOUT"); env != nullptr && *env != '\0') {
      auto parsed = parse_options({"--timeout", env, "x"});
      if (!parsed)
        return early_failure(
            Error{.kind = ErrorKind::BadOption,
                  .detail = fmt::format("MPIEXEC_TIMEOUT={}: {}", env, parsed.error().detail)},
            events);
      config.timeout_seconds = parsed->timeout_seconds;
    }
  config.kill_grace_seconds = o.kill_grace_seconds;
  config.start_timeout_seconds += o.wait_for_hosts_seconds;
  config.wireup_timeout_seconds = o.wireup_timeout_seconds;
  config.report_state_on_timeout = o.report_state_on_timeout;
  config.plan = std::move(plan).value();
  config.status_file = o.status_file;
  config.progress = ::isatty(STDERR_FILENO) == 1;
  config.restart.max_restarts = o.max_restarts.value_or(0);
  if (!o.max_restarts)
    if (const char* env = std::getenv("MPILAUNCH_MAX_RESTARTS"); env != nullptr && *env != '\0') {
      auto parsed = parse_options({"--max-restarts", env, "x"});
      if (!parsed)
        return early_failure(Error{.kind = ErrorKind::BadOption,
                                   .detail = fmt::format("MPILAUNCH_MAX_RESTARTS={}: {}", env,
                                                         parsed.error().detail)},
                             events);
      config.restart.max_restarts = *parsed->max_restarts;
    }
  if (!o.restart_on.empty())
    config.restart.restart_on = std::set<ErrorKind>(o.restart_on.begin(), o.restart_on.end());
  if (o.restart_backoff_seconds)
    config.restart.first_backoff = std::chrono::duration_cast<Duration>(
        std::chrono::duration<double>(*o.restart_backoff_seconds));
  if (o.restart_backoff_max_seconds)
    config.restart.max_backoff = std::chrono::duration_cast<Duration>(
        std::chrono::duration<double>(*o.restart_backoff_max_seconds));
  config.restart.max_backoff = std::max(config.restart.max_backoff, config.restart.first_backoff);

  asio::io_context io(1);
  Supervisor supervisor(io, std::move(config), *starter, events, output);
  return supervisor.run();
}

}  // namespace mpilaunch::launcher
