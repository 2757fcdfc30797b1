// Supervisor: dynamic processes (issue 24). A rank's MPI_Comm_spawn reaches the launcher as a
// SpawnRequest; the new job is placed on the job's nodes (launcher/job/spawn_placement.hpp),
// sent to every agent as a ChildJob (each registers its namespace and forks its share), and the
// parent's agent is answered with the new namespace. The children are processes of the attempt
// like its ranks: numbered after them, tagged [J,R], torn down with them, waited for at the end.

#include "common/text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <span>
#include <utility>

#include "launcher/hosts/hostfile.hpp"
#include "launcher/hosts/hosts_from_system.hpp"
#include "launcher/job/spawn_binding.hpp"
#include "launcher/job/spawn_placement.hpp"
#include "launcher/job/supervisor_link.hpp"

namespace mpilaunch::launcher {
namespace {
constexpr std::int32_t kPmixError = -1;              // PMIX_ERROR
constexpr std::int32_t kPmixErrOutOfResource = -29;  // PMIX_ERR_OUT_OF_RESOURCE
constexpr std::int32_t kPmixErrBadParam = -27;       // PMIX_ERR_BAD_PARAM
}  // namespace

const Supervisor::ChildJobRecord* Supervisor::child_of(std::uint32_t index) const {
  for (const ChildJobRecord& job : child_jobs_)
    if (index >= job.first_index && index - job.first_index < job.node_of_rank.size()) return &job;
  return nullptr;
}

int Supervisor::node_of(const std::string& nspace, std::uint32_t rank) const {
  if (nspace == spec_.nspace)
    return rank < initial_size() ? config_.plan.map.node_of(static_cast<int>(rank)) : -1;
  for (const ChildJobRecord& job : child_jobs_)
    if (job.nspace == nspace) return rank < job.node_of_rank.size() ? job.node_of_rank[rank] : -1;
  return -1;
}

int Supervisor::node_of_process(std::uint32_t index) const {
  if (index < initial_size()) return config_.plan.map.node_of(static_cast<int>(index));
  const ChildJobRecord* job = child_of(index);
  return job != nullptr ? job->node_of_rank[index - job->first_index] : -1;
}

const std::string& Supervisor::host_name(int node) const {
  return config_.plan.nodes.at(static_cast<std::size_t>(node)).name;
}

std::string Supervisor::report_host(int node) const {
  const std::string& name = host_name(node);
  const std::string& os_hostname = links_.at(static_cast<std::size_t>(node))->os_hostname;
  const bool loopback = name == "localhost" || name.starts_with("127.") || name == "::1";
  return loopback && !os_hostname.empty() ? short_host_name(os_hostname) : name;
}

std::vector<std::uint32_t> Supervisor::processes_on(int node) const {
  std::vector<std::uint32_t> out;
  if (node < config_.plan.map.node_count())  // an idle host's agent has no initial rank
    for (const int r : config_.plan.map.ranks_on(node))
      out.push_back(static_cast<std::uint32_t>(r));
  for (const ChildJobRecord& job : child_jobs_)
    for (std::uint32_t r = 0; r < job.node_of_rank.size(); ++r)
      if (job.node_of_rank[r] == node) out.push_back(job.first_index + r);
  return out;
}

void Supervisor::name_child(Error& error, std::uint32_t index, bool before_connect) const {
  const ChildJobRecord* job = child_of(index);
  if (job == nullptr) return;
  const std::uint32_t rank = index - job->first_index;
  error.rank = static_cast<int>(rank);
  error.executable = job->program_of_rank[rank];
  std::string what = mpilaunch::format(
      "spawned job {} ({}), rank {}, started by MPI_Comm_spawn of "
      "rank {} of {}",
      job->job_number, job->nspace, rank, job->parent_rank, job->parent_nspace);
  if (before_connect) what += ": it ended before it connected to its parent, so that call fails";
  error.detail = error.detail.empty() ? what : what + ": " + error.detail;
}

std::vector<std::vector<std::uint32_t>> Supervisor::default_child_pus(
    const ChildJobRecord& record, const std::vector<int>& running) const {
  const LaunchPlan& plan = config_.plan;
  if (!bindings_) return std::vector<std::vector<std::uint32_t>>(record.node_of_rank.size());
  std::vector<SpawnBindingNode> nodes(running.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    nodes[n].slots = n < plan.nodes.size() ? plan.nodes[n].slots : 0;
    nodes[n].running = running[n];
    // Every agent's node, also one without initial ranks (nothing bound there yet).
    if (n < links_.size() && links_[n] && !links_[n]->topology.pus.empty())
      nodes[n].topology = &links_[n]->topology;
  }
  // The PUs of every bound process that still runs: the initial ranks', then earlier children's.
  // Ranks bound by --bind-to cpu-list:ordered count on no object, as under mpirun 4.1.4
  // (measured: -n 1 --bind-to cpu-list:ordered, parent on core 0, spawn 1: the child on core 0).
  const std::size_t counted = plan.placement.ordered ? 0 : bindings_->pus.size();
  for (std::size_t n = 0; n < nodes.size() && n < counted; ++n) {
    const std::vector<int> ranks = plan.map.ranks_on(static_cast<int>(n));
    for (std::size_t local = 0; local < ranks.size() && local < bindings_->pus[n].size(); ++local)
      if (ranks_[static_cast<std::size_t>(ranks[local])].phase != RankPhase::Ended &&
          !bindings_->pus[n][local].empty())
        nodes[n].bound.push_back(bindings_->pus[n][local]);
  }
  for (const ChildJobRecord& job : child_jobs_)
    for (std::size_t r = 0; r < job.pus_of_rank.size(); ++r) {
      const auto n = static_cast<std::size_t>(job.node_of_rank[r]);
      if (ranks_[job.first_index + r].phase != RankPhase::Ended && !job.pus_of_rank[r].empty() &&
          n < nodes.size())
        nodes[n].bound.push_back(job.pus_of_rank[r]);
    }
  // Overloading a core or NUMA node keeps the binding with --oversubscribe or the job's
  // :overload-allowed (measured: -H localhost:4 -n 1 --oversubscribe, spawn 2: both on core 1;
  // --map-by core:OVERSUBSCRIBE leaves them unbound, as without).
  return bind_spawned(nodes, record.node_of_rank, plan.placement.use_hwthreads,
                      plan.placement.default_overload || plan.placement.overload_allowed);
}

void Supervisor::bind_children(ChildJobRecord& record, protocol::JobSpec& spec) {
  const LaunchPlan& plan = config_.plan;
  // --report-bindings as mpirun 4.1.4 reports spawned processes (measured): a bound child's
  // line comes from mpirun, and the child is not told to report itself (the job's
  // OMPI_MCA_hwloc_base_report_bindings=1 of unbound ranks would add a second line, in another
  // format). An unbound child of a bound job gets mpirun's "MCW rank N not bound", written by
  // the child itself before it runs the program, so with its own pid (on_child_started()); an
  // unbound child of an unbound job reports itself, as the job's ranks do.
  const bool children_bound =
      std::any_of(record.pus_of_rank.begin(), record.pus_of_rank.end(),
                  [](const std::vector<std::uint32_t>& pus) { return !pus.empty(); });
  if (children_bound) std::erase(spec.env, std::string("OMPI_MCA_hwloc_base_report_bindings=1"));
  record.report_not_bound =
      plan.placement.report_bindings && !children_bound && bindings_ && bindings_->policy != "none";
  for (std::size_t r = 0; r < record.pus_of_rank.size(); ++r) {
    const std::vector<std::uint32_t>& pus = record.pus_of_rank[r];
    const auto n = static_cast<std::size_t>(record.node_of_rank[r]);
    if (pus.empty() || n >= links_.size() || !links_[n]) continue;
    const Link& node_link = *links_[n];
    protocol::NodeRanks& node = spec.nodes[n];
    node.cpus.resize(node.ranks.size());
    const auto local = static_cast<std::size_t>(
        std::find(node.ranks.begin(), node.ranks.end(), static_cast<std::uint32_t>(r)) -
        node.ranks.begin());
    if (local < node.cpus.size()) node.cpus[local] = os_cpu_list(node_link.topology, pus);
    // mpirun 4.1.4 reports a bound child as it reports the job's ranks (rank in its own job),
    // from its daemon (the node's agent here).
    if (plan.placement.report_bindings)
      write_report_line(
          record.first_index + static_cast<std::uint32_t>(r),
          mpilaunch::format("[{}:{:05}] {}\n", report_host(static_cast<int>(n)),
                            node_link.agent_pid,
                            report_binding_line(static_cast<int>(r), node_link.topology, pus)));
  }
}

void Supervisor::on_child_started(const ChildJobRecord& job, std::uint32_t index, int node,
                                  std::int32_t pid) {
  const std::uint32_t rank = index - job.first_index;
  if (!job.report_not_bound || rank >= job.pus_of_rank.size() || !job.pus_of_rank[rank].empty())
    return;
  // mpirun 4.1.4 (measured): "[vm:PID] MCW rank 0 not bound", PID the child's own: its
  // daemon's forked child writes it before exec.
  write_report_line(
      index, mpilaunch::format("[{}:{:05}] MCW rank {} not bound\n", report_host(node), pid, rank));
}

void Supervisor::write_report_line(std::uint32_t index, const std::string& line) {
  // mpirun 4.1.4 sends a spawned process's line as that process's stderr (measured: tagged
  // [2,R]<stderr>: or [3,R]<stderr>: with --tag-output), as it does the job's ranks'.
  if (output_.formats()) {
    output_.write(index, protocol::Stream::Stderr,
                  std::as_bytes(std::span(line.data(), line.size())));
    return;
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

namespace {

// A spawn's info host file (`hostfile`, `add-hostfile`: `key`), read on the launcher's
// machine as --hostfile is (bounded; a directory refused): the names of its hosts.
Result<std::vector<std::string>> spawn_file_hosts(const std::string& path, std::string_view key) {
  auto text = read_host_file(path);
  auto entries =
      text ? parse_hostfile(text.value(), path) : Result<std::vector<HostEntry>>(text.error());
  if (!entries) {
    Error e = entries.error();
    // A file that could not be read at all keeps phase "read" and its hint (no line to fix).
    if (e.phase != "read") e.phase = "spawn";
    e.detail = mpilaunch::format("MPI_Comm_spawn's info {}, read on the launcher's machine: {}",
                                 key, e.detail);
    return e;
  }
  std::vector<std::string> names;
  for (const HostEntry& h : entries.value()) names.push_back(h.name);
  return names;
}

// The nodes one application context of a spawn may use (place_spawn's `hosts`), from its info
// keys. A host file named by `hostfile` is read here, on the launcher's machine (its slots=
// change nothing, as under mpirun 4.1.4). `add-hostfile` (the agent passes it in add_host as
// "add-hostfile=FILE") naming only hosts of the job restricts the nodes to them as `add-host`
// does, slots= ignored (measured); a new host in it is refused by name: mpirun 4.1.4 starts
// daemons on the file's new hosts, then its job fails (measured).
Result<std::string> spawn_hosts(const std::vector<SpawnNode>& nodes, const protocol::SpawnApp& app,
                                const std::string& hostname) {
  constexpr std::string_view kAddHostfile = "add-hostfile=";
  std::string add_host = app.add_host;
  if (app.add_host.starts_with(kAddHostfile)) {
    const std::string path = app.add_host.substr(kAddHostfile.size());
    auto names = spawn_file_hosts(path, "add-hostfile");
    if (!names) return names.error();
    add_host.clear();
    for (const std::string& name : names.value()) {
      if (!spawn_nodes_named(nodes, name, hostname, "add-hostfile"))
        return Error{.kind = ErrorKind::BadOption,
                     .host = name,
                     .phase = "spawn",
                     .detail = mpilaunch::format(
                         "MPI_Comm_spawn's info add-hostfile {} names {}, which is not a node of "
                         "this job: adding hosts is not served (mpirun 4.1.4 starts daemons on "
                         "them, then its job fails); list every host at launch (-H, --hostfile)",
                         path, name)};
      add_host += (add_host.empty() ? "" : ",") + name;
    }
    if (add_host.empty())
      return Error{
          .kind = ErrorKind::HostfileError,
          .phase = "spawn",
          .detail = mpilaunch::format("MPI_Comm_spawn's info add-hostfile {} names no host", path)};
  }
  SpawnHostKeys keys{.host = app.host, .hostfile = app.hostfile, .add_host = add_host};
  if (!app.hostfile.empty()) {
    auto names = spawn_file_hosts(app.hostfile, "hostfile");
    if (!names) return names.error();
    keys.hostfile_hosts = std::move(names).value();
  }
  return spawn_host_filter(nodes, keys, hostname);
}

// A spawn from a job placed by a rankfile (place_spawn_by_rankfile()): the node of each of the
// `count` processes from spawned rank `first` on; their CPUs, each its line's slot on its node
// (`topologies`, by node; null: unknown, unbound), are appended to `pus`. mpirun 4.1.4 binds them
// so, also when the job runs with --bind-to none (measured). The info keys that choose hosts
// would contradict the lines: refused by name.
Result<std::vector<int>> spawn_by_rankfile(const LaunchPlan& plan,
                                           const std::vector<const NodeTopology*>& topologies,
                                           int first, int count, bool host_keys,
                                           std::vector<std::vector<std::uint32_t>>& pus) {
  if (host_keys)
    return Error{.kind = ErrorKind::BadOption,
                 .phase = "spawn",
                 .detail = mpilaunch::format(
                     "MPI_Comm_spawn's info host, hostfile or add-host in a job placed by the "
                     "rankfile {}: its spawned processes go where the file's lines say",
                     plan.rankfile_path)};
  auto lines = place_spawn_by_rankfile(plan.rankfile, plan.rankfile_path, first, count,
                                       plan.request.oversubscribe);
  if (!lines) return lines.error();
  std::vector<std::string> names;
  std::vector<NodePlacementInput> inputs;
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    names.push_back(plan.nodes[n].name);
    inputs.push_back({plan.nodes[n].slots, n < topologies.size() && topologies[n] != nullptr
                                               ? *topologies[n]
                                               : NodeTopology{}});
  }
  std::vector<int> node_of_rank;
  PlacementPolicy policy = plan.placement;
  policy.rankfile.clear();
  for (const RankfilePlace& line : lines.value()) {
    node_of_rank.push_back(line.node);
    policy.rankfile.push_back(line.slot);
  }
  const JobMap map(std::move(names), node_of_rank);
  auto bound = bind_rankfile(map, inputs, policy);
  if (!bound) {
    Error e = bound.error();
    e.phase = "spawn";
    return e;
  }
  std::vector<std::vector<std::uint32_t>> mine(static_cast<std::size_t>(count));
  for (int n = 0; n < map.node_count(); ++n)
    for (std::size_t local = 0; local < map.ranks_on(n).size(); ++local)
      mine[static_cast<std::size_t>(map.ranks_on(n)[local])] =
          bound->pus[static_cast<std::size_t>(n)][local];
  pus.insert(pus.end(), mine.begin(), mine.end());
  return node_of_rank;
}

}  // namespace

void Supervisor::on_spawn_request(Link& link, std::uint32_t id, const protocol::SpawnRequest& m) {
  const auto refuse = [&](std::int32_t status) {
    link.stream.send(protocol::SpawnReply{status, {}}, 0, id);
  };
  if ((state_ != JobState::Running && state_ != JobState::SpawningRanks) || error_ ||
      m.apps.empty())
    return refuse(kPmixError);
  const LaunchPlan& plan = config_.plan;
  // Where the new job's filling starts: the spawning job's bookmark (mpirun 4.1.4, measured):
  // the initial job's is the node of its last rank; a spawned job's (a spawned process's own
  // spawn: grandchildren, mpirun's job 3) is its own, kept when it was placed, not the initial
  // job's.
  int bookmark = initial_size() > 0 ? plan.map.node_of(static_cast<int>(initial_size()) - 1) : -1;
  if (m.nspace != spec_.nspace) {
    const auto parent = std::find_if(child_jobs_.begin(), child_jobs_.end(),
                                     [&](const ChildJobRecord& r) { return r.nspace == m.nspace; });
    if (parent == child_jobs_.end() || m.rank >= parent->node_of_rank.size())
      return refuse(kPmixError);
    bookmark = parent->bookmark;
  }
  // Every node's slots and what still runs there, the children of earlier spawns included;
  // the idle hosts' agents too, as mpirun places children on every host of the allocation.
  std::vector<SpawnNode> nodes;
  for (const HostEntry& host : plan.nodes) nodes.push_back({host.name, host.slots, 0});
  for (std::uint32_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i].phase == RankPhase::Ended) continue;
    const ChildJobRecord* job = child_of(i);
    const int n = job != nullptr ? job->node_of_rank[i - job->first_index]
                                 : plan.map.node_of(static_cast<int>(i));
    if (n >= 0) ++nodes[static_cast<std::size_t>(n)].used;
  }
  for (SpawnNode& node : nodes) node.this_machine = is_local_name(node.name, plan.hostname);
  std::vector<int> running;  // per node, before this spawn
  for (const SpawnNode& node : nodes) running.push_back(node.used);
  if (plan.display_allocation) {
    // mpirun 4.1.4 prints the allocation again at each spawn, with the processes running on
    // each host, before it maps the new job (measured).
    std::vector<int> in_use;
    for (const HostEntry& a : plan.allocation) {
      int used = 0;
      for (std::size_t n = 0; n < plan.nodes.size(); ++n)
        if (plan.nodes[n].name == a.name) used = running[n];
      in_use.push_back(used);
    }
    const std::string text = allocation_text(plan, in_use);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  ChildJobRecord record;
  record.job_number = static_cast<std::uint32_t>(child_jobs_.size()) + 2;
  record.nspace = mpilaunch::format("{}-job{}", spec_.nspace, record.job_number);
  record.first_index = static_cast<std::uint32_t>(ranks_.size());
  record.parent_nspace = m.nspace;
  record.parent_rank = m.rank;
  protocol::JobSpec spec = spec_;
  spec.nspace = record.nspace;
  spec.apps.clear();
  spec.stdin_rank = protocol::kStdinNone;
  // mpirun 4.1.4 (measured): --index-argv-by-rank leaves spawned children's argv[0] alone.
  spec.index_argv_by_rank = false;
  // An MPICH parent (PMI spawn) gets MPICH children: a PMI socket each, no PMIx.
  spec.serve_pmi = m.pmi;
  spec.serve_pmix = !m.pmi;
  for (protocol::NodeRanks& node : spec.nodes) {
    node.ranks.clear();
    node.cpus.clear();
  }
  // The spawn's own map_by (info key, PMIX_MAPBY); the job's --map-by does not apply to
  // children under mpirun 4.1.4 (measured).
  const Result<SpawnMapping> mapping = spawn_mapping(m.map_by);
  // ...but its ranking does: a job ranked by node (--map-by node without --rank-by, or
  // --rank-by node) gets its children ranked by node too (measured).
  const bool children_by_node =
      plan.placement.rank_by_node || (plan.placement.by_node && !plan.placement.rank_given);
  // A rankfile job's children are bound by their lines, on their nodes' topologies.
  std::vector<std::vector<std::uint32_t>> rankfile_pus;
  std::vector<const NodeTopology*> topologies;
  for (const auto& l : links_) topologies.push_back(l ? &l->topology : nullptr);
  for (const protocol::SpawnApp& app : m.apps) {
    auto hosts = spawn_hosts(nodes, app, plan.hostname);
    auto placed =
        !mapping ? Result<std::vector<int>>(mapping.error())
        : !hosts ? Result<std::vector<int>>(hosts.error())
        : !plan.rankfile.empty()
            ? spawn_by_rankfile(plan, topologies, static_cast<int>(record.node_of_rank.size()),
                                static_cast<int>(app.maxprocs), !hosts->empty(), rankfile_pus)
            : place_spawn(nodes, hosts.value(), static_cast<int>(app.maxprocs),
                          plan.request.oversubscribe, plan.hostname, mapping.value(), bookmark,
                          children_by_node, &record.bookmark);
    // mpirun 4.1.4 maps a job's ranks on a --cpu-list/--cpu-set with its rank_file mapper,
    // which does not map spawned processes: the spawn fails in binding ("the locale of the
    // following process was not set by the mapper code"), also with --bind-to none, once the
    // children fit the slots (measured). Children outside the job's list would be a silent
    // difference. --bind-to cpu-list:ordered maps as usual: children spawn there.
    if (placed && plan.placement.cpu_list && !plan.placement.ordered)
      placed = Error{.kind = ErrorKind::BadOption,
                     .phase = "spawn",
                     .detail = mpilaunch::format(
                         "the job's ranks are placed on the CPU list {} (--cpu-list/--cpu-set), "
                         "which places no spawned process (mpirun 4.1.4 fails this spawn too: 'the "
                         "locale of the "
                         "following process was not set by the mapper code'); spawn from a job "
                         "without --cpu-list/--cpu-set, or with --bind-to cpu-list:ordered",
                         plan.placement.cpu_list->text)};
    if (!placed || app.argv.empty()) {
      Error e = placed ? Error{.kind = ErrorKind::BadOption,
                               .phase = "spawn",
                               .detail = "MPI_Comm_spawn without a command"}
                       : placed.error();
      e.executable = app.argv.empty() ? std::string() : app.argv.front();
      e.detail =
          mpilaunch::format("rank {} of {} called MPI_Comm_spawn: {}", m.rank, m.nspace, e.detail);
      refuse(e.kind == ErrorKind::NotEnoughSlots ? kPmixErrOutOfResource : kPmixErrBadParam);
      events_.write("spawn-refused", {{"nspace", m.nspace},
                                      {"rank", m.rank},
                                      {"kind", std::string(kind_name(e.kind))},
                                      {"detail", e.detail}});
      return fail(std::move(e), JobEvent::RankFailed);
    }
    for (int n : placed.value()) {
      const auto rank = static_cast<std::uint32_t>(record.node_of_rank.size());
      spec.nodes[static_cast<std::size_t>(n)].ranks.push_back(rank);
      record.node_of_rank.push_back(n);
      record.program_of_rank.push_back(app.argv.front());
    }
    spec.apps.push_back({app.argv, app.env, app.wdir, app.maxprocs});
  }
  // A rankfile job's children are bound by their lines, the others as mpirun's default binds.
  record.pus_of_rank =
      plan.rankfile.empty() ? default_child_pus(record, running) : std::move(rankfile_pus);
  const auto count = static_cast<std::uint32_t>(record.node_of_rank.size());
  // Named before their --report-bindings lines go out as their output.
  for (std::uint32_t r = 0; r < count; ++r)
    output_.name_process(record.first_index + r, record.job_number, r);
  bind_children(record, spec);
  ranks_.resize(ranks_.size() + count, RankStatus{RankPhase::Spawning, -1});
  for (std::uint32_t r = 0; r < count; ++r)
    ++status_.nodes[host_name(record.node_of_rank[r])].pending;
  relay_.add_namespace(record.nspace, record.node_of_rank);
  nlohmann::json hosts = nlohmann::json::array();
  for (int n : record.node_of_rank) hosts.push_back(host_name(n));
  nlohmann::json cpus = nlohmann::json::array();  // per child, "" unbound
  for (std::uint32_t r = 0; r < count; ++r) {
    const auto n = static_cast<std::size_t>(record.node_of_rank[r]);
    cpus.push_back(record.pus_of_rank[r].empty()
                       ? std::string()
                       : os_cpu_list(links_[n]->topology, record.pus_of_rank[r]));
  }
  events_.write("spawn", {{"job", record.job_number},
                          {"nspace", record.nspace},
                          {"parent_nspace", m.nspace},
                          {"parent_rank", m.rank},
                          {"np", count},
                          {"map_by", m.map_by},
                          {"hosts", std::move(hosts)},
                          {"cpus", std::move(cpus)},
                          {"attempt", attempt_}});
  protocol::ChildJob child{std::move(spec), record.job_number, record.first_index, m.nspace,
                           m.rank,          m.preput};
  child_jobs_.push_back(std::move(record));
  // Each agent reads its frames in order: the parent's agent has registered the namespace and
  // forked its share before it reads the reply.
  for (const auto& l : links_)
    if (l && !l->closed) l->stream.send(child);
  link.stream.send(protocol::SpawnReply{0, child.spec.nspace}, 0, id);
  update_status();
}

}  // namespace mpilaunch::launcher
