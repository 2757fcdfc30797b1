#include "launcher/run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <ranges>
#include <set>

#include "common/text_format.hpp"

#include "common/bounded_file.hpp"
#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "common/executable_path.hpp"
#include "common/exit_codes.hpp"
#include "common/job_dir.hpp"
#include "common/mca_params.hpp"
#include "common/os_hostname.hpp"
#include "common/protocol.hpp"
#include "launcher/cli/deprecation.hpp"
#include "launcher/cli/option_manual.hpp"
#include "launcher/cli/options.hpp"
#include "launcher/cli/settings.hpp"
#include "launcher/diagnose/explain_command.hpp"
#include "launcher/doctor/doctor_command.hpp"
#include "launcher/hosts/hosts_from_system.hpp"
#include "launcher/job/elf_needed.hpp"
#include "launcher/job/launch_plan.hpp"
#include "launcher/job/stacks_command.hpp"
#include "launcher/job/supervisor.hpp"
#include "launcher/job/wrap_engine.hpp"
#include "launcher/output/event_log.hpp"
#include "launcher/output/output_forwarder.hpp"
#include "launcher/start/agent_starter.hpp"
#include "launcher/start/file_digest.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::launcher {
namespace {

// Whether environment variable `name` is exactly "1" (the switches Open MPI and we document).
bool env_is_one(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == "1";
}

std::string random_hex(int bytes) {
  std::random_device rd;
  std::string out;
  for (int i = 0; i < bytes; ++i) out += mpilaunch::format("{:02x}", rd() & 0xff);
  return out;
}

MachineFacts this_machine() {
  MachineFacts m;
  m.hostname = os_hostname();
  m.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  std::error_code ec;
  m.cwd = std::filesystem::current_path(ec).string();
  return m;
}

// Reports an error that ends the run before any agent started.
int early_failure(const Error& error, EventLog& events) {
  // Framed as Open MPI frames its help messages, except an unknown option: mpirun 4.1.4 says
  // that one on a plain line ('mpirun: Error: unknown option "--x"').
  const bool unknown_option =
      error.kind == ErrorKind::BadOption && error.detail.starts_with("unknown option ");
  std::fputs((unknown_option ? render_human(error) : render_framed(error)).c_str(), stderr);
  if (error.kind == ErrorKind::BadOption)
    std::fputs("Run 'mpilaunch --help' for the options.\n", stderr);
  const int code = exit_codes::for_error(error);
  events.write("job-failed", {{"error", error_to_json(error)}, {"attempt", 0}});
  events.write("job-end", {{"exit_code", code}, {"status", "failed"}, {"attempts", 0}});
  return code;
}

std::optional<std::string> env_value(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v == nullptr ? std::nullopt : std::optional<std::string>(v);
}

// The most of a file a user names or places that is read (common/bounded_file.hpp): a config
// file, a --tune file or an MCA parameter file holds settings, an appfile a line per context.
constexpr std::size_t kMaxSettingsFileBytes = kMaxMcaParamFileBytes;
constexpr std::size_t kMaxAppfileBytes = std::size_t{16} << 20;

// A config file's settings; none when it does not exist.
Result<std::vector<Setting>> config_file(const std::string& path) {
  const BoundedFile file = read_bounded_file(path, kMaxSettingsFileBytes);
  if (file.outcome == BoundedFile::Outcome::Missing) return std::vector<Setting>{};
  if (file.outcome != BoundedFile::Outcome::Read)
    return Error{
        .kind = ErrorKind::BadOption,
        .detail = mpilaunch::format("{} (a config file: `name = value` lines)", file.problem)};
  return parse_config(file.text, path);
}

// Site file, user file and MPILAUNCH_<OPTION> variables under the command line.
// MPILAUNCH_SYSCONFDIR replaces /etc/mpilaunch (tests, relocated installs).
Result<Layered> settings_under(const std::vector<std::string>& args) {
  const std::string site_dir = env_value("MPILAUNCH_SYSCONFDIR").value_or("/etc/mpilaunch");
  std::string user_dir;
  if (const auto xdg = env_value("XDG_CONFIG_HOME"); xdg && !xdg->empty())
    user_dir = *xdg + "/mpilaunch";
  else if (const auto home = env_value("HOME"); home && !home->empty())
    user_dir = *home + "/.config/mpilaunch";
  std::vector<std::vector<Setting>> layers;
  for (const std::string& dir : {site_dir, user_dir}) {
    if (dir.empty()) continue;
    auto settings = config_file(dir + "/mpilaunch.conf");
    if (!settings) return settings.error();
    layers.push_back(std::move(settings).value());
  }
  auto env = settings_from_environment(env_value);
  if (!env) return env.error();
  layers.push_back(std::move(env).value());
  return layer_settings(layers, args);
}

std::string render_provenance(const std::vector<Provenance>& settings) {
  std::string out = "settings:\n";
  if (settings.empty()) out += "  (all defaults)\n";
  for (const Provenance& p : settings)
    out += mpilaunch::format("  {:<28} from {}\n",
                             p.option + (p.values.empty() ? "" : " " + p.values), p.origin);
  return out;
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
  if (!args.empty() && args[0] == "stacks")
    return run_stacks(std::vector<std::string>(args.begin() + 1, args.end()));
  // Build-time generators of the installed man page and completions (not in --help).
  if (args.size() == 1 && args[0] == "--help-man") {
    std::fputs(render_man_page(MPILAUNCH_VERSION).c_str(), stdout);
    return exit_codes::kSuccess;
  }
  if (args.size() == 1 && args[0] == "--help-completion=bash") {
    std::fputs(render_bash_completion().c_str(), stdout);
    return exit_codes::kSuccess;
  }
  if (args.size() == 1 && args[0] == "--help-completion=zsh") {
    std::fputs(render_zsh_completion().c_str(), stdout);
    return exit_codes::kSuccess;
  }
  if (!args.empty() && args[0] == "--engine=ompi")
    return run_wrapped(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args.size() > 1 && args[0] == "--engine" && args[1] == "ompi")
    return run_wrapped(std::vector<std::string>(args.begin() + 2, args.end()));
  EventLog events;
  auto layered = settings_under(args);
  if (!layered) {
    (void)events.open(events_path_from(args));
    return early_failure(layered.error(), events);
  }
  auto options = parse_options(layered->args);
  if (!options) {
    (void)events.open(events_path_from(layered->args));
    return early_failure(options.error(), events);
  }
  Options parsed = std::move(options).value();
  const Options& o = parsed;
  if (o.help && !o.help_topic.empty()) {
    const auto text = help_topic_text(o.help_topic);
    if (!text) {
      const std::string suggestion = suggest_option(o.help_topic);
      return early_failure(
          Error{.kind = ErrorKind::BadOption,
                .detail = mpilaunch::format(
                    "--help {}: no such option or topic{}; topics are an "
                    "option, 'errors' and 'exit-codes'",
                    o.help_topic,
                    suggestion.empty() ? ""
                                       : mpilaunch::format(" (did you mean '{}'?)", suggestion))},
          events);
    }
    std::fputs(text->c_str(), stdout);
    return exit_codes::kSuccess;
  }
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
  // The options before the first program (an appfile line's are not deprecated forms there).
  const auto command_line_option_mca = o.option_mca;
  if (!o.appfile.empty()) {
    // --app FILE: the application contexts are the file's lines (mpirun's appfile).
    const BoundedFile file = read_bounded_file(o.appfile, kMaxAppfileBytes);
    if (file.outcome != BoundedFile::Outcome::Read)
      return early_failure(Error{.kind = ErrorKind::BadOption,
                                 .detail = mpilaunch::format(
                                     "--app {} (the appfile: a line per context)", file.problem)},
                           events);
    auto with_contexts = apply_appfile(o, file.text, o.appfile);
    if (!with_contexts) return early_failure(with_contexts.error(), events);
    parsed = std::move(with_contexts).value();
  }
  if (!o.tune.empty()) {
    // --tune FILE[,FILE]: found as each rank's Open MPI finds it (Open MPI's amca-param-sets
    // directory, then the working directory), read here for its -x and --mca.
    std::vector<TuneFile> files;
    for (const auto part : std::views::split(std::string_view(o.tune), ',')) {
      const std::string name(part.begin(), part.end());
      std::vector<std::string> tried;
      if (!name.empty() && name[0] == '/') {
        tried.push_back(name);
      } else {
        tried.push_back(mpilaunch::format("{}/{}", kAmcaParamSets, name));
        tried.push_back(name);
      }
      std::optional<std::string> text;
      std::string problem;  // of a file found but not read
      for (const std::string& path : tried) {
        BoundedFile file = read_bounded_file(path, kMaxSettingsFileBytes);
        if (file.outcome == BoundedFile::Outcome::Missing) continue;
        if (file.outcome == BoundedFile::Outcome::Read) text = std::move(file.text);
        problem = std::move(file.problem);
        break;
      }
      // mpirun 4.1.4 (measured): "Unable to locate the variable file", and it runs without it.
      if (!text && problem.empty()) {
        if (!o.quiet)
          std::fprintf(stderr,
                       "mpilaunch: warning: --tune %s: no such file (looked for %s); running "
                       "without it, as mpirun 4.1.4 does\n",
                       name.c_str(), mpilaunch::format("{}", fmt::join(tried, " and ")).c_str());
        continue;
      }
      if (!text)
        return early_failure(
            Error{.kind = ErrorKind::BadOption,
                  .detail = mpilaunch::format(
                      "--tune {}: {} (a --tune file holds -x and --mca lines)", name, problem)},
            events);
      files.push_back({name, std::move(*text)});
    }
    auto tuned = apply_tune(o, files);
    if (!tuned) return early_failure(tuned.error(), events);
    parsed = std::move(tuned).value();
  }
  if (Status st = unsupported_options(o); !st) return early_failure(st.error(), events);
  if (!o.report_pid.empty()) {
    // mpirun's --report-pid: '-' stdout, '+' stderr, anything else a file; the pid and a newline.
    const std::string line = mpilaunch::format("{}\n", ::getpid());
    if (o.report_pid == "-" || o.report_pid == "+") {
      std::fputs(line.c_str(), o.report_pid == "-" ? stdout : stderr);
      std::fflush(o.report_pid == "-" ? stdout : stderr);
    } else {
      std::ofstream out(o.report_pid, std::ios::binary | std::ios::trunc);
      out << line;
      out.flush();
      if (!out)
        return early_failure(
            Error{.kind = ErrorKind::BadOption,
                  .detail = mpilaunch::format("--report-pid {}: cannot write this file: {}",
                                              o.report_pid, std::strerror(errno))},
            events);
    }
  }

  // Open MPI's parameter files steer the plan as they steer mpirun 4.1.4: the system's, then
  // the user's (which wins). A file that is not there is no error; one that cannot be opened
  // is skipped, as mpirun 4.1.4 skips it, but said; a directory stops mpirun 4.1.4 ("input in
  // flex scanner failed", exit 2, measured) and stops the run here too, as does a file larger
  // than any parameter file (docs/mpirun-compat.md).
  // A file named by mca_param_files (--mca or the environment) is read first, so that the
  // default files win over it: mpirun 4.1.4 (measured) applies one such file's parameters
  // unless the user's file sets them too, and nothing from a colon-separated list of several.
  std::string named_file;
  for (const auto& [name, value] : o.mca)
    if (name == "mca_param_files") named_file = value;
  if (const char* env = std::getenv("OMPI_MCA_mca_param_files");
      named_file.empty() && env != nullptr)
    named_file = env;
  if (named_file.find(':') != std::string::npos) named_file.clear();
  for (const std::string& path :
       {named_file, std::string(kSystemMcaParamFile),
        std::getenv("HOME") != nullptr && *std::getenv("HOME") != '\0'
            ? mpilaunch::format("{}/{}", std::getenv("HOME"), kUserMcaParamFile)
            : std::string()}) {
    if (path.empty()) continue;
    const BoundedFile file = read_bounded_file(path, kMaxMcaParamFileBytes);
    switch (file.outcome) {
      case BoundedFile::Outcome::Read:
        add_mca_param_file(file.text, parsed.param_file_mca);
        break;
      case BoundedFile::Outcome::Missing:
        break;
      case BoundedFile::Outcome::Unreadable:
        if (!o.quiet)
          std::fprintf(stderr,
                       "mpilaunch: warning: %s (Open MPI's MCA parameter file, skipped as mpirun "
                       "4.1.4 skips it)\n",
                       file.problem.c_str());
        break;
      case BoundedFile::Outcome::Directory:
      case BoundedFile::Outcome::TooLarge:
        return early_failure(
            Error{.kind = ErrorKind::BadOption,
                  .detail = mpilaunch::format(
                      "{} (Open MPI's MCA parameter file: `name = value` lines)", file.problem)},
            events);
    }
  }
  // mpirun 4.1.4's deprecation blocks, before anything else it prints, -q or not (measured).
  const DeprecationNotice deprecated = deprecation_notice(
      command_line_option_mca, o.mca,
      [&](const std::string& key) { return mca_setting_beyond_command_line(o, env_value, key); });
  std::fputs(deprecated.blocks.c_str(), stderr);
  std::fflush(stderr);
  if (Status st = apply_option_parameters(parsed, env_value); !st)
    return early_failure(st.error(), events);
  const MachineFacts machine = this_machine();
  auto hosts = gather_hosts(o);
  if (!hosts) return early_failure(hosts.error(), events);
  auto plan = make_plan(o, hosts.value(), machine, env_value);
  if (!plan) return early_failure(plan.error(), events);
  if (!plan->quiet)
    for (const std::string& w : plan->warnings)
      std::fprintf(stderr, "mpilaunch: warning: %s\n", w.c_str());

  {
    // --pmi=auto reads each context's program's MPI library here, where the programs are.
    std::vector<PmiChoice> choices;
    std::vector<std::string> programs;
    for (const PlanApp& app : plan->apps) {
      std::vector<std::string> env = plan->env;  // a -x PATH=... comes first and wins
      if (const char* path = std::getenv("PATH")) env.push_back(mpilaunch::format("PATH={}", path));
      env.insert(env.begin(), app.env.begin(), app.env.end());
      const auto program = resolve_executable(app.argv.at(0), env, app.wdir, app.exec_path);
      const Result<std::vector<std::string>> needed =
          program ? elf_needed(program.value())
                  : Result<std::vector<std::string>>(Error{
                        .kind = ErrorKind::BadOption,
                        .detail = mpilaunch::format("{} is not on this machine", app.argv[0])});
      choices.push_back(choose_pmi(o.pmi, program ? program.value() : app.argv[0], needed));
      programs.push_back(app.argv[0]);
    }
    auto job_pmi = choose_job_pmi(choices, programs);
    if (!job_pmi) return early_failure(job_pmi.error(), events);
    plan->pmi = std::move(job_pmi).value();
    events.write("interface", {{"interface", pmi_label(plan->pmi)}, {"reason", plan->pmi.reason}});
  }

  // The starter is chosen here, in one visible place: srun inside a Slurm allocation, ssh for
  // remote hosts, else local.
  const std::string agent = find_agent_binary(o.agent_path);
  // The job's one event loop: the supervisor's, and the ssh sessions' (declared before the
  // starter, so it outlives it: destroying it closes the sessions still suspended on it).
  asio::io_context io(1);
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
            std::chrono::milliseconds(static_cast<std::int64_t>(o.wait_for_hosts_seconds * 1000)),
        .deploy = o.deploy_agent,
        .local_agent = o.agent_path.empty() ? agent : find_agent_binary(""),
        .local_agent_sha256 = {}};
    // The local agent's checksum, computed by the first host that needs it, shared by all.
    ssh.local_agent_sha256 = [path = ssh.local_agent, once = std::make_shared<std::once_flag>(),
                              sum = std::make_shared<Result<std::string>>(std::string())]() {
      std::call_once(*once, [&] {
        *sum = path.empty() ? Result<std::string>(Error{.kind = ErrorKind::BadOption,
                                                        .detail = "mpilaunch-agent not found "
                                                                  "next to mpilaunch or in PATH"})
                            : file_sha256(path);
      });
      return *sum;
    };
    starter = std::make_unique<SshAgentStarter>(io, std::move(ssh), o.ssh_fanout);
  } else if (plan->launcher == LauncherKind::Srun) {
    // Every node runs the agent at our absolute path (Slurm clusters share installs).
    const char* srun = std::getenv("MPILAUNCH_SRUN");
    starter = std::make_unique<SrunAgentStarter>(srun != nullptr && *srun != '\0' ? srun : "srun",
                                                 agent.empty() ? "mpilaunch-agent" : agent);
  } else {
    // Local agents hand their ranks' output pipes to us, unless there are too many for our
    // descriptor limit or MPILAUNCH_OUTPUT_VIA_AGENT=1 asks for the agents' forwarding.
    // Slots still to be counted (a host file without slots=): at most this machine's CPUs each.
    const int ranks = !plan->slots_from_agents
                          ? plan->map.size()
                          : plan->request.np.value_or(plan->map.node_count() * machine.cpus);
    const bool pass = !env_is_one("MPILAUNCH_OUTPUT_VIA_AGENT") && can_hold_rank_pipes(ranks);
    starter = std::make_unique<LocalAgentStarter>(agent.empty() ? "mpilaunch-agent" : agent, pass);
  }
  if (plan->idle_local_node && plan->launcher == LauncherKind::Ssh)
    starter = std::make_unique<HereOrRemoteStarter>(
        std::move(starter), agent.empty() ? "mpilaunch-agent" : agent, plan->nodes.back().name);
  if (o.dry_run) {
    std::fputs(render_plan(plan.value(), starter->describe()).c_str(), stdout);
    std::fputs(render_provenance(layered->provenance).c_str(), stdout);
    if (!o.ignored.empty()) {
      std::string names;
      for (const std::string& name : o.ignored) names += (names.empty() ? "" : " ") + name;
      std::fprintf(stdout, "without effect here (docs/mpirun-compat.md): %s\n", names.c_str());
    }
    return exit_codes::kSuccess;
  }
  // Containers run as root: ranks run anyway, with one line naming the switches users already
  // have in their manifests; --refuse-root gives sites Open MPI's refusal.
  if (::geteuid() == 0) {
    if (o.refuse_root)
      return early_failure(Error{.kind = ErrorKind::RunAsRootRefused,
                                 .exit_code = exit_codes::kRootRefused,
                                 .detail = "--refuse-root was given and mpilaunch runs as root"},
                           events);
    if (!o.allow_run_as_root && !plan->quiet && !o.do_not_launch &&
        !(env_is_one("OMPI_ALLOW_RUN_AS_ROOT") && env_is_one("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")))
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
  OutputForwarder output(OutputConfig{.tag = plan->tag_output,
                                      .timestamp = plan->timestamp_output,
                                      .directory = o.output_filename,
                                      .merge_stderr = o.merge_stderr_to_stdout});
  if (Status st = output.open(); !st) return early_failure(st.error(), events);

  config.token = random_hex(16);
  config.tmpdir =
      mpilaunch::format("{}/mpilaunch-{}-{}", job_dir_base(), ::getuid(), config.job_id);
  config.timeout_seconds = o.timeout_seconds;
  if (!config.timeout_seconds)
    if (const char* env = std::getenv("MPIEXEC_TIMEOUT"); env != nullptr && *env != '\0') {
      auto parsed = parse_options({"--timeout", env, "x"});
      if (!parsed)
        return early_failure(Error{.kind = ErrorKind::BadOption,
                                   .detail = mpilaunch::format("MPIEXEC_TIMEOUT={}: {}", env,
                                                               parsed.error().detail)},
                             events);
      config.timeout_seconds = parsed->timeout_seconds;
    }
  config.kill_grace_seconds = o.kill_grace_seconds;
  if (const auto text = env_value("MPILAUNCH_AGENT_START_TIMEOUT"); text && !text->empty()) {
    char* end = nullptr;
    const double s = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || !(s > 0 && s <= 86400))
      return early_failure(
          Error{.kind = ErrorKind::BadOption,
                .detail = mpilaunch::format("MPILAUNCH_AGENT_START_TIMEOUT={}: needs "
                                            "a number of seconds from 0 to 86400",
                                            *text)},
          events);
    config.start_timeout_seconds = s;
  }
  config.start_timeout_seconds += o.wait_for_hosts_seconds;
  config.wireup_timeout_seconds = o.wireup_timeout_seconds;
  config.report_state_on_timeout = o.report_state_on_timeout;
  config.get_stack_traces = o.get_stack_traces;
  if (o.do_not_launch) {
    // mpirun 4.1.4's --do-not-launch prints its JOB MAP (the diffable one when asked), binding
    // columns included, also on a saved topology, and no --report-bindings line (measured).
    config.map_only = true;
    plan->placement.display = !plan->display_diffable_map;
    plan->placement.report_bindings = false;
    plan->placement.topology_file.clear();
  }
  config.plan = std::move(plan).value();
  config.status_file = o.status_file;
  config.progress = ::isatty(STDERR_FILENO) == 1;
  config.rank_stdout_pty = o.rank_stdout == "pty";
  // --stdin: rank 0 by default, as mpirun; a rank the job does not have is refused (mpirun
  // gives nobody stdin and exits 1).
  if (o.stdin_target == "none") {
    config.stdin_rank = protocol::kStdinNone;
  } else if (o.stdin_target == "all") {
    config.stdin_rank = protocol::kStdinAll;
  } else if (!o.stdin_target.empty()) {
    const unsigned long rank = std::strtoul(o.stdin_target.c_str(), nullptr, 10);
    // When the agents count the slots, the supervisor checks once the ranks are mapped.
    if (config.plan.slots_from_agents && rank > 1'000'000)
      return early_failure(Error{.kind = ErrorKind::BadOption,
                                 .detail = mpilaunch::format(
                                     "--stdin {}: no job has that many ranks", o.stdin_target)},
                           events);
    if (!config.plan.slots_from_agents &&
        rank >= static_cast<unsigned long>(config.plan.map.size()))
      return early_failure(Error{.kind = ErrorKind::BadOption,
                                 .detail = mpilaunch::format(
                                     "--stdin {}: the job has {} ranks (0 to {})", o.stdin_target,
                                     config.plan.map.size(), config.plan.map.size() - 1)},
                           events);
    config.stdin_rank = static_cast<std::int32_t>(rank);
  }
  config.restart.max_restarts = o.max_restarts.value_or(0);
  if (!o.restart_on.empty())
    config.restart.restart_on = std::set<ErrorKind>(o.restart_on.begin(), o.restart_on.end());
  if (o.restart_backoff_seconds)
    config.restart.first_backoff = std::chrono::duration_cast<Duration>(
        std::chrono::duration<double>(*o.restart_backoff_seconds));
  if (o.restart_backoff_max_seconds)
    config.restart.max_backoff = std::chrono::duration_cast<Duration>(
        std::chrono::duration<double>(*o.restart_backoff_max_seconds));
  config.restart.max_backoff = std::max(config.restart.max_backoff, config.restart.first_backoff);

  // This machine's job directory, 0700 and held until the job ends; directories of this
  // user's jobs whose every process is gone (SIGKILLed together) go first
  // (common/job_dir.hpp). Agents do the same on their machines.
  {
    std::error_code ec;
    std::filesystem::create_directories(job_dir_base(), ec);
  }
  remove_stale_job_dirs(job_dir_base());
  auto job_dir = JobDirHold::take(config.tmpdir);
  if (!job_dir) return early_failure(job_dir.error(), events);
  Supervisor supervisor(io, std::move(config), *starter, events, output);
  const int code = supervisor.run();
  // As the job ends, the mapping blocks Open MPI's help aggregation held back (mpirun 4.1.4
  // prints these lines at its end, or after 5 s of a longer job).
  std::fputs(aggregation_lines(deprecated.held_back, short_host_name(machine.hostname), ::getpid())
                 .c_str(),
             stderr);
  return code;
}

}  // namespace mpilaunch::launcher
