#include "launcher/cli/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>

namespace mpilaunch::launcher {
Error bad_option(std::string detail) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(detail)};
}

namespace {

Result<int> positive_int(std::string_view option, std::string_view text) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return bad_option(fmt::format("{} needs a whole number, not '{}'", option, text));
  if (value < 1)
    return bad_option(fmt::format("{} {}: the value must be at least 1", option, text));
  return value;
}

Result<double> seconds(std::string_view option, std::string_view text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(std::string(text), &used);
    if (used != text.size() || !(v >= 0)) throw std::invalid_argument("bad");
    return v;
  } catch (const std::exception&) {
    return bad_option(fmt::format("{} needs a number of seconds, not '{}'", option, text));
  }
}

using Values = std::vector<std::string_view>;
using Handler = std::function<Status(Options&, const Values&)>;

struct OptionSpec {
  std::vector<std::string_view> names;  // every accepted spelling, dashes included
  int arity;                            // number of values it takes
  Handler apply;
};

Status set_flag(bool& flag) {
  flag = true;
  return {};
}

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = {
      {{"-n", "-np", "--np", "-c"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto n = positive_int("-n", v[0]);
         if (!n) return n.error();
         o.np = n.value();
         return {};
       }},
      {{"-N", "--npernode", "-npernode"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto n = positive_int("-N", v[0]);
         if (!n) return n.error();
         o.per_node = n.value();
         return {};
       }},
      {{"--map-by", "-map-by"},
       1,
       [](Options& o, const Values& v) -> Status {
         std::string policy(v[0]);
         std::transform(policy.begin(), policy.end(), policy.begin(), ::tolower);
         // Open MPI allows modifiers after a colon: slot:OVERSUBSCRIBE.
         const auto colon = policy.find(':');
         const std::string base = policy.substr(0, colon);
         if (colon != std::string::npos && policy.substr(colon + 1) == "oversubscribe")
           o.oversubscribe = true;
         if (base == "slot" || base == "core" || base.empty()) {
           o.map_by = MapBy::Slot;
         } else if (base == "node") {
           o.map_by = MapBy::Node;
         } else {
           return bad_option(fmt::format("--map-by {}: the policy must be 'slot' or 'node'", v[0]));
         }
         return {};
       }},
      {{"--oversubscribe", "-oversubscribe"},
       0,
       [](Options& o, const Values&) { return set_flag(o.oversubscribe); }},
      {{"-H", "--host", "-host"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.hosts.emplace_back(v[0]);
         return {};
       }},
      {{"--hostfile", "-hostfile", "--machinefile", "-machinefile", "-f"},
       1,
       [](Options& o, const Values& v) -> Status {
         if (!o.hostfile.empty())
           return bad_option("--hostfile was given twice; give one host file");
         o.hostfile = std::string(v[0]);
         return {};
       }},
      {{"--launcher", "-launcher"},
       1,
       [](Options& o, const Values& v) -> Status {
         if (v[0] == "local") {
           o.launcher = LauncherKind::Local;
         } else if (v[0] == "ssh" || v[0] == "rsh") {
           o.launcher = LauncherKind::Ssh;
         } else if (v[0] == "srun" || v[0] == "slurm") {
           o.launcher = LauncherKind::Srun;
         } else {
           return bad_option(fmt::format("--launcher={}: choose 'local', 'ssh' or 'srun'", v[0]));
         }
         return {};
       }},
      {{"--deploy-agent"},
       1,
       [](Options& o, const Values& v) -> Status {
         const auto mode = parse_deploy_mode(v[0]);
         if (!mode)
           return bad_option(
               fmt::format("--deploy-agent={}: choose 'auto', 'always' or 'never'", v[0]));
         o.deploy_agent = *mode;
         return {};
       }},
      {{"--agent-path"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.agent_path = std::string(v[0]);
         return {};
       }},
      {{"--ssh-config", "-F"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.ssh_config = std::string(v[0]);
         return {};
       }},
      {{"--connect-timeout"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto s = seconds("--connect-timeout", v[0]);
         if (!s) return s.error();
         if (s.value() <= 0) return bad_option("--connect-timeout must be more than 0 seconds");
         o.connect_timeout_seconds = s.value();
         return {};
       }},
      {{"--wait-for-hosts"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto s = seconds("--wait-for-hosts", v[0]);
         if (!s) return s.error();
         if (s.value() < 0) return bad_option("--wait-for-hosts must be 0 or more seconds");
         o.wait_for_hosts_seconds = s.value();
         return {};
       }},
      {{"--ssh-fanout"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto n = positive_int("--ssh-fanout", v[0]);
         if (!n) return n.error();
         o.ssh_fanout = n.value();
         return {};
       }},
      {{"-x"},
       1,
       [](Options& o, const Values& v) -> Status {
         if (v[0].empty() || v[0][0] == '=')
           return bad_option(fmt::format("-x '{}': give NAME or NAME=value", v[0]));
         o.exports.emplace_back(v[0]);
         return {};
       }},
      {{"--mca", "-mca", "--gmca", "-gmca"},
       2,
       [](Options& o, const Values& v) -> Status {
         if (v[0].empty()) return bad_option("--mca needs a parameter name and a value");
         o.mca.emplace_back(std::string(v[0]), std::string(v[1]));
         return {};
       }},
      {{"--pmi", "-pmi"},
       1,
       [](Options& o, const Values& v) -> Status {
         if (v[0] == "auto") {
           o.pmi = PmiKind::Auto;
         } else if (v[0] == "pmix") {
           o.pmi = PmiKind::Pmix;
         } else if (v[0] == "pmi1" || v[0] == "pmi") {
           o.pmi = PmiKind::Pmi1;
         } else if (v[0] == "pmi2") {
           o.pmi = PmiKind::Pmi2;
         } else {
           return bad_option(fmt::format(
               "--pmi={}: choose 'auto', 'pmix' (Open MPI), 'pmi1' or 'pmi2' (MPICH)", v[0]));
         }
         return {};
       }},
      {{"--wdir", "-wdir", "--wd", "-wd"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.wdir = std::string(v[0]);
         return {};
       }},
      {{"--tag-output", "-tag-output"},
       0,
       [](Options& o, const Values&) { return set_flag(o.tag_output); }},
      {{"--timestamp-output", "-timestamp-output"},
       0,
       [](Options& o, const Values&) { return set_flag(o.timestamp_output); }},
      {{"--output-filename", "-output-filename"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.output_filename = std::string(v[0]);
         return {};
       }},
      {{"--timeout", "-timeout"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto s = seconds("--timeout", v[0]);
         if (!s) return s.error();
         if (s.value() <= 0) return bad_option("--timeout must be more than 0 seconds");
         o.timeout_seconds = s.value();
         return {};
       }},
      {{"--report-state-on-timeout", "-report-state-on-timeout"},
       0,
       [](Options& o, const Values&) { return set_flag(o.report_state_on_timeout); }},
      {{"--wireup-timeout"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto s = seconds("--wireup-timeout", v[0]);
         if (!s) return s.error();
         if (s.value() <= 0) return bad_option("--wireup-timeout must be more than 0 seconds");
         o.wireup_timeout_seconds = s.value();
         return {};
       }},
      {{"--kill-grace"},
       1,
       [](Options& o, const Values& v) -> Status {
         auto s = seconds("--kill-grace", v[0]);
         if (!s) return s.error();
         o.kill_grace_seconds = s.value();
         return {};
       }},
      {{"--max-restarts", "-max-restarts"},
       1,
       [](Options& o, const Values& v) -> Status {
         int n = -1;
         const auto [p, ec] = std::from_chars(v[0].data(), v[0].data() + v[0].size(), n);
         if (ec != std::errc() || p != v[0].data() + v[0].size() || n < 0)
           return bad_option(
               fmt::format("--max-restarts needs a whole number of at least 0, not '{}'", v[0]));
         o.max_restarts = n;
         return {};
       }},
      {{"--enable-recovery", "-enable-recovery"},
       0,
       [](Options& o, const Values&) { return set_flag(o.enable_recovery); }},
      {{"--restart-on"},
       1,
       [](Options& o, const Values& v) -> Status {
         std::string_view rest = v[0];
         while (!rest.empty()) {
           const auto comma = rest.find(',');
           const std::string_view name = rest.substr(0, comma);
           const auto kind = kind_from_name(name);
           if (!kind)
             return bad_option(
                 fmt::format("--restart-on: '{}' is not an error kind (see 'mpilaunch --help' "
                             "and docs/errors.md)",
                             name));
           o.restart_on.push_back(*kind);
           if (comma == std::string_view::npos) break;
           rest.remove_prefix(comma + 1);
         }
         return {};
       }},
      {{"--restart-backoff"},
       1,
       [](Options& o, const Values& v) -> Status {
         // FIRST or FIRST,MAX in seconds.
         const std::string_view text = v[0];
         const auto comma = text.find(',');
         auto first = seconds("--restart-backoff", text.substr(0, comma));
         if (!first) return first.error();
         o.restart_backoff_seconds = first.value();
         if (comma != std::string_view::npos) {
           auto max = seconds("--restart-backoff", text.substr(comma + 1));
           if (!max) return max.error();
           if (max.value() < first.value())
             return bad_option("--restart-backoff FIRST,MAX: MAX must not be smaller than FIRST");
           o.restart_backoff_max_seconds = max.value();
         }
         return {};
       }},
      {{"--status"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.status_file = std::string(v[0]);
         return {};
       }},
      {{"--dry-run", "-dry-run"}, 0, [](Options& o, const Values&) { return set_flag(o.dry_run); }},
      {{"--events"},
       1,
       [](Options& o, const Values& v) -> Status {
         o.events_file = std::string(v[0]);
         return {};
       }},
      {{"--allow-run-as-root", "-allow-run-as-root"},
       0,
       [](Options& o, const Values&) { return set_flag(o.allow_run_as_root); }},
      {{"--refuse-root"}, 0, [](Options& o, const Values&) { return set_flag(o.refuse_root); }},
      {{"-h", "--help", "-help"}, 0, [](Options& o, const Values&) { return set_flag(o.help); }},
      {{"-V", "--version", "-version"},
       0,
       [](Options& o, const Values&) { return set_flag(o.version); }},
  };
  return table;
}

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& spec : option_table())
    if (std::find(spec.names.begin(), spec.names.end(), name) != spec.names.end()) return &spec;
  return nullptr;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string suggest_option(std::string_view unknown) {
  std::string best;
  std::size_t best_distance = 3;  // farther than two edits is no suggestion
  for (const OptionSpec& spec : option_table())
    for (std::string_view name : spec.names) {
      if (name.size() < 3) continue;
      const std::size_t d = edit_distance(unknown, name);
      if (d < best_distance) {
        best_distance = d;
        best = std::string(name);
      }
    }
  return best;
}

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  std::size_t i = 0;
  while (i < args.size()) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program
    std::string name = arg;
    std::optional<std::string> attached;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      name = arg.substr(0, eq);
      attached = arg.substr(eq + 1);
    }
    const OptionSpec* spec = find_option(name);
    // Short options with the value attached: -n4, -Hnode1.
    if (spec == nullptr && !arg.starts_with("--") && arg.size() > 2) {
      const OptionSpec* short_spec = find_option(arg.substr(0, 2));
      if (short_spec != nullptr && short_spec->arity == 1) {
        spec = short_spec;
        name = arg.substr(0, 2);
        attached = arg.substr(2);
      }
    }
    if (spec == nullptr) {
      const std::string suggestion = suggest_option(name);
      return bad_option(suggestion.empty() ? fmt::format("unknown option '{}'", arg)
                                           : fmt::format("unknown option '{}' (did you mean '{}'?)",
                                                         arg, suggestion));
    }
    Values values;
    if (attached) {
      if (spec->arity != 1) return bad_option(fmt::format("option '{}' takes no '=' value", name));
      values.push_back(*attached);
    }
    while (static_cast<int>(values.size()) < spec->arity) {
      if (++i >= args.size())
        return bad_option(fmt::format("option '{}' needs {} value{}", name, spec->arity,
                                      spec->arity > 1 ? "s" : ""));
      values.push_back(args[i]);
    }
    if (Status st = spec->apply(o, values); !st) return st.error();
    ++i;
    if (o.help) {  // "--help TOPIC": an option, "errors" or "exit-codes"
      if (i < args.size()) o.help_topic = args[i];
      return o;
    }
  }
  o.program.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (o.help || o.version) return o;
  if (o.program.empty())
    return bad_option("no program to run was given: mpilaunch [options] PROGRAM [ARGS...]");
  return o;
}

const OptionInfo* find_option_info(const std::vector<OptionInfo>& infos,
                                   std::string_view spelling) {
  for (const OptionInfo& info : infos)
    if (std::find(info.names.begin(), info.names.end(), spelling) != info.names.end()) return &info;
  return nullptr;
}

std::vector<OptionInfo> option_infos() {
  std::vector<OptionInfo> out;
  for (const OptionSpec& spec : option_table()) out.push_back({spec.names, spec.arity});
  return out;
}

}  // namespace mpilaunch::launcher
