#include "launcher/cli/options.hpp"

#include "common/mca_params.hpp"
#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {
Error bad_option(std::string detail) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(detail)};
}

OptionSpec ignored(std::vector<std::string_view> names, int arity, std::string_view why) {
  return OptionSpec{.names = std::move(names),
                    .arity = arity,
                    .apply = {},
                    .answer = OptionAnswer::Ignored,
                    .why = why};
}

OptionSpec refused(std::vector<std::string_view> names, int arity, std::string_view why) {
  return OptionSpec{.names = std::move(names),
                    .arity = arity,
                    .apply = {},
                    .answer = OptionAnswer::Refused,
                    .why = why};
}

OptionSpec passes(std::string_view mca, OptionSpec spec) {
  spec.mca = mca;
  return spec;
}

Status set_flag(bool& flag) {
  flag = true;
  return {};
}

Result<int> positive_int(std::string_view option, std::string_view text, int max) {
  const auto value = parse_int<long long>(text);
  // Digits alone that do not fit even a long long are too large, not malformed.
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == text.npos;
  if (!value && !digits)
    return bad_option(mpilaunch::format("{} needs a whole number, not '{}'", option, text));
  if (value && *value < 1)
    return bad_option(mpilaunch::format("{} {}: the value must be at least 1", option, text));
  if (!value || *value > max)
    return bad_option(mpilaunch::format("{} {} is too large: at most {}", option, text, max));
  return static_cast<int>(*value);
}

Result<double> seconds(std::string_view option, std::string_view text) {
  double v = -1;
  try {
    std::size_t used = 0;
    v = std::stod(std::string(text), &used);
    if (used != text.size()) v = -1;
  } catch (const std::exception&) {
    v = -1;
  }
  if (!(v >= 0))  // also NaN
    return bad_option(mpilaunch::format("{} needs a number of seconds, not '{}'", option, text));
  if (v > kMaxSeconds)
    return bad_option(mpilaunch::format("{} {} is too large: at most {:.0f} seconds (one year)",
                                        option, text, kMaxSeconds));
  return v;
}

namespace {

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = [] {
    std::vector<OptionSpec> t;
    add_mapping_options(t);
    add_host_options(t);
    add_environment_options(t);
    add_output_options(t);
    add_fault_options(t);
    add_debugging_options(t);
    add_compat_options(t);
    return t;
  }();
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

namespace {

Error unknown_option(const std::string& arg, const std::string& name) {
  const std::string suggestion = suggest_option(name);
  return bad_option(
      suggestion.empty()
          ? mpilaunch::format("unknown option '{}'", arg)
          : mpilaunch::format("unknown option '{}' (did you mean '{}'?)", arg, suggestion));
}

}  // namespace

namespace {

// Parses options from args[i] on into `o`, up to the program (or "--"), and returns the index
// of the program's first word; args.size() when none. Stops early for --help.
Result<std::size_t> parse_option_words(Options& o, const std::vector<std::string>& args,
                                       std::size_t i) {
  std::vector<std::string> mca_names;  // this context's --mca/-mca names (not --gmca's)
  while (i < args.size()) {
    const std::string& arg = args[i];
    if (arg == "--") return i + 1;
    if (arg.size() < 2 || arg[0] != '-') return i;  // the program (or ':')
    std::string name = arg;
    std::optional<std::string> attached;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      name = arg.substr(0, eq);
      attached = arg.substr(eq + 1);
    }
    // Every spelling mpirun has is in the table, single-dash long ones included, so an exact
    // match comes first: -npersocket is never -n with the value "persocket".
    const OptionSpec* spec = find_option(name);
    bool short_attached = false;
    // Short options with the value attached: -n4, -Hnode1.
    if (spec == nullptr && !arg.starts_with("--") && arg.size() > 2) {
      const OptionSpec* short_spec = find_option(arg.substr(0, 2));
      if (short_spec != nullptr && short_spec->arity == 1 &&
          short_spec->answer == OptionAnswer::Works) {
        spec = short_spec;
        name = arg.substr(0, 2);
        attached = arg.substr(2);
        short_attached = true;
      }
    }
    if (spec == nullptr) return unknown_option(arg, name);
    if (spec->answer == OptionAnswer::Refused)
      return bad_option(mpilaunch::format("{} is not supported: {}", name, spec->why));
    Values values;
    if (attached) {
      if (spec->arity != 1)
        return bad_option(mpilaunch::format("option '{}' takes no '=' value", name));
      values.push_back(*attached);
    }
    while (static_cast<int>(values.size()) < spec->arity) {
      if (++i >= args.size())
        return bad_option(mpilaunch::format("option '{}' needs {} value{}", name, spec->arity,
                                            spec->arity > 1 ? "s" : ""));
      values.push_back(args[i]);
    }
    // mpirun 4.1.4 refuses an MCA parameter given twice with --mca/-mca in one context
    // (measured: "MCA parameters can only be listed once on a command line", exit 1); with
    // --gmca, or once in each of two contexts, it runs.
    if (name == "--mca" || name == "-mca") {
      if (std::find(mca_names.begin(), mca_names.end(), values[0]) != mca_names.end())
        return bad_option(mpilaunch::format(
            "--mca {}: the parameter is given twice; give it once (mpirun 4.1.4 refuses it too: "
            "MCA parameters can only be listed once on a command line)",
            values[0]));
      mca_names.emplace_back(values[0]);
    }
    if (spec->answer == OptionAnswer::Ignored) {
      o.ignored.push_back(name);
    } else if (Status st = spec->apply(o, values); !st) {
      // "-nopersist" is an unknown option, not -n with a bad value.
      if (short_attached && std::isalpha(static_cast<unsigned char>(attached->front())) != 0)
        return unknown_option(arg, arg);
      return st.error();
    }
    if (!spec->mca.empty()) {  // also for an option without effect here (mpirun passes it)
      // The last one counts, as under mpirun (measured: --bind-to core --bind-to none gives
      // the ranks none).
      std::erase_if(o.option_mca, [&](const auto& kv) { return kv.first == spec->mca; });
      o.option_mca.emplace_back(spec->mca, spec->arity == 0 ? "1" : values[0]);
    }
    ++i;
    if (o.help) {  // "--help TOPIC": an option, "errors" or "exit-codes"
      if (i < args.size()) o.help_topic = args[i];
      return args.size();
    }
  }
  return i;
}

// The options of one context go into `o`; this takes them out again, leaving `o` with the
// job-wide options only, ready for the next context's words.
AppOptions take_context(Options& o, std::vector<std::string> program) {
  AppOptions app{o.np,
                 std::move(o.hosts),
                 std::move(o.exports),
                 std::move(o.wdir),
                 std::move(program),
                 std::move(o.context_hostfile),
                 o.exec_path,
                 o.path_given};
  o.path_given = false;  // o.exec_path stays in effect for the next contexts, as in mpirun
  o.np.reset();
  o.hosts.clear();
  o.exports.clear();
  o.wdir.clear();
  o.context_hostfile.clear();
  return app;
}

// The first context's values back into the fields every single-program path reads; -H of
// every context merged (they are the job's hosts, as under mpirun); the first context's host
// file (else a later one's) is the job's.
void set_first_context(Options& o, std::vector<AppOptions> contexts) {
  o.contexts = std::move(contexts);
  const AppOptions& first = o.contexts.front();
  o.np = first.np;
  o.exports = first.exports;
  o.wdir = first.wdir;
  o.program = first.program;
  o.hosts.clear();
  for (const AppOptions& app : o.contexts) {
    o.hosts.insert(o.hosts.end(), app.hosts.begin(), app.hosts.end());
    if (o.hostfile.empty()) o.hostfile = app.hostfile;
  }
}

// What mpirun 4.1.4 takes from the first application context only. Given with a later one
// (measured: `-n 1 ./a : -n 1 --tag-output ./b`), these options change nothing in what mpirun
// prints, writes or reads for any rank; that context's ranks get their MCA parameter, and
// --report-bindings makes their own Open MPI print each one's binding.
struct FirstContextOnly {
  bool tag_output = false;
  bool timestamp_output = false;
  std::string output_filename;
  std::string stdin_target;
  bool merge_stderr_to_stdout = false;
  bool report_bindings = false;
  bool display_map = false;
  bool display_diffable_map = false;
  bool display_allocation = false;

  static FirstContextOnly of(const Options& o) {
    return {o.tag_output,   o.timestamp_output,       o.output_filename,
            o.stdin_target, o.merge_stderr_to_stdout, o.report_bindings,
            o.display_map,  o.display_diffable_map,   o.display_allocation};
  }
  void restore(Options& o) const {
    o.tag_output = tag_output;
    o.timestamp_output = timestamp_output;
    o.output_filename = output_filename;
    o.stdin_target = stdin_target;
    o.merge_stderr_to_stdout = merge_stderr_to_stdout;
    o.report_bindings = report_bindings;
    o.display_map = display_map;
    o.display_diffable_map = display_diffable_map;
    o.display_allocation = display_allocation;
  }
};

// Placement options mpirun 4.1.4 ignores after the first program (measured, with a later MPMD
// context and on any appfile line, the first included): a rank's CPUs, the slots and the
// mapping stay as the command line's say. Their MCA parameters still reach the context's ranks.
struct IgnoredAfterFirst {
  std::string ppr;
  std::string cpus_per_proc;
  bool use_hwthread_cpus = false;
  std::string cpu_list;
  std::string cpu_set;

  static IgnoredAfterFirst of(const Options& o) {
    return {o.ppr, o.cpus_per_proc, o.use_hwthread_cpus, o.cpu_list, o.cpu_set};
  }
  // Back to what they were, a warning for each the context changed.
  void restore(Options& o, std::string_view where) const {
    auto ignore = [&](std::string_view option, std::string_view value) {
      o.ignored_options.push_back(mpilaunch::format(
          "{}{}{} ({}): ignored, as mpirun 4.1.4 ignores it after the first program; give it "
          "before the first program (with --app: on the command line)",
          option, value.empty() ? "" : " ", value, where));
    };
    if (o.ppr != ppr) ignore("--ppr", o.ppr);
    if (o.cpus_per_proc != cpus_per_proc) ignore("--cpus-per-proc", o.cpus_per_proc);
    if (o.use_hwthread_cpus != use_hwthread_cpus) ignore("--use-hwthread-cpus", "");
    if (o.cpu_list != cpu_list) ignore("--cpu-list", o.cpu_list);
    if (o.cpu_set != cpu_set) ignore("--cpu-set", o.cpu_set);
    o.ppr = ppr;
    o.cpus_per_proc = cpus_per_proc;
    o.use_hwthread_cpus = use_hwthread_cpus;
    o.cpu_list = cpu_list;
    o.cpu_set = cpu_set;
  }
};

// The words of a later context (after the first program, or an appfile line) into `o`: its
// options' job-wide effects as mpirun 4.1.4 has them (--oversubscribe, --npernode and
// --npersocket change the whole job wherever they stand; --map-by, --rank-by and --bind-to
// count from the last context only: the caller resets them before each; the
// first-context-only ones above and IgnoredAfterFirst's nothing), their MCA parameters into
// `context_mca` (that context's ranks only) rather than the job's. `where` names the context in
// warnings; a --prefix counts only when `may_set_prefix` (an appfile's first line) and none
// was given before.
Result<std::size_t> parse_later_context_words(
    Options& o, const std::vector<std::string>& args, std::size_t i,
    std::vector<std::pair<std::string, std::string>>& context_mca, std::string_view where,
    bool may_set_prefix = false) {
  const FirstContextOnly first = FirstContextOnly::of(o);
  const IgnoredAfterFirst placement = IgnoredAfterFirst::of(o);
  const bool had_prefix = !o.prefix.empty();
  auto job_mca = std::exchange(o.option_mca, {});
  o.report_bindings = false;
  auto start = parse_option_words(o, args, i);
  if (!start) return start;
  placement.restore(o, where);
  if (!had_prefix && !may_set_prefix && !o.prefix.empty()) {
    // mpirun 4.1.4 (measured): a --prefix first given with a later context reaches no rank.
    o.ignored_options.push_back(mpilaunch::format(
        "--prefix {} ({}): ignored, as mpirun 4.1.4 takes --prefix from before the first "
        "program only (with --app: the command line or the first line)",
        o.prefix, where));
    o.prefix.clear();
  }
  if (o.report_bindings) {  // not an option_mca: the launcher sets it for unbound ranks itself
    std::erase_if(o.option_mca,
                  [](const auto& kv) { return kv.first == "hwloc_base_report_bindings"; });
    o.option_mca.emplace_back("hwloc_base_report_bindings", "1");
  }
  context_mca = std::exchange(o.option_mca, std::move(job_mca));
  first.restore(o);
  return start;
}

// mpirun 4.1.4 (measured) ignores --mca/--gmca given after the first program (with a later
// MPMD context) or on an appfile line: no rank gets it and mpirun itself does not apply it.
// Ignored here too, named in `ignored_mca` for a warning; `first_new` is the index of the first
// pair the context added.
void ignore_mca_of_later_context(Options& o, std::size_t first_new, std::string_view where) {
  if (o.mca.size() <= first_new) return;
  for (std::size_t i = first_new; i < o.mca.size(); ++i)
    o.ignored_mca.push_back(
        mpilaunch::format("{} {} ({})", o.mca[i].first, o.mca[i].second, where));
  o.mca.resize(first_new);
}

// A line's words, split at blanks with no quote processing, as mpirun 4.1.4 reads appfiles.
std::vector<std::string> blank_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t from = line.find_first_not_of(" \t\r\f\v", at);
    if (from == std::string_view::npos) break;
    const std::size_t to = std::min(line.size(), line.find_first_of(" \t\r\f\v", from));
    words.emplace_back(line.substr(from, to - from));
    at = to;
  }
  return words;
}

void finish(Options& o) {
  if (o.hostfile.empty()) o.hostfile = o.default_hostfile;
  if (o.disable_recovery) o.max_restarts = 0;
  const OversubscribeSources& s = o.oversubscribe_sources;
  o.oversubscribe = oversubscribe_allowed(s, s.map_by_first, s.modifier, false);
}

// --map-by, --rank-by and --bind-to as mpirun 4.1.4 has them with several contexts (measured
// with MPMD and appfiles): each later context starts again from the values given before the
// first program (with --app: on the command line), so the last context's count and a middle
// one's change nothing; so does --map-by's :(NO)OVERSUBSCRIBE (measured: `-n 1 P : -n 1
// --map-by slot:OVERSUBSCRIBE P : -n 1 P` on 2 slots is refused). --oversubscribe is weighed
// by oversubscribe_allowed().
struct LastContextCounts {
  MapBy map_by = MapBy::Slot;
  std::string map_by_text;
  std::string rank_by;
  std::string bind_to;
  std::optional<bool> modifier;

  static LastContextCounts of(const Options& o) {
    return {o.map_by, o.map_by_text, o.rank_by, o.bind_to, o.oversubscribe_sources.modifier};
  }
  // Before a later context: the first context's values, and nothing of this context given yet.
  void restore(Options& o) const {
    o.map_by = map_by;
    o.map_by_text = map_by_text;
    o.rank_by = rank_by;
    o.bind_to = bind_to;
    OversubscribeSources& s = o.oversubscribe_sources;
    s.modifier = modifier;
    s.flag = s.no_flag = s.map_by = false;
  }
};

// After a later context: its --oversubscribe counts for the job, its --map-by only if it is the
// last context's.
void end_later_context(Options& o) {
  OversubscribeSources& s = o.oversubscribe_sources;
  s.flag_later = s.flag_later || s.flag;
  s.map_by_last = s.map_by;
}

Status conflicting_directives(std::string_view first, std::string_view second) {
  return bad_option(conflicting_directives_text(first, second));
}

// mpirun 4.1.4 refuses an oversubscribe directive with a no-oversubscribe one before the first
// program, whatever -n (measured: --oversubscribe, --mca rmaps_base_oversubscribe 1 or --map-by
// X:OVERSUBSCRIBE with --map-by X:NOOVERSUBSCRIBE or --nooversubscribe: "Conflicting directives
// for mapping policy are causing the policy to be redefined", exit 1). Also sets the first
// context's sources.
Status end_first_context(Options& o) {
  OversubscribeSources& s = o.oversubscribe_sources;
  s.flag_first = s.flag;
  s.no_flag_first = s.no_flag;
  s.map_by_first = s.map_by;
  // Two of --byslot, --bycore and --bynode likewise (measured: --bynode --byslot, exit 1).
  for (const std::string& by : o.by_options)
    if (by != o.by_options.front())
      return conflicting_directives(o.by_options.front(), by + " (use --map-by)");
  bool mca_yes = false;
  for (const auto& [name, value] : o.mca)
    if (name == "rmaps_base_oversubscribe") mca_yes = mca_bool(value).value_or(false);
  const std::string map_by = "--map-by " + o.map_by_text;
  const std::string yes = s.flag                       ? "--oversubscribe"
                          : mca_yes                    ? "--mca rmaps_base_oversubscribe 1"
                          : s.modifier.value_or(false) ? map_by
                                                       : "";
  const std::string no = !s.modifier.value_or(true) ? map_by : s.no_flag ? "--nooversubscribe" : "";
  if (!yes.empty() && !no.empty()) return conflicting_directives(yes, no);
  return {};
}

}  // namespace

std::string conflicting_directives_text(std::string_view first, std::string_view second) {
  return mpilaunch::format(
      "conflicting directives for the mapping policy: {} and {} (mpirun 4.1.4 refuses them: "
      "\"Conflicting directives for mapping policy\"); give one of them",
      first, second);
}

bool oversubscribe_flag_counts(const OversubscribeSources& s, bool policy_first) {
  return s.flag_first || (s.flag_later && (s.map_by_last || !policy_first));
}

bool oversubscribe_allowed(const OversubscribeSources& s, bool policy_first,
                           std::optional<bool> modifier, bool mca_yes) {
  return oversubscribe_flag_counts(s, policy_first) || modifier.value_or(mca_yes);
}

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  std::vector<AppOptions> contexts;
  LastContextCounts before_first;
  std::size_t job_mca = 0;  // the --mca pairs before the first program
  std::size_t i = 0;
  for (;;) {
    std::vector<std::pair<std::string, std::string>> context_mca;
    const std::string where = mpilaunch::format("with application context {}", contexts.size() + 1);
    if (!contexts.empty()) before_first.restore(o);
    auto start = contexts.empty() ? parse_option_words(o, args, i)
                                  : parse_later_context_words(o, args, i, context_mca, where);
    if (!start) return start.error();
    if (o.help) return o;
    if (contexts.empty()) {
      if (Status conflict = end_first_context(o); !conflict) return conflict.error();
      before_first = LastContextCounts::of(o);
      job_mca = o.mca.size();
    } else {
      end_later_context(o);
    }
    ignore_mca_of_later_context(o, job_mca, where);
    // mpirun reads a lone ':' as the start of another application context (MPMD).
    const auto colon = std::find(args.begin() + static_cast<std::ptrdiff_t>(start.value()),
                                 args.end(), std::string(":"));
    std::vector<std::string> program(args.begin() + static_cast<std::ptrdiff_t>(start.value()),
                                     colon);
    const bool more = colon != args.end();
    if (program.empty() && (more || !contexts.empty()))
      return bad_option(mpilaunch::format(
          "application context {} has no program: each ':' separates two contexts, each with "
          "its options and program (mpilaunch -n 1 ./a : -n 2 ./b)",
          contexts.size() + 1));
    contexts.push_back(take_context(o, std::move(program)));
    contexts.back().option_mca = std::move(context_mca);
    if (!more) break;
    i = static_cast<std::size_t>(colon - args.begin()) + 1;
  }
  set_first_context(o, std::move(contexts));
  if (o.version) return o;
  if (!o.appfile.empty()) {
    finish(o);
    return o;  // apply_appfile() reads the contexts
  }
  if (o.program.empty())
    return bad_option("no program to run was given: mpilaunch [options] PROGRAM [ARGS...]");
  finish(o);
  return o;
}

Result<Options> apply_appfile(const Options& command_line, std::string_view text,
                              std::string_view path) {
  Options o = command_line;
  // mpirun 4.1.4 runs the appfile's contexts only: the command line's -n, -x, --wdir and
  // program are not used.
  o.np.reset();
  o.exports.clear();
  o.wdir.clear();
  o.program.clear();
  // Nor its --path (measured: a program only there is not found for an appfile line).
  o.exec_path.clear();
  o.path_given = false;
  // Nor its -H and --hostfile (measured: the lines run where they would without them; the
  // lines' own count, as do --default-hostfile and a resource manager's hosts).
  const std::string command_line_hostfile =
      command_line.contexts.empty() ? std::string() : command_line.contexts.front().hostfile;
  for (const std::string& value : command_line.hosts)
    o.ignored_options.push_back(mpilaunch::format(
        "-H {}: ignored, as mpirun 4.1.4 ignores the command line's -H with --app; give it on "
        "the appfile's lines",
        value));
  if (!command_line_hostfile.empty())
    o.ignored_options.push_back(mpilaunch::format(
        "--hostfile {}: ignored, as mpirun 4.1.4 ignores the command line's --hostfile with "
        "--app; give it on the appfile's lines (or give --default-hostfile)",
        command_line_hostfile));
  o.hostfile.clear();
  o.contexts.clear();
  o.hosts.clear();
  std::vector<AppOptions> contexts;
  const LastContextCounts command_line_placement = LastContextCounts::of(command_line);
  for (const ContentLine& content : content_lines(text)) {
    const int line_number = content.number;
    const std::string_view line = content.text;
    std::vector<std::string> words = blank_words(line);
    auto where = [&](const Error& e) {
      return bad_option(mpilaunch::format("--app {}, line {}: {}", path, line_number, e.detail));
    };
    // mpirun 4.1.4 (measured): a line's output options (--tag-output, --report-bindings, ...)
    // change nothing, even on the first line; the first line's MCA parameters reach every rank,
    // a later line's only that line's ranks.
    std::vector<std::pair<std::string, std::string>> line_mca;
    // mpirun 4.1.4 (measured) maps, ranks and binds the job as the command line's --map-by,
    // --rank-by and --bind-to say, overridden by the LAST line's only: `-n 1 --bind-to none P`
    // then `-n 1 P` binds both ranks (an --oversubscribe, --npernode or --npersocket on any line
    // holds, though); a line's --cpu-list, --cpu-set, --cpus-per-proc, --ppr or
    // --use-hwthread-cpus changes nothing, on any line. The MCA parameters still go as above.
    command_line_placement.restore(o);
    auto start = parse_later_context_words(
        o, words, 0, line_mca, mpilaunch::format("on line {} of --app {}", line_number, path),
        contexts.empty());
    if (!start) return where(start.error());
    end_later_context(o);
    if (o.help || o.version || o.appfile != command_line.appfile)
      return bad_option(mpilaunch::format(
          "--app {}, line {}: --help, --version and --app do not belong in an appfile", path,
          line_number));
    ignore_mca_of_later_context(o, command_line.mca.size(),
                                mpilaunch::format("on line {} of --app {}", line_number, path));
    std::vector<std::string> program(words.begin() + static_cast<std::ptrdiff_t>(start.value()),
                                     words.end());
    if (std::find(program.begin(), program.end(), ":") != program.end())
      return bad_option(mpilaunch::format(
          "--app {}, line {}: ':' does not separate contexts in an appfile: give each context "
          "its own line",
          path, line_number));
    if (program.empty())
      return bad_option(
          mpilaunch::format("--app {}, line {}: no program on the line", path, line_number));
    if (contexts.empty()) {
      for (auto& line_kv : line_mca) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const std::string& key = line_kv.first;
        std::erase_if(o.option_mca, [&](const auto& kv) { return kv.first == key; });
        o.option_mca.push_back(std::move(line_kv));
      }
      line_mca.clear();
    }
    contexts.push_back(take_context(o, std::move(program)));
    contexts.back().option_mca = std::move(line_mca);
  }
  if (contexts.empty())
    return bad_option(mpilaunch::format(
        "--app {}: the appfile has no program (one context per line: [options] PROGRAM "
        "[ARGS...])",
        path));
  set_first_context(o, std::move(contexts));  // the job's host file: a line's, else finish()'s
  finish(o);
  return o;
}

Result<Options> apply_tune(const Options& command_line, const std::vector<TuneFile>& files) {
  Options o = command_line;
  std::vector<std::string> names;  // exported by an earlier file: the first file wins
  std::vector<std::string> exports;
  for (const TuneFile& file : files) {
    TuneFileSettings settings = read_tune_file(file.text);
    for (const std::string& x : settings.exports) {
      const std::string name = x.substr(0, x.find('='));
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
        exports.push_back(x);
      }
    }
    o.tune_mca.insert(o.tune_mca.end(), settings.mca.begin(), settings.mca.end());
    // mpirun 4.1.4 says "keyval parser: error N reading file F at line L" and runs (measured).
    for (const KeyvalSkip& skip : settings.skipped)
      o.ignored_options.push_back(mpilaunch::format(
          "--tune {}, line {}: {} skipped, as mpirun 4.1.4's parser skips it (a --tune file "
          "holds -x NAME[=VALUE], --mca NAME VALUE and NAME = VALUE)",
          file.path, skip.line,
          skip.text.empty() ? std::string("the end of a line")
                            : mpilaunch::format("'{}'", skip.text)));
  }
  // A -x of the command line (or of the context) wins over the file's.
  auto add_to = [&](std::vector<std::string>& context_exports) {
    for (const std::string& x : exports) {
      const std::string name = x.substr(0, x.find('='));
      const bool given = std::any_of(
          context_exports.begin(), context_exports.end(),
          [&](const std::string& have) { return have.substr(0, have.find('=')) == name; });
      if (!given) context_exports.push_back(x);
    }
  };
  add_to(o.exports);
  for (AppOptions& context : o.contexts) add_to(context.exports);
  return o;
}

std::string cpu_list_of(const Options& o) {
  return o.cpu_list.empty() ? o.cpu_set : o.cpu_list;
}

Status unsupported_options(const Options& o) {
  auto refuse = [](std::string_view option, std::string_view what) -> Status {
    return bad_option(mpilaunch::format("{} is not supported yet: {}", option, what));
  };
  // --map-by, --rank-by, --bind-to, --cpus-per-proc, --use-hwthread-cpus, --report-bindings
  // and --display-map act (common/placement.hpp): their values are checked here (--ppr's by
  // make_plan, which turns it into --map-by ppr:X).
  if (auto p = parse_placement(PlacementOptions{.map_by = o.map_by_text,
                                                .rank_by = o.rank_by,
                                                .bind_to = o.bind_to,
                                                .report_bindings = false,
                                                .display_map = false,
                                                .use_hwthread_cpus = false,
                                                .cpus_per_proc = std::nullopt,
                                                .cpu_list = cpu_list_of(o)});
      !p)
    return p.error();
  if (o.display_devel_map)
    return refuse("--display-devel-map",
                  "--display-map or --display-diffable-map print the map, --dry-run the plan");
  return {};
}

const OptionInfo* find_option_info(const std::vector<OptionInfo>& infos,
                                   std::string_view spelling) {
  for (const OptionInfo& info : infos)
    if (std::find(info.names.begin(), info.names.end(), spelling) != info.names.end()) return &info;
  return nullptr;
}

std::vector<OptionInfo> option_infos() {
  std::vector<OptionInfo> out;
  for (const OptionSpec& spec : option_table())
    out.push_back({spec.names, spec.arity, spec.answer, spec.why});
  return out;
}

}  // namespace mpilaunch::launcher
