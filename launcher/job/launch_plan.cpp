#include "launcher/job/launch_plan.hpp"

#include "common/app_contexts.hpp"
#include "common/mca_params.hpp"
#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>
#include <utility>

#include "launcher/hosts/host_option.hpp"
#include "launcher/start/srun_command.hpp"

namespace mpilaunch::launcher {

namespace {

// The host names a context's -H values give, in order (none without -H).
Result<std::vector<std::string>> host_names_of(const AppOptions& context) {
  std::vector<std::string> names;
  for (const std::string& value : context.hosts) {
    auto entries = parse_host_option(value);
    if (!entries) return entries.error();
    for (const HostEntry& e : entries.value()) names.push_back(e.name);
  }
  return names;
}

// MPMD: each context is mapped in turn by map_job, over its hosts (its -H, else all) with the
// slots the contexts before it left, and its ranks follow theirs: mpirun's order. A context
// without -n asks for every slot of its hosts, as under mpirun (so after another context it
// fits only with --oversubscribe). With ppr (-N, --npernode, ppr:N:OBJECT: request.per_node)
// each context is placed by map_ppr over its hosts with a free slot, N per node (per object
// with request.objects, one count per host) for that context alone, as mpirun 4.1.4 (measured on
// virtual nodes). Each context's np becomes the ranks it got.
Result<JobMap> map_contexts(const std::vector<NodeSlots>& hosts, const MapRequest& request,
                            std::vector<MapContext>& contexts) {
  std::vector<int> used(hosts.size(), 0);
  std::vector<int> host_of_rank;
  for (std::size_t c = 0; c < contexts.size(); ++c) {
    MapContext& context = contexts[c];
    const std::vector<std::string>& names = context.hosts;
    std::vector<std::size_t> eligible;
    std::vector<NodeSlots> free, mine;
    std::vector<int> mine_used;
    MapRequest context_request = request;
    context_request.np = context.np;
    context_request.objects.clear();
    int all_slots = 0;
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      if (!names.empty() && std::find(names.begin(), names.end(), hosts[h].name) == names.end())
        continue;
      eligible.push_back(h);
      const NodeSlots& host = hosts[h];
      free.push_back({host.name, std::max(0, host.slots - used[h]),
                      host.max_slots ? std::optional<int>(std::max(0, *host.max_slots - used[h]))
                                     : std::nullopt});
      mine.push_back(host);
      mine_used.push_back(used[h]);
      if (!request.objects.empty()) context_request.objects.push_back(request.objects[h]);
      all_slots += host.slots;
    }
    if (eligible.empty())
      return Error{.kind = ErrorKind::BadOption,
                   .executable = context.program,
                   .detail = mpilaunch::format(
                       "application context {}: none of its hosts ({}) is among the job's hosts",
                       c + 1, fmt::join(names, ","))};
    if (!context.np && !request.per_node) context_request.np = std::max(1, all_slots);
    Result<std::vector<int>> placed = std::vector<int>{};
    if (request.per_node) {
      placed = map_ppr(mine, mine_used, context_request);
      if (placed) *placed = rank_places(std::move(placed).value(), request.rank_by);
    } else if (auto map = map_job(free, context_request); map) {
      // map_job keeps the hosts with ranks only: back to indexes into `free`.
      for (int r = 0; r < map->size(); ++r)
        for (std::size_t i = 0; i < free.size(); ++i)
          if (free[i].name == map->node_name(map->node_of(r))) {
            placed->push_back(static_cast<int>(i));
            break;
          }
    } else {
      placed = map.error();
    }
    if (!placed) {
      Error e = placed.error();
      e.executable = context.program;
      if (contexts.size() > 1)
        e.detail =
            mpilaunch::format("application context {} ({}): {}", c + 1, e.executable, e.detail);
      return e;
    }
    for (const int i : placed.value()) {
      const std::size_t h = eligible[static_cast<std::size_t>(i)];
      host_of_rank.push_back(static_cast<int>(h));
      ++used[h];
    }
    context.np = static_cast<int>(placed->size());
  }
  std::vector<std::string> nodes;
  std::vector<int> node_of_host(hosts.size(), -1);
  for (std::size_t h = 0; h < hosts.size(); ++h)
    if (used[h] > 0) {
      node_of_host[h] = static_cast<int>(nodes.size());
      nodes.push_back(hosts[h].name);
    }
  std::vector<int> node_of_rank;
  for (const int h : host_of_rank)
    node_of_rank.push_back(node_of_host[static_cast<std::size_t>(h)]);
  return JobMap(std::move(nodes), std::move(node_of_rank));
}

// Each context's -n, hosts (its -H values' names) and program, for map_contexts.
Result<std::vector<MapContext>> map_contexts_of(const std::vector<AppOptions>& contexts) {
  std::vector<MapContext> out;
  for (const AppOptions& context : contexts) {
    auto named = host_names_of(context);
    if (!named) return named.error();
    out.push_back(
        {context.np, std::move(named).value(), context.program.empty() ? "" : context.program[0]});
  }
  return out;
}

// MPMD with host files (mpirun 4.1.4, measured): a context with a file runs only on the job's
// hosts its file names, a context with -H only on those; a context left with none of the job's
// hosts is refused as mpirun refuses it ("All nodes which are allocated for this job are already
// filled", exit 1). The job's hosts give the slots (HostRequest::context_hostfiles).
Status narrow_to_hostfiles(const HostList& hosts, const std::vector<HostEntry>& entries,
                           std::vector<AppOptions>& contexts) {
  for (std::size_t c = 0; c < contexts.size(); ++c) {
    AppOptions& context = contexts[c];
    if (context.hostfile.empty()) continue;  // its -H, else every host
    const std::vector<std::string>& in_file = hosts.hostfile_hosts.at(context.hostfile);
    auto named = host_names_of(context);
    if (!named) return named.error();
    const std::vector<std::string>& wanted = named.value();
    std::vector<std::string> allowed;
    for (const HostEntry& h : entries)
      if (std::find(in_file.begin(), in_file.end(), h.name) != in_file.end() &&
          (wanted.empty() || std::find(wanted.begin(), wanted.end(), h.name) != wanted.end()))
        allowed.push_back(h.name);
    if (allowed.empty())
      return Error{.kind = ErrorKind::BadOption,
                   .executable = context.program.empty() ? "" : context.program[0],
                   .detail = mpilaunch::format(
                       "application context {}: none of the job's hosts ({}) is in its host file "
                       "{}{}: all nodes which are allocated for this job are already filled, as "
                       "mpirun 4.1.4 says (with -H in any context, the -H hosts are the job's and "
                       "host files only pick among them)",
                       c + 1, hosts.source, context.hostfile, wanted.empty() ? "" : " and its -H")};
    context.hosts = std::move(allowed);
  }
  return {};
}

// Ranks placed by lines that each name a host: a rankfile's (rank N=HOST slot=CPUS) or, for the
// seq mapper, the -H words or host file lines in order (rank i on line i). `what` names the
// source in errors.
struct PlacementLines {
  std::vector<RankfileLine> lines;
  std::string what;
  bool rankfile = false;  // a rankfile: each rank also keeps its line's CPUs
};

// Every rank where its line puts it; the CPUs are bound once the agents have reported their
// nodes (common/placement.hpp). mpirun 4.1.4 needs a line for every rank of the job. With
// several application contexts (MPMD), each needs -n and the ranks follow one another through
// the lines; a context's own -H would be a second placement, and is refused.
Status place_by_lines(const PlacementLines& by, std::vector<HostEntry> entries,
                      std::vector<AppOptions>& contexts, LaunchPlan& plan) {
  const std::vector<RankfileLine>& lines = by.lines;
  int np = 0;
  if (contexts.size() == 1) {
    if (contexts[0].np.value_or(0) > 0) {
      np = *contexts[0].np;
    } else if (by.rankfile) {
      for (const RankfileLine& l : lines) np = std::max(np, l.rank + 1);
    } else {
      // mpirun's seq mapper without -n asks for every slot of the hosts.
      for (const HostEntry& e : entries) {
        if (e.count_cores)
          return Error{.kind = ErrorKind::BadOption,
                       .detail = mpilaunch::format(
                           "{} without -n: mpirun runs a process per slot, and {}'s slots are "
                           "its cores, more than its one line on a multi-core node; give -n "
                           "(at most {}, one process per line)",
                           by.what, e.name, lines.size())};
        np += e.slots;
      }
    }
    contexts[0].np = np;
  } else {
    for (std::size_t c = 0; c < contexts.size(); ++c) {
      if (!contexts[c].np || !contexts[c].hosts.empty())
        return Error{.kind = ErrorKind::BadOption,
                     .detail = mpilaunch::format(
                         "{} with several application contexts: context {} needs -n and no -H "
                         "of its own ({} places every rank)",
                         by.what, c + 1, by.rankfile ? "the rankfile" : "the host order")};
      np += *contexts[c].np;
    }
  }
  std::vector<const RankfileLine*> line_of(static_cast<std::size_t>(np), nullptr);
  for (const RankfileLine& l : lines)
    if (l.rank < np) line_of[static_cast<std::size_t>(l.rank)] = &l;
  for (int r = 0; r < np; ++r)
    if (line_of[static_cast<std::size_t>(r)] == nullptr)
      return Error{
          .kind = ErrorKind::BadOption,
          .detail =
              by.rankfile
                  ? mpilaunch::format(
                        "{}: rank {} has no line; every process of the job ({}) needs "
                        "one, 'rank {}=HOST slot=CPUS'",
                        by.what, r, np, r)
                  : mpilaunch::format(
                        "{}: {} processes but {} host line{}; the sequential mapper runs "
                        "one process per line, in order: ask for at most {} (-n) or add "
                        "lines",
                        by.what, np, lines.size(), lines.size() == 1 ? "" : "s", lines.size())};
  // The host (an index into `entries`, -1: none) a line names, and the name.
  const auto host_named = [&](const RankfileLine& l) {
    HostEntry want;
    (void)read_user_and_name(l.host, want);
    for (std::size_t h = 0; h < entries.size(); ++h)
      if (entries[h].name == want.name && (want.user.empty() || want.user == entries[h].user))
        return std::pair{static_cast<int>(h), want.name};
    return std::pair{-1, want.name};
  };
  std::vector<int> host_of(static_cast<std::size_t>(np), -1);
  std::vector<int> count(entries.size(), 0);
  for (int r = 0; r < np; ++r) {
    const auto [host, name] = host_named(*line_of[static_cast<std::size_t>(r)]);
    host_of[static_cast<std::size_t>(r)] = host;
    if (host < 0)
      return Error{.kind = ErrorKind::BadOption,
                   .detail = mpilaunch::format("{}: rank {}'s host {} is not a host of the job",
                                               by.what, r, name)};
    ++count[static_cast<std::size_t>(host_of[static_cast<std::size_t>(r)])];
  }
  // A rankfile gives each host it names a slot per line naming it, those past the job's ranks
  // too, whatever -H or a host file say, as mpirun 4.1.4 does (measured: -H localhost:1 with
  // three lines runs 3 ranks there, MPI_UNIVERSE_SIZE 3, OMPI_MCA_mpi_oversubscribe 0; -H
  // localhost:4 with one line: MPI_UNIVERSE_SIZE 1).
  std::vector<int> lines_on(entries.size(), 0);
  if (by.rankfile)
    for (const RankfileLine& l : lines)
      if (const int h = host_named(l).first; h >= 0) ++lines_on[static_cast<std::size_t>(h)];
  plan.universe_size = 0;
  for (std::size_t h = 0; h < entries.size(); ++h) {
    HostEntry& e = entries[h];
    if (lines_on[h] > 0) {
      e.slots = lines_on[h];
      e.count_cores = false;
    } else if (e.count_cores) {  // the lines say how many run there
      e.slots = std::max(1, count[h]);
      e.count_cores = false;
    }
    plan.universe_size += e.slots;
    if (count[h] > e.slots && !plan.request.oversubscribe)
      return Error{.kind = ErrorKind::NotEnoughSlots,
                   .detail = mpilaunch::format(
                       "{} puts {} processes on {}, which has {} slot{}; give it more slots or "
                       "pass --oversubscribe",
                       by.what, count[h], e.name, e.slots, e.slots == 1 ? "" : "s")};
  }
  // The hosts with ranks, in host order.
  std::vector<int> node_of_host(entries.size(), -1);
  std::vector<std::string> names;
  plan.nodes.clear();
  for (std::size_t h = 0; h < entries.size(); ++h)
    if (count[h] > 0) {
      node_of_host[h] = static_cast<int>(names.size());
      names.push_back(entries[h].name);
      plan.nodes.push_back(entries[h]);
    }
  std::vector<int> node_of_rank;
  for (const int h : host_of) node_of_rank.push_back(node_of_host[static_cast<std::size_t>(h)]);
  plan.map = JobMap(std::move(names), std::move(node_of_rank));
  plan.slots_from_agents = false;
  plan.request.np = np;
  if (by.rankfile) {
    for (int r = 0; r < np; ++r)
      plan.placement.rankfile.push_back(line_of[static_cast<std::size_t>(r)]->slot);
    for (const RankfileLine& l : lines) {
      const auto [host, name] = host_named(l);
      plan.rankfile.push_back(
          {l.rank, host < 0 ? -1 : node_of_host[static_cast<std::size_t>(host)], name, l.slot});
    }
  }
  return {};
}

// The seq mapper's lines: rank i on the i-th -H word or host file line.
Result<PlacementLines> seq_lines(const HostList& hosts) {
  if (hosts.host_lines.empty())
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format(
                     "--map-by seq puts rank i on the i-th host of -H or of --hostfile (one of "
                     "them, not both); the hosts here come from {}, which gives no such order",
                     hosts.source.empty() ? "this machine alone" : hosts.source)};
  PlacementLines by{.what = mpilaunch::format("--map-by seq ({})", hosts.source)};
  for (std::size_t i = 0; i < hosts.host_lines.size(); ++i)
    by.lines.push_back(
        {static_cast<int>(i), hosts.host_lines[i], RankSlot{}, static_cast<int>(i) + 1});
  return by;
}

// mpirun 4.1.4 starts a daemon on every host of the allocation, ranks or not (measured), and
// places a spawn's children on their free slots: every host the map left without ranks gets an
// agent after the map's nodes, with no rank until a spawn.
void add_idle_hosts(LaunchPlan& plan, const std::vector<HostEntry>& hosts) {
  for (const HostEntry& h : hosts)
    if (std::none_of(plan.nodes.begin(), plan.nodes.end(),
                     [&](const HostEntry& node) { return node.name == h.name; }))
      plan.nodes.push_back(h);
}

}  // namespace

std::optional<std::string> mca_setting(const Options& o, const EnvLookup& getenv,
                                       const std::string& key) {
  for (auto it = o.mca.rbegin(); it != o.mca.rend(); ++it)
    if (it->first == key) return it->second;
  return mca_setting_beyond_command_line(o, getenv, key);
}

std::optional<std::string> mca_setting_beyond_command_line(const Options& o,
                                                           const EnvLookup& getenv,
                                                           const std::string& key) {
  if (auto v = getenv("OMPI_MCA_" + key)) return v;
  // A --tune file's --mca steers mpirun 4.1.4 itself too (measured); the first one counts.
  for (const auto& [name, value] : o.tune_mca)
    if (name == key) return value;
  // Then Open MPI's parameter files, as mpirun 4.1.4 reads them (measured).
  if (const std::string* v = mca_param_value(o.param_file_mca, key)) return *v;
  return std::nullopt;
}

Status apply_option_parameters(Options& o, const EnvLookup& getenv) {
  constexpr int kMaxParameterRanks = 1 << 20;  // as -n's bound
  // Each parameter under its 4.1.4 name and the older one mpirun still reads (ompi_info lists
  // rmaps_base_n_pernode; the options pass rmaps_ppr_n_pernode).
  const auto first = [&](std::initializer_list<const char*> keys) -> std::optional<std::string> {
    for (const char* key : keys)
      if (auto v = mca_setting(o, getenv, key)) return v;
    return std::nullopt;
  };
  const auto on = [&](std::initializer_list<const char*> keys) {
    const auto v = first(keys);
    return v && mca_bool(*v).value_or(false);
  };
  const auto count = [&](std::initializer_list<const char*> keys,
                         std::optional<int>& out) -> Status {
    const auto v = first(keys);
    if (!v || out) return {};
    // 0 is the parameter's default: nothing asked.
    if (parse_int<long long>(*v) == 0) return {};
    const auto n = parse_int<int>(*v, 1);
    if (!n || *n > kMaxParameterRanks)
      return Error{.kind = ErrorKind::BadOption,
                   .detail = mpilaunch::format("MCA parameter {} = '{}': give a number of "
                                               "processes, 1 to {}",
                                               *keys.begin(), printable(*v), kMaxParameterRanks)};
    out = *n;
    return {};
  };
  const bool placed = !o.map_by_text.empty() || !o.ppr.empty() || o.per_node || o.per_socket;
  if (!placed) {
    if (Status st = count({"rmaps_base_n_pernode", "rmaps_ppr_n_pernode"}, o.per_node); !st)
      return st;
    if (!o.per_node && on({"rmaps_base_pernode", "rmaps_ppr_pernode"})) o.per_node = 1;
    if (Status st = count({"rmaps_base_n_persocket", "rmaps_ppr_n_persocket"}, o.per_socket); !st)
      return st;
    if (!o.per_node && !o.per_socket)
      if (auto pattern = first({"rmaps_base_pattern", "rmaps_ppr_pattern"});
          pattern && !pattern->empty())
        o.ppr = *pattern;
  }
  // The old by* and bind_to_* parameters: with another mapping (binding) policy from anywhere,
  // mpirun 4.1.4 stops (measured: "Conflicting directives for mapping policy", exit 1; for
  // binding, opal_init fails in opal_hwloc_base_open); the same policy twice is no conflict.
  const auto policy_of = [](std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), ::tolower);
    return text.substr(0, text.find(':'));
  };
  // What else sets the policy, and how it reads: "--map-by core" for `other` "core".
  const auto conflict = [&](const std::vector<std::string>& words, const char* prefix,
                            const std::string& option,
                            const char* key) -> std::optional<std::string> {
    if (words.empty()) return std::nullopt;
    if (words.size() > 1) return prefix + words[1];
    if (!option.empty() && policy_of(option) != words[0])
      return (key == std::string_view("rmaps_base_mapping_policy") ? "--map-by " : "--bind-to ") +
             option;
    if (const auto v = first({key}); v && policy_of(*v) != words[0])
      return mpilaunch::format("{} {}", key, *v);
    return std::nullopt;
  };
  std::vector<std::string> by;
  for (const char* word : {"core", "slot", "node"})
    if (on({mpilaunch::format("rmaps_base_by{}", word).c_str()})) by.push_back(word);
  if (const auto other =
          conflict(by, "rmaps_base_by", o.ppr.empty() ? o.map_by_text : "ppr:" + o.ppr,
                   "rmaps_base_mapping_policy"))
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format(
                     "conflicting directives for the mapping policy: the MCA parameter "
                     "rmaps_base_by{} with {}; give one (mpirun 4.1.4 refuses both)",
                     by.front(), *other)};
  if (!by.empty() && o.map_by_text.empty()) {
    o.map_by_text = by.front();
    if (o.map_by_text == "node") o.map_by = MapBy::Node;
  }
  std::vector<std::string> bind;
  for (const char* object : {"core", "socket"})
    if (on({mpilaunch::format("hwloc_base_bind_to_{}", object).c_str()})) bind.push_back(object);
  if (const auto other =
          conflict(bind, "hwloc_base_bind_to_", o.bind_to, "hwloc_base_binding_policy"))
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format(
                     "conflicting directives for the binding policy: the MCA parameter "
                     "hwloc_base_bind_to_{} with {}; give one (mpirun 4.1.4 fails in opal_init)",
                     bind.front(), *other)};
  if (!bind.empty() && o.bind_to.empty()) o.bind_to = bind.front();
  if (o.cpus_per_proc.empty())
    if (auto v = first({"rmaps_base_cpus_per_rank", "rmaps_base_cpus_per_proc"}); v && *v != "0")
      o.cpus_per_proc = *v;
  if (o.rankfile.empty())
    if (auto v = first({"orte_rankfile"}); v && !v->empty()) o.rankfile = *v;
  o.do_not_launch = o.do_not_launch || on({"orte_do_not_launch"});
  return {};
}

Result<LaunchPlan> make_plan(const Options& o, const HostList& hosts, const MachineFacts& machine,
                             const EnvLookup& getenv) {
  LaunchPlan plan;
  std::vector<NodeSlots> slots;
  std::vector<HostEntry> entries = hosts.hosts;
  if (entries.empty()) {
    plan.isolated = true;
    plan.hosts_source = "this machine (isolated local mode)";
    entries.push_back(HostEntry{.name = machine.hostname, .slots = std::max(1, machine.cpus)});
  } else {
    plan.hosts_source = hosts.source;
  }
  plan.hostname = machine.hostname;
  // A plan refused as a whole names the program it would have run.
  const auto named = [&o](Error e) {
    if (e.executable.empty() && !o.program.empty()) e.executable = o.program[0];
    return e;
  };
  const auto refuse = [&](ErrorKind kind, std::string detail) {
    return named(Error{.kind = kind, .detail = std::move(detail)});
  };
  // mpirun honours its MCA parameters from the environment (OMPI_MCA_*) and --mca as well as
  // its own options; the options win.
  auto mca = [&](const std::string& key) { return mca_setting(o, getenv, key); };
  // A boolean parameter set to a word Open MPI does not read keeps its default, with a warning.
  const auto not_boolean = [&](const char* key, bool taken_as) {
    if (const auto v = mca(key); v && !mca_bool(*v))
      plan.warnings.push_back(mpilaunch::format(
          "MCA parameter {} = '{}' is not a boolean Open MPI reads (a number, true/false, "
          "yes/no, y/n, t/f or enabled/disabled): taken as {}, as mpirun 4.1.4 takes it",
          key, printable(*v), taken_as));
  };
  // mpirun 4.1.4 reads these as Open MPI's booleans; any other word is false there, after a
  // block naming it (measured: OMPI_MCA_rmaps_base_oversubscribe=on does not oversubscribe;
  // "enabled", "y", "t" and "2" do).
  for (const char* key :
       {"rmaps_base_no_schedule_local", "hwloc_base_report_bindings", "rmaps_base_display_map",
        "rmaps_base_display_diffable_map", "orte_display_alloc", "ras_base_display_alloc",
        "orte_display_devel_alloc", "ras_base_display_devel_alloc",
        "hwloc_base_use_hwthreads_as_cpus", "rmaps_base_oversubscribe", "orte_tag_output",
        "orte_timestamp_output", "orte_execute_quiet", "orte_xml_output",
        "iof_base_redirect_app_stderr_to_stdout"})
    not_boolean(key, false);
  // mpirun 4.1.4 (measured): 0, false, no (any Open MPI false) lets the job run on when a rank
  // exits non-zero; another word ("off") is refused in an "invalid value ... enum variable"
  // block and the default, true, stays.
  not_boolean("orte_abort_on_non_zero_status", true);
  if (const auto v = mca("orte_abort_on_non_zero_status"))
    plan.abort_on_nonzero = mca_bool(*v).value_or(true);
  auto truthy = [](const std::optional<std::string>& v) {
    return v && mca_bool(*v).value_or(false);
  };
  const bool nolocal = o.nolocal || truthy(mca("rmaps_base_no_schedule_local"));
  std::optional<HostEntry> local_node;  // --nolocal: this machine, idle until a spawn
  if (nolocal) {
    // mpirun 4.1.4 (measured): --nolocal leaves this machine out of the map but keeps its slots
    // in the allocation and the universe; with no other host, nothing can run.
    for (HostEntry& h : entries)
      if (is_local_name(h.name, machine.hostname) && h.count_cores) {
        h.slots = std::max(1, machine.cpus);  // known here, no agent counts them
        h.count_cores = false;
      }
    plan.allocation = hosts.allocation.empty() ? entries : hosts.allocation;
    // Children of a spawn may still go there (mpirun 4.1.4, measured): it keeps an agent.
    for (const HostEntry& h : entries)
      if (!local_node && is_local_name(h.name, machine.hostname)) local_node = h;
    std::erase_if(entries,
                  [&](const HostEntry& h) { return is_local_name(h.name, machine.hostname); });
    if (entries.empty())
      return refuse(
          ErrorKind::NotEnoughSlots,
          mpilaunch::format("--nolocal: all nodes which are allocated for this job are already "
                            "filled: the only host ({}) is this machine, where --nolocal runs no "
                            "rank; give other hosts (-H, --hostfile) or drop --nolocal",
                            plan.isolated ? "this machine alone" : hosts.source));
  } else {
    plan.allocation = hosts.allocation.empty() ? entries : hosts.allocation;
  }
  if (!hosts.outside_allocation.empty())
    plan.warnings.push_back(mpilaunch::format(
        "{} {} not in the allocation ({}): left out, as mpirun 4.1.4 leaves out a host the "
        "allocation does not have",
        fmt::join(hosts.outside_allocation, ", "),
        hosts.outside_allocation.size() == 1 ? "is" : "are", hosts.source));
  for (const HostEntry& h : plan.allocation) plan.universe_size += h.slots;
  for (const HostEntry& h : entries) {
    slots.push_back(NodeSlots{h.name, h.slots, h.max_slots});
    plan.slots_from_agents = plan.slots_from_agents || h.count_cores;
  }

  bool all_local = true;
  for (const HostEntry& h : entries)
    all_local = all_local && is_local_name(h.name, machine.hostname);
  plan.launcher = o.launcher;
  // Inside a Slurm allocation whose nodes are the hosts, srun starts the agents: it works
  // without ssh keys and Slurm accounts for (and cleans up) everything the job starts.
  const bool slurm_hosts = hosts.source.starts_with("slurm ");
  if (plan.launcher == LauncherKind::Auto)
    plan.launcher = !plan.isolated && slurm_hosts && inside_slurm_allocation(getenv("SLURM_JOB_ID"))
                        ? LauncherKind::Srun
                    : plan.isolated || all_local ? LauncherKind::Local
                                                 : LauncherKind::Ssh;
  if (plan.isolated && plan.launcher == LauncherKind::Ssh)
    return refuse(ErrorKind::BadOption, "--launcher=ssh needs hosts: give -H or --hostfile");
  if (plan.launcher == LauncherKind::Srun && !inside_slurm_allocation(getenv("SLURM_JOB_ID")))
    return refuse(ErrorKind::BadOption,
                  "--launcher=srun needs a Slurm allocation (SLURM_JOB_ID is not set): run inside "
                  "salloc or sbatch, or choose --launcher=ssh|local");
  if (plan.isolated && plan.launcher == LauncherKind::Srun)
    return refuse(ErrorKind::BadOption,
                  "--launcher=srun needs the allocation's nodes: SLURM_JOB_NODELIST is not set, "
                  "or give -H or --hostfile");

  PlacementOptions placement_options{.map_by = o.map_by_text,
                                     .rank_by = o.rank_by,
                                     .bind_to = o.bind_to,
                                     .report_bindings = o.report_bindings,
                                     .display_map = o.display_map,
                                     .use_hwthread_cpus = o.use_hwthread_cpus,
                                     .cpus_per_proc = std::nullopt};
  if (!o.cpus_per_proc.empty()) {
    const auto n = parse_int<int>(o.cpus_per_proc, 1);
    if (!n)
      return refuse(ErrorKind::BadOption,
                    mpilaunch::format("--cpus-per-proc {}: give a number of CPUs, 1 or more",
                                      o.cpus_per_proc));
    placement_options.cpus_per_proc = *n;
  }
  // --ppr X is mpirun 4.1.4's deprecated spelling of --map-by ppr:X (measured: the same map,
  // after a deprecation block; with --map-by too, exit 1 after that block).
  if (!o.ppr.empty()) {
    if (!placement_options.map_by.empty())
      return refuse(ErrorKind::BadOption,
                    mpilaunch::format("--ppr {} and --map-by {}: give one (--ppr is the old "
                                      "spelling of --map-by ppr:{}; mpirun 4.1.4 refuses both)",
                                      o.ppr, placement_options.map_by, o.ppr));
    placement_options.map_by = "ppr:" + o.ppr;  // run() prints mpirun's deprecation block
  }
  // --npersocket N is mpirun 4.1.4's ppr:N:socket, unless --map-by says otherwise.
  if (placement_options.map_by.empty() && o.per_socket)
    placement_options.map_by = mpilaunch::format("ppr:{}:socket", *o.per_socket);
  if (placement_options.map_by.empty())
    placement_options.map_by = mca("rmaps_base_mapping_policy").value_or("");
  // --cpu-list and --cpu-set are mpirun's hwloc_base_cpu_list (cpu_set and slot_list are its
  // old names); the ranks get the parameter as mpirun passes its command line's parameters.
  placement_options.cpu_list = cpu_list_of(o);
  if (!placement_options.cpu_list.empty())
    plan.env.push_back(mpilaunch::format("OMPI_MCA_hwloc_base_{}={}",
                                         o.cpu_list.empty() ? "cpu_set" : "cpu_list",
                                         placement_options.cpu_list));
  for (const char* key : {"hwloc_base_cpu_list", "hwloc_base_cpu_set", "hwloc_base_slot_list"})
    if (placement_options.cpu_list.empty()) placement_options.cpu_list = mca(key).value_or("");
  if (placement_options.rank_by.empty())
    placement_options.rank_by = mca("rmaps_base_ranking_policy").value_or("");
  if (placement_options.bind_to.empty())
    placement_options.bind_to = mca("hwloc_base_binding_policy").value_or("");
  placement_options.report_bindings =
      placement_options.report_bindings || truthy(mca("hwloc_base_report_bindings"));
  placement_options.display_map =
      placement_options.display_map || truthy(mca("rmaps_base_display_map"));
  plan.display_diffable_map =
      o.display_diffable_map || truthy(mca("rmaps_base_display_diffable_map"));
  // mpirun 4.1.4 honours these names, the devel ones printing the same block (measured).
  plan.display_allocation = o.display_allocation || truthy(mca("orte_display_alloc")) ||
                            truthy(mca("ras_base_display_alloc")) ||
                            truthy(mca("orte_display_devel_alloc")) ||
                            truthy(mca("ras_base_display_devel_alloc"));
  placement_options.use_hwthread_cpus =
      placement_options.use_hwthread_cpus || truthy(mca("hwloc_base_use_hwthreads_as_cpus"));
  // The output parameters steer mpirun 4.1.4's forwarding from --mca, the environment, a --tune
  // file and the parameter files alike (measured: OMPI_MCA_orte_tag_output=1 tags, a parameter
  // file's orte_timestamp_output = 1 stamps); a --mca of one wins over its option in either
  // order (`--mca orte_tag_output 0 --tag-output` tags nothing), the environment does not.
  const auto output_switch = [&](bool option, const char* key) {
    const auto given =
        std::find_if(o.mca.rbegin(), o.mca.rend(), [&](const auto& kv) { return kv.first == key; });
    if (given != o.mca.rend()) return mca_bool(given->second).value_or(false);
    return option || truthy(mca(key));
  };
  plan.tag_output = output_switch(o.tag_output, "orte_tag_output");
  plan.timestamp_output = output_switch(o.timestamp_output, "orte_timestamp_output");
  plan.quiet = output_switch(o.quiet, "orte_execute_quiet");
  if (truthy(mca("orte_xml_output")))
    return refuse(ErrorKind::BadOption,
                  "the MCA parameter orte_xml_output asks for mpirun's XML output, which "
                  "mpilaunch does not write (nor --xml); --events FILE writes the job's events "
                  "as JSON Lines");
  // Open MPI's mappers: round_robin and ppr are what --map-by selects; seq, rank_file, mindist
  // and resilient are not here yet, and are refused by name rather than ignored.
  const std::optional<std::string> rmaps = mca("rmaps");
  if (rmaps && !rmaps->empty() && !rmaps->starts_with('^') && *rmaps != "round_robin" &&
      *rmaps != "ppr" && *rmaps != "seq")
    return refuse(ErrorKind::BadOption,
                  mpilaunch::format("--mca rmaps {}: mpilaunch does not have this mapper yet; use "
                                    "--map-by (slot, node, an object, ppr:N:OBJ)",
                                    *rmaps));
  auto placement = parse_placement(placement_options);
  // --ppr's value is checked here only, as the --map-by it stands for, and named as given.
  if (!placement && !o.ppr.empty())
    return refuse(ErrorKind::BadOption,
                  mpilaunch::format("--ppr {}: {}", o.ppr, placement.error().detail));
  if (!placement) return named(placement.error());
  plan.placement = placement.value();
  // --mca rmaps seq: the sequential mapper, which mpirun 4.1.4 runs with binding NONE (unlike
  // --map-by seq, which binds as by default) unless a binding is asked for.
  if (rmaps && *rmaps == "seq") {
    plan.placement.seq = true;
    if (!plan.placement.bind_given && plan.placement.pe == 1) plan.placement.bind_none = true;
  }
  // --oversubscribe itself (not --map-by's :OVERSUBSCRIBE) also lets a binding --bind-to did
  // not give overload an object, in the job and its spawns (mpirun 4.1.4, measured).
  const bool mca_oversubscribe = truthy(mca("rmaps_base_oversubscribe"));
  // A mapping policy given before the first program: --map-by there or the job's parameter.
  const bool policy_first = o.oversubscribe_sources.map_by_first ||
                            !mca("rmaps_base_mapping_policy").value_or("").empty();
  const bool flag_counts = oversubscribe_flag_counts(o.oversubscribe_sources, policy_first);
  plan.placement.default_overload = flag_counts || mca_oversubscribe;
  // Local and srun agents inherit our environment, so their hwloc reads HWLOC_XMLFILE: a saved
  // topology, which binds nothing unless HWLOC_THISSYSTEM=1 says it is this machine's (hwloc's
  // rule, and mpirun 4.1.4's).
  if (plan.launcher == LauncherKind::Local || plan.launcher == LauncherKind::Srun)
    if (const auto xml = getenv("HWLOC_XMLFILE"); xml && !xml->empty())
      if (const auto own = getenv("HWLOC_THISSYSTEM"); !own || *own != "1")
        plan.placement.topology_file = *xml;
  // --map-by's modifier: the counted one (maybe the first context's under a later modifier-less
  // --map-by), else that of the policy in effect (rmaps_base_mapping_policy, --ppr).
  // The parameter's :NOOVERSUBSCRIBE with --oversubscribe or rmaps_base_oversubscribe before
  // the first program: refused as the pair on the command line is (measured, options.cpp).
  if (!o.oversubscribe_sources.modifier && plan.placement.oversubscribe == false &&
      (o.oversubscribe_sources.flag_first || mca_oversubscribe))
    return refuse(
        ErrorKind::BadOption,
        conflicting_directives_text(
            o.oversubscribe_sources.flag_first ? "--oversubscribe" : "rmaps_base_oversubscribe 1",
            "the mapping policy " + placement_options.map_by));
  const std::optional<bool> modifier = o.oversubscribe_sources.modifier
                                           ? o.oversubscribe_sources.modifier
                                           : plan.placement.oversubscribe;
  const bool oversubscribe =
      oversubscribe_allowed(o.oversubscribe_sources, policy_first, modifier, mca_oversubscribe);
  plan.placement.oversubscribe = oversubscribe;
  MapRequest request{o.np, o.per_node, plan.placement.by_node ? MapBy::Node : o.map_by,
                     oversubscribe};
  // --rank-by renumbers what the mapper placed (mpirun 4.1.4, measured on virtual nodes):
  // by node round the nodes (-H a:2,b:2 -n 3: a,b,a), by slot or by an object (core,
  // socket...) node after node (--map-by node -n 4: a,a,b,b).
  if (plan.placement.rank_given)
    request.rank_by = plan.placement.rank_by_node ? RankBy::Node : RankBy::Slot;
  // ppr:N:node is N per node; ppr over a smaller object fills the slots and is checked against
  // each node's objects once its agent has reported them (common/placement.hpp).
  if (plan.placement.ppr > 0 && plan.placement.map_level == HwLevel::Board && !o.per_node)
    request.per_node = plan.placement.ppr;
  // ppr over an object below the node (--npersocket N is ppr:N:socket) gives each node N per
  // object of its own (mpirun 4.1.4, measured on virtual nodes: -H a:2,b:2 -n 2 --map-by
  // ppr:1:socket runs one rank on each), so with several hosts the map waits for every agent's
  // report of its node's objects. So does ppr:N:socket without -n, which starts N per socket on
  // every node (more than a node's slots needs --oversubscribe); below the socket, without -n it
  // asks for every slot. On one host, filling the slots and checking each node's objects once
  // its agent has reported (common/placement.hpp) is the same map.
  if (plan.placement.ppr > 0 && plan.placement.map_level &&
      plan.placement.map_level != HwLevel::Board && !request.per_node && hosts.rankfile.empty() &&
      !plan.placement.seq &&
      (entries.size() > 1 || (plan.placement.map_level == HwLevel::Socket && !request.np))) {
    if (o.contexts.size() > 1)
      for (std::size_t c = 0; c < o.contexts.size(); ++c)
        if (!o.contexts[c].np)
          return refuse(ErrorKind::BadOption,
                        mpilaunch::format(
                            "--map-by ppr:{}:{} with several application contexts (':' or --app): "
                            "context {} has no -n, which is not supported (how many processes "
                            "mpirun 4.1.4 starts there is not measured); give each context -n",
                            plan.placement.ppr, level_name(*plan.placement.map_level), c + 1));
    plan.ppr_object = plan.placement.map_level;
    request.per_node = plan.placement.ppr;
    request.object = std::string(level_name(*plan.placement.map_level));
    plan.slots_from_agents = true;
  }
  // --map-by OBJECT:SPAN over several hosts divides the processes over every host's objects
  // (mpirun 4.1.4's byobj_span, measured: -H a:8,b:8 -n 4 --map-by socket:SPAN, two sockets
  // each, runs 2 on each host), so the map waits for every agent's report of its node.
  if (plan.placement.span && plan.placement.map_level && plan.placement.ppr == 0 &&
      !request.per_node && hosts.rankfile.empty() && !plan.placement.seq && entries.size() > 1 &&
      o.contexts.size() <= 1) {
    plan.span_object = plan.placement.map_level;
    request.span = true;
    request.object = std::string(level_name(*plan.placement.map_level));
    plan.slots_from_agents = true;
  }
  // mpirun 4.1.4 (measured): --nolocal without -n still asks for every slot of the allocation,
  // this machine's included, so it fits only with --oversubscribe.
  const bool counted_by_ppr =
      request.per_node && (!plan.ppr_object || *plan.ppr_object == HwLevel::Socket);
  plan.np_is_allocation = nolocal && !request.np && !counted_by_ppr;
  if (plan.np_is_allocation && !plan.slots_from_agents) request.np = plan.universe_size;
  plan.request = request;
  std::vector<AppOptions> contexts = o.contexts;
  if (contexts.empty())
    contexts.push_back(
        {o.np, o.hosts, o.exports, o.wdir, o.program, {}, o.exec_path, o.path_given});
  if (!hosts.hostfile_hosts.empty()) {
    if (hosts.hostfile_hosts.size() > 1 && (!hosts.rankfile.empty() || plan.placement.seq))
      return refuse(
          ErrorKind::BadOption,
          mpilaunch::format("a host file per application context ({}) with {}: not "
                            "supported; give one host file",
                            hosts.source, plan.placement.seq ? "--map-by seq" : "--rankfile"));
    Status narrowed = narrow_to_hostfiles(hosts, entries, contexts);
    if (!narrowed) return named(narrowed.error());
  }
  if (plan.slots_from_agents && !plan.ppr_object && contexts.size() > 1 && hosts.rankfile.empty() &&
      !plan.placement.seq) {
    // Each context is mapped over the slots the ones before it left, so every host's slots are
    // needed before the agents start; a line without slots= is known only once its agent has
    // counted the node's cores.
    std::string host;
    for (const HostEntry& h : entries)
      if (h.count_cores) {
        host = h.name;
        break;
      }
    return refuse(
        ErrorKind::BadOption,
        mpilaunch::format("several application contexts (':' or --app) with {}: the line for host "
                          "{} has no slots=, whose slots would be the node's cores, counted only "
                          "once its agent runs; give every line slots=N for MPMD",
                          hosts.source, host));
  }
  if (!hosts.rankfile.empty() || plan.placement.seq) {
    if (nolocal)
      return refuse(ErrorKind::BadOption,
                    mpilaunch::format("--nolocal with {}: not supported (the lines place every "
                                      "rank; leave this machine out of them instead)",
                                      hosts.rankfile.empty() ? "--map-by seq" : "--rankfile"));
    if (!hosts.rankfile.empty() && plan.placement.seq)
      return refuse(ErrorKind::BadOption,
                    "--rankfile and --map-by seq (or --mca rmaps seq) each place every rank; give "
                    "one of them");
    if (plan.placement.cpu_list && !plan.placement.ordered)
      return refuse(ErrorKind::BadOption,
                    mpilaunch::format(
                        "--cpu-list {} and {} each place every rank; give one of them",
                        plan.placement.cpu_list->text,
                        plan.placement.seq ? "--map-by seq (or --mca rmaps seq)" : "--rankfile"));
    auto by = hosts.rankfile.empty()
                  ? seq_lines(hosts)
                  : Result<PlacementLines>(
                        PlacementLines{hosts.rankfile, "--rankfile " + hosts.rankfile_path, true});
    plan.rankfile_path = hosts.rankfile_path;
    Status placed = by ? place_by_lines(by.value(), entries, contexts, plan) : Status(by.error());
    if (!placed) return named(placed.error());
  } else if (plan.slots_from_agents) {
    // Every host gets an agent; the ranks are placed once they have counted their cores.
    std::vector<std::string> names;
    for (const HostEntry& h : entries) names.push_back(h.name);
    plan.nodes = entries;
    plan.map = JobMap(std::move(names), {});
    auto mapped = map_contexts_of(contexts);
    if (!mapped) return named(mapped.error());
    plan.contexts = std::move(mapped).value();
  } else {
    Result<JobMap> map = Error{};
    if (contexts.size() == 1) {
      map = map_job(slots, request);
    } else if (auto mapped = map_contexts_of(contexts); mapped) {
      map = map_contexts(slots, request, mapped.value());
      for (std::size_t c = 0; c < contexts.size(); ++c) contexts[c].np = mapped.value()[c].np;
    } else {
      map = mapped.error();
    }
    if (!map) return named(map.error());
    plan.map = std::move(map).value();
    for (const std::string& name : plan.map.nodes())
      for (const HostEntry& h : entries)
        if (h.name == name) {
          plan.nodes.push_back(h);
          break;
        }
    // Two host entries with the same name are one node; the map never splits them.
    if (static_cast<int>(plan.nodes.size()) != plan.map.node_count())
      return Error{.kind = ErrorKind::HostfileError, .detail = "a host is listed twice"};
  }

  std::vector<int> ranks_of_context(contexts.size(), 0);
  if (contexts.size() == 1) {
    ranks_of_context[0] = plan.map.size();
  } else {
    for (std::size_t c = 0; c < contexts.size(); ++c)
      ranks_of_context[c] = contexts[c].np.value_or(0);
    // ppr counts each context's ranks on a node on their own (map_contexts), so does the binder.
    if (plan.placement.ppr > 0)
      for (std::size_t c = 0, first = 0; c + 1 < contexts.size(); ++c) {
        first += static_cast<std::size_t>(ranks_of_context[c]);
        plan.placement.context_starts.push_back(static_cast<int>(first));
      }
  }
  for (const std::string& mca : o.ignored_mca)
    plan.warnings.push_back(mpilaunch::format(
        "--mca {}: ignored, as mpirun 4.1.4 ignores --mca after the first program; give it "
        "before the first program",
        mca));
  plan.warnings.insert(plan.warnings.end(), o.ignored_options.begin(), o.ignored_options.end());
  std::vector<std::string> warned;
  for (std::size_t c = 0; c < contexts.size(); ++c) {
    const AppOptions& context = contexts[c];
    PlanApp app;
    for (const std::string& x : context.exports) {
      const auto eq = x.find('=');
      if (eq != std::string::npos) {
        app.env.push_back(x);
      } else if (const auto value = getenv(x)) {
        app.env.push_back(x + "=" + *value);
      } else if (std::find(warned.begin(), warned.end(), x) == warned.end()) {
        warned.push_back(x);
        plan.warnings.push_back(
            mpilaunch::format("-x {}: the variable is not set here, so it is not exported", x));
      }
    }
    app.argv = context.program;
    app.wdir = context.wdir.empty()     ? machine.cwd
               : context.wdir[0] == '/' ? context.wdir
                                        : machine.cwd + "/" + context.wdir;
    app.num_procs = ranks_of_context[c];
    // --path: where the agent looks for the program first; the ranks of the context that gave
    // it see it as OMPI_exec_path (as typed), those of a later context inheriting it do not,
    // as under mpirun 4.1.4 (measured).
    app.exec_path = context.exec_path;
    // Options given with a later MPMD context: only its ranks get their MCA parameters, as under
    // mpirun 4.1.4 (measured); after JobSpec.env, so they win over the job's.
    for (const auto& [key, value] : context.option_mca)
      app.env.push_back(mpilaunch::format("OMPI_MCA_{}={}", key, value));
    if (context.path_given &&
        std::none_of(app.env.begin(), app.env.end(),
                     [](const std::string& e) { return e.starts_with("OMPI_exec_path="); }))
      app.env.push_back("OMPI_exec_path=" + context.exec_path);
    plan.apps.push_back(std::move(app));
  }
  // mpirun 4.1.4 passes its ranks the MCA parameters of its own options (--bind-to core is
  // OMPI_MCA_hwloc_base_binding_policy=core), which win over a --mca of the same name (measured).
  auto from_option = [&](std::string_view key) {
    return std::any_of(o.option_mca.begin(), o.option_mca.end(),
                       [&](const auto& kv) { return kv.first == key; });
  };
  for (const auto& [key, value] : o.mca)
    if (!from_option(key)) plan.env.push_back(mpilaunch::format("OMPI_MCA_{}={}", key, value));
  for (const auto& [key, value] : o.option_mca)
    plan.env.push_back(mpilaunch::format("OMPI_MCA_{}={}", key, value));
  // mpirun 4.1.4 hands the files' names to the ranks, whose Open MPI reads them (measured); a
  // --tune file's --mca reaches the ranks only that way, never as OMPI_MCA_* variables.
  auto given = [&](std::string_view key) {
    return std::any_of(o.mca.begin(), o.mca.end(), [&](const auto& kv) { return kv.first == key; });
  };
  if (!o.am.empty() && !given("mca_base_param_file_prefix"))
    plan.env.push_back("OMPI_MCA_mca_base_param_file_prefix=" + o.am);
  if (!o.tune.empty() && !given("mca_base_envar_file_prefix"))
    plan.env.push_back("OMPI_MCA_mca_base_envar_file_prefix=" + o.tune);
  // Except the parameters mpilaunch would otherwise set in the ranks' environment itself (the
  // transport default, loopback TCP on one machine: docs/transport.md), which would win over the
  // file there: these a --tune file's --mca gives as variables, with the file's value.
  for (const char* key : {"pml", "mtl", "btl_tcp_if_include", "btl_tcp_if_exclude"}) {
    if (given(key) || getenv(mpilaunch::format("OMPI_MCA_{}", key))) continue;
    for (const auto& [name, value] : o.tune_mca)
      if (name == key) {
        plan.env.push_back(mpilaunch::format("OMPI_MCA_{}={}", key, value));
        break;
      }
  }
  // Open MPI's stderr-into-stdout at the source (iof_base_redirect_app_stderr_to_stdout) is the
  // agents' to do, which read it from each rank's environment: a --mca or the launcher's
  // OMPI_MCA_* put it there already, a --tune or parameter file's line here.
  constexpr const char* kRedirect = "iof_base_redirect_app_stderr_to_stdout";
  if (const auto redirect = mca(kRedirect);
      truthy(redirect) && !given(kRedirect) && !getenv(mpilaunch::format("OMPI_MCA_{}", kRedirect)))
    plan.env.push_back(mpilaunch::format("OMPI_MCA_{}={}", kRedirect, *redirect));
  plan.prefix = o.prefix;
  plan.index_argv_by_rank = o.index_argv_by_rank;
  if (!plan.slots_from_agents) add_idle_hosts(plan, entries);
  if (local_node && !plan.isolated) {
    plan.nodes.push_back(*local_node);
    plan.idle_local_node = true;
  }
  return plan;
}

int app_index_of_rank(const LaunchPlan& plan, int rank) {
  if (rank < 0) return 0;
  return static_cast<int>(
      context_of_rank(plan.apps, static_cast<std::uint64_t>(rank), &PlanApp::num_procs));
}

const PlanApp& app_of_rank(const LaunchPlan& plan, int rank) {
  return plan.apps[static_cast<std::size_t>(app_index_of_rank(plan, rank))];
}

Status map_on_reported_slots(LaunchPlan& plan, const std::vector<int>& cores,
                             const std::vector<int>& objects) {
  if (!plan.slots_from_agents) return {};
  if (cores.size() != plan.nodes.size())
    return Error{.kind = ErrorKind::Unknown,
                 .detail = mpilaunch::format("{} hosts but {} core counts", plan.nodes.size(),
                                             cores.size())};
  std::vector<NodeSlots> slots;
  std::vector<HostEntry> nodes = plan.nodes;  // the plan changes only when the map is made
  int universe = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    HostEntry& h = nodes[i];
    if (h.count_cores) {
      h.slots = std::clamp(cores[i], 1, kMaxSlotsPerHost);
      h.slots_given = true;
      h.count_cores = false;
    }
    universe += h.slots;
    // --nolocal: this machine's agent (the last) waits for spawns, no rank goes there.
    if (plan.idle_local_node && i + 1 == nodes.size()) break;
    slots.push_back(NodeSlots{h.name, h.slots, h.max_slots});
  }
  MapRequest request = plan.request;
  if (plan.np_is_allocation) {
    request.np = 0;
    for (const HostEntry& a : plan.allocation) {
      int counted = a.slots;
      for (const HostEntry& h : nodes)
        if (h.name == a.name) counted = h.slots;
      *request.np += counted;
    }
  }
  // Each host's count of the ppr or :SPAN object, as its agent reported it.
  const auto take_object_counts = [&]() -> Status {
    if (objects.size() < slots.size())
      return Error{.kind = ErrorKind::Unknown,
                   .detail = mpilaunch::format("{} hosts but {} object counts", slots.size(),
                                               objects.size())};
    request.objects.assign(objects.begin(),
                           objects.begin() + static_cast<std::ptrdiff_t>(slots.size()));
    return {};
  };
  Result<JobMap> map = Error{};
  if (plan.ppr_object) {
    // N per object of each node (map_ppr), each application context in turn.
    if (Status st = take_object_counts(); !st) return st.error();
    // Below the socket, mpirun 4.1.4 without -n asks for every slot (measured).
    if (plan.contexts.size() == 1 && !plan.contexts[0].np && !request.np &&
        *plan.ppr_object != HwLevel::Socket) {
      request.np = 0;
      for (const NodeSlots& s : slots) *request.np += s.slots;
    }
    std::vector<MapContext> contexts = plan.contexts;
    if (contexts.size() == 1 && request.np) contexts[0].np = request.np;
    map = map_contexts(slots, request, contexts);
    if (map)
      for (std::size_t c = 0; c < contexts.size() && c < plan.apps.size(); ++c)
        plan.apps[c].num_procs = contexts[c].np.value_or(0);
  } else {
    if (plan.span_object)
      if (Status st = take_object_counts(); !st) return st.error();
    map = map_job(slots, request);
  }
  if (!map) {
    Error e = map.error();
    if (e.executable.empty() && !plan.apps.empty() && !plan.apps[0].argv.empty())
      e.executable = plan.apps[0].argv[0];
    return e;
  }
  // Slot and node mapping fill hosts in order, so the hosts with ranks come first: each keeps
  // its agent's node index.
  for (int n = 0; n < map->node_count(); ++n)
    if (map->node_name(n) != nodes[static_cast<std::size_t>(n)].name)
      return Error{.kind = ErrorKind::Unknown,
                   .detail = mpilaunch::format("host {} got ranks before {}", map->node_name(n),
                                               nodes[static_cast<std::size_t>(n)].name)};
  // Every host, with its counted slots; with --nolocal this machine too, which has no agent.
  if (!plan.allocation.empty()) universe = 0;
  for (HostEntry& a : plan.allocation) {
    for (const HostEntry& h : nodes)
      if (a.count_cores && h.name == a.name) a = h;
    universe += a.slots;
  }
  // The hosts left without ranks keep their agents, idle until a spawn places children there.
  plan.nodes = std::move(nodes);
  plan.universe_size = universe;
  plan.map = std::move(map).value();
  // One application context (make_plan refuses several with such hosts unless ppr_object):
  // all ranks are its.
  if (!plan.ppr_object && !plan.apps.empty()) plan.apps[0].num_procs = plan.map.size();
  plan.slots_from_agents = false;
  return {};
}

std::string allocation_text(const LaunchPlan& plan, const std::vector<int>& in_use) {
  const std::string& hostname = plan.hostname;
  // As mpirun 4.1.4 prints them (measured): its own node has ORTE's flags 0x11 (daemon there,
  // slots given) and state UP; another host 0x13 (also location verified), UP, or UNKNOWN when
  // it came from a host file. slots_inuse is 0 before the mapping.
  const bool from_hostfile = plan.hosts_source.starts_with("hostfile");
  std::string out = "\n======================   ALLOCATED NODES   ======================\n";
  for (std::size_t i = 0; i < plan.allocation.size(); ++i) {
    const HostEntry& h = plan.allocation[i];
    const bool local = plan.isolated || is_local_name(h.name, hostname);
    out += mpilaunch::format("\t{}: flags=0x{} slots={} max_slots={} slots_inuse={} state={}\n",
                             local ? short_host_name(hostname) : h.name, local ? "11" : "13",
                             h.slots, h.max_slots.value_or(0), i < in_use.size() ? in_use[i] : 0,
                             local || !from_hostfile ? "UP" : "UNKNOWN");
  }
  out += "=================================================================\n";
  return out;
}

std::string render_plan(const LaunchPlan& plan, const std::string& agent_command) {
  std::string out;
  out += mpilaunch::format("hosts from: {}\n", plan.hosts_source);
  out += mpilaunch::format("launcher:   {}\n", plan.launcher == LauncherKind::Ssh    ? "ssh"
                                               : plan.launcher == LauncherKind::Srun ? "srun"
                                                                                     : "local");
  if (plan.apps.size() == 1) {
    out += mpilaunch::format("program:    {}\n", fmt::join(plan.apps[0].argv, " "));
    out += mpilaunch::format("wdir:       {}\n", plan.apps[0].wdir);
    if (!plan.apps[0].exec_path.empty())
      out += mpilaunch::format("path:       {}\n", plan.apps[0].exec_path);
  } else {
    // MPMD: one line per application context, its ranks and what only it gets.
    int first = 0;
    for (std::size_t c = 0; c < plan.apps.size(); ++c) {
      const PlanApp& app = plan.apps[c];
      out += mpilaunch::format("context {}:  ranks {}-{}: {}\n", c, first,
                               first + app.num_procs - 1, fmt::join(app.argv, " "));
      out += mpilaunch::format("  wdir:     {}\n", app.wdir);
      if (!app.exec_path.empty()) out += mpilaunch::format("  path:     {}\n", app.exec_path);
      for (const std::string& e : app.env) out += mpilaunch::format("  env:      {}\n", e);
      first += app.num_procs;
    }
  }
  out += mpilaunch::format("interface:  {} ({})\n", pmi_label(plan.pmi), plan.pmi.reason);
  if (plan.ppr_object)
    out += mpilaunch::format(
        "processes:  {}{} per {} on up to {} nodes, placed once each agent has reported its "
        "node's {}s\n",
        plan.request.np ? mpilaunch::format("{}, ", *plan.request.np) : "",
        plan.request.per_node.value_or(0), level_name(*plan.ppr_object), plan.map.node_count(),
        level_name(*plan.ppr_object));
  else if (plan.slots_from_agents)
    out += mpilaunch::format(
        "processes:  {} on up to {} nodes, placed once each agent has counted its node's cores\n",
        plan.request.np ? std::to_string(*plan.request.np) : "one per slot", plan.map.node_count());
  else
    out += mpilaunch::format("processes:  {} on {} node{}\n", plan.map.size(),
                             plan.map.node_count(), plan.map.node_count() == 1 ? "" : "s");
  for (int n = 0; n < static_cast<int>(plan.nodes.size()); ++n) {
    const HostEntry& h = plan.nodes[static_cast<std::size_t>(n)];
    if (n >= plan.map.node_count())
      out += mpilaunch::format("  node {} {} (slots {}{}): no ranks, for spawned processes\n", n,
                               h.name, h.slots,
                               h.max_slots ? mpilaunch::format(", max {}", *h.max_slots) : "");
    else if (h.count_cores)
      out += mpilaunch::format("  node {} {} (slots: its cores{})\n", n, h.name,
                               h.max_slots ? mpilaunch::format(", max {}", *h.max_slots) : "");
    else
      out += mpilaunch::format("  node {} {} (slots {}{}): ranks {}\n", n, h.name, h.slots,
                               h.max_slots ? mpilaunch::format(", max {}", *h.max_slots) : "",
                               fmt::join(plan.map.ranks_on(n), ","));
    std::string command = agent_command;
    // The srun starter's command names its node: shown here with this node's name.
    if (const auto at = command.find("--nodelist=NODE");
        plan.launcher == LauncherKind::Srun && at != std::string::npos)
      command.replace(at, 15, "--nodelist=" + h.name);
    out +=
        mpilaunch::format("    agent: {}{}\n",
                          plan.launcher == LauncherKind::Ssh ? "ssh " + h.name + " " : "", command);
  }
  if (plan.apps.size() == 1)
    for (const std::string& e : plan.apps[0].env) out += mpilaunch::format("  env: {}\n", e);
  for (const std::string& e : plan.env) out += mpilaunch::format("  env: {}\n", e);
  if (!plan.prefix.empty())
    out += mpilaunch::format("  prefix: {0}/bin and {0}/lib first in PATH and LD_LIBRARY_PATH\n",
                             plan.prefix);
  for (const std::string& w : plan.warnings) out += mpilaunch::format("warning: {}\n", w);
  return out;
}

}  // namespace mpilaunch::launcher
