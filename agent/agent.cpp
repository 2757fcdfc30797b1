#include "agent/agent.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "common/mca_params.hpp"
#include "common/text_format.hpp"

#include "agent/namespace_info.hpp"
#include "agent/rank_env.hpp"
#include "agent/topology_cache.hpp"
#include "agent/topology_summary.hpp"
#include "agent/transport_facts.hpp"
#include "common/handshake.hpp"
#include "common/os_hostname.hpp"
#include "common/stream_channel.hpp"
#include "mpilaunch_version.h"

extern char** environ;

namespace mpilaunch::agent {
namespace {

constexpr std::size_t kOutputQueueLimit = 1 << 20;     // bytes of frames queued before readers wait
constexpr std::size_t kOutputChunk = 256 * 1024;       // one read of a rank's output, one frame
constexpr auto kDrainGrace = std::chrono::seconds(2);  // output still open after a rank's exit

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

std::vector<std::byte> to_bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

}  // namespace

Agent::Agent(asio::io_context& io, int in_fd, int out_fd, int stream_fd, int login_ms)
    : io_(io),
      frames_(io, in_fd, out_fd, "launcher"),
      pmix_(io, *this),
      children_(io, [this](pid_t pid, ExitReason reason) { on_reaped(pid, reason); }),
      stream_fd_(stream_fd),
      login_ms_(login_ms) {}

int Agent::run() {
  frames_.send_raw(to_bytes(handshake::hello_line(os_hostname())));
  asio::co_spawn(io_, frames_.read_loop(*this, false), asio::detached);
  io_.run();
  return exit_code_;
}

void Agent::on_message(protocol::Envelope envelope) {
  using namespace protocol;
  const std::uint32_t id = envelope.id;
  const std::uint32_t refers_to = envelope.refers_to;
  std::visit(
      Overloaded{
          [&](const LauncherHello& m) { handle(m); },
          [&](const JobSpec& m) { handle(m); },
          [&](const Spawn& m) { handle(m); },
          [&](const ChildJob& m) { handle(m); },
          [&](const SpawnReply& m) {
            const auto it = pending_spawns_.find(refers_to);
            if (it == pending_spawns_.end()) return;
            const SpawnDone done = std::move(it->second);
            pending_spawns_.erase(it);
            done(m.status, m.nspace);
          },
          [&](const Kill& m) { handle(m); },
          [&](const Shutdown& m) { handle(m); },
          [&](const StdinData& m) { handle(m); },
          [&](const CollectStacks& m) { handle(m, id); },
          [&](const FenceRelease& m) {
            const auto it = pending_fences_.find({m.nspace + "|" + m.procs, m.seq});
            if (it == pending_fences_.end()) return;
            it->second(m.status, m.data);
            pending_fences_.erase(it);
          },
          [&](const DmodexRequest& m) {
            pmix_.request_dmodex(
                m.nspace, m.rank, [this, id](int status, std::span<const std::byte> data) {
                  frames_.send(DmodexReply{status, {data.begin(), data.end()}}, 0, id);
                });
          },
          [&](const DmodexReply& m) {
            const auto it = pending_dmodex_.find(refers_to);
            if (it == pending_dmodex_.end()) return;
            it->second(m.status, m.data);
            pending_dmodex_.erase(it);
          },
          [&](const NameReply& m) {
            const auto it = pending_names_.find(refers_to);
            if (it == pending_names_.end()) return;
            NameDone done = std::move(it->second);
            pending_names_.erase(it);
            done(m);
          },
          [&](const auto& m) {
            fail(Error{.kind = ErrorKind::MalformedFrame,
                       .detail = mpilaunch::format("the agent does not accept message type {}",
                                                   static_cast<int>(type_of(Message{m})))});
          },
      },
      envelope.message);
}

void Agent::on_closed(std::optional<Error> why) {
  if (finished_) return;
  if (why)
    std::fprintf(stderr, "mpilaunch-agent: link to the launcher failed: %s\n", why->detail.c_str());
  launcher_gone_ = true;
  if (!shutting_down_) exit_code_ = 1;
  children_.signal_all(SIGKILL);
  maybe_finish();
}

void Agent::handle(const protocol::LauncherHello& m) {
  hello_ = m;
  // The PMIx server and the ranks read the same file (rank_env.hpp); the launcher maps and
  // binds with its summary.
  if (!topology_xml_) topology_xml_ = topology_file();
  bool narrowed = false;
  NodeTopology topology = this_node_topology(*topology_xml_, &narrowed);
  own_cpu_count_ = narrowed ? topology.pus.size() : 0;
  frames_.send(protocol::AgentHello{MPILAUNCH_VERSION, os_hostname(), static_cast<int>(::getpid()),
                                    static_cast<std::uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN)),
                                    transport_facts(), login_ms_, std::move(topology)});
}

std::string Agent::node_dir() const {
  return mpilaunch::format("{}/node{}", job_->tmpdir, hello_->node_index);
}

void Agent::handle(const protocol::JobSpec& m) {
  if (!hello_)
    return fail(Error{.kind = ErrorKind::MalformedFrame, .detail = "job spec before hello"});
  auto values = namespace_values(m, hello_->node_index);
  if (!values) return fail(values.error());
  if (job_ && job_->nspace != m.nspace) {
    drop_all_stdin();
    for (const auto& [nspace, child] : child_jobs_) pmix_.deregister_namespace(nspace);
    child_jobs_.clear();
    pmix_.deregister_namespace(job_->nspace);
    ranks_.clear();
    rank_of_pid_.clear();
    children_.release_ended();  // the previous attempt's leftovers
    // ... and its files: Open MPI's session directory and shared-memory segments. Every rank of
    // it is gone, so nothing maps them any more; the PMIx server's own directory stays.
    std::error_code ec;
    std::filesystem::remove_all(node_dir() + "/ompi/" + job_->nspace, ec);
    std::filesystem::remove_all(node_dir() + "/vader", ec);
    cgroup_.kill_all({});  // what its ranks left running, daemons included
  }
  if (!job_dir_.held()) {
    // The first job spec: this machine's job directory, 0700, held until the agent ends; job
    // directories of this user whose every process is gone (a SIGKILLed job) are removed.
    std::error_code ec;
    const std::filesystem::path dir(m.tmpdir);
    std::filesystem::create_directories(dir.parent_path(), ec);
    remove_stale_job_dirs(dir.parent_path().string());
    auto hold = JobDirHold::take(m.tmpdir);
    if (!hold) {
      Error e = hold.error();
      e.host = hello_->node_name;
      return fail(e);
    }
    job_dir_ = std::move(hold).value();
    cgroup_.start(
        mpilaunch::format("mpilaunch-{}-node{}-{}", m.job_id, hello_->node_index, ::getpid()));
  }
  close_pmi_servers();
  job_ = m;
  unsupported_said_.clear();
  if (m.serve_pmi) pmi_ = make_pmi_server(m, *values, {});
  std::error_code ec;
  for (const char* sub : {"pmix", "vader", "ompi"})
    std::filesystem::create_directories(node_dir() + "/" + sub, ec);
  if (ec)
    return fail(
        Error{.kind = ErrorKind::OutOfResources,
              .host = hello_->node_name,
              .detail = mpilaunch::format("cannot create {}: {}", node_dir(), ec.message())});
  // For the PMIx server and for the ranks' own hwloc discovery in MPI_Init (rank_env.hpp).
  if (!topology_xml_) topology_xml_ = topology_file();
  if (!m.serve_pmix) return;  // MPICH-only job: no PMIx server needed
  if (!pmix_.initialized()) {
    // The store is chosen once, for the first job; restarts keep the server.
    const std::string_view gds = default_gds(values->local_ranks.size(), values->job_size,
                                             offers_shared_store(pmix_library_version()));
    if (auto st = pmix_.init(hello_->node_name, hello_->node_index, node_dir() + "/pmix", gds,
                             values->job_size, *topology_xml_);
        !st)
      return fail(st.error());
  }
  const std::string ns_dir = node_dir() + "/ompi/" + m.nspace;
  std::filesystem::create_directories(ns_dir, ec);
  if (auto st = pmix_.register_namespace(m.nspace, values.value(), node_dir() + "/ompi", ns_dir);
      !st)
    return fail(st.error());
}

void Agent::handle(const protocol::Spawn& m) {
  if (!job_ || job_->nspace != m.nspace)
    return fail(
        Error{.kind = ErrorKind::MalformedFrame, .detail = "spawn of an unknown namespace"});
  if (shutting_down_) return;
  kill_seen_ = false;
  start_ranks(*job_, 0);
}

void Agent::start_ranks(const protocol::JobSpec& job, std::uint32_t first_index) {
  // Every rank is prepared first (PMIx registration, environment), then all are forked back to
  // back, then confirmed: a rank's exec and the next rank's PMIx registration would otherwise
  // compete for the CPUs, and every fork would wait for the previous rank's exec.
  std::vector<std::pair<std::uint32_t, SpawnRequest>> prepared;
  for (std::uint32_t rank : job.nodes[hello_->node_index].ranks)
    if (auto request = prepare_rank(job, rank, first_index + rank))
      prepared.emplace_back(rank, std::move(*request));
  std::vector<std::pair<std::uint32_t, SpawnedChild>> forked;
  for (const auto& [rank, request] : prepared)
    if (auto child = fork_rank(request, job.nspace, rank))
      forked.emplace_back(request.rank, std::move(*child));
  for (auto& [rank, child] : forked) {
    if (Status st = children_.confirm_exec(child); !st) {
      report_spawn_failure(rank, st.error());  // registered until the namespace goes
      continue;
    }
    Rank& r = ranks_[rank];
    r.rank = rank;
    r.pid = child.pid;
    rank_of_pid_[child.pid] = rank;
    if (child.stdin_fd >= 0)
      stdin_pipes_.push_back(std::make_shared<StdinPipe>(io_, child.stdin_fd));
    if (pass_streams(rank, child)) {
      frames_.send(protocol::RankStarted{rank, child.pid, true});
      continue;
    }
    r.open_streams = 2;
    r.out = std::make_unique<asio::posix::stream_descriptor>(io_, child.stdout_fd);
    r.err = std::make_unique<asio::posix::stream_descriptor>(io_, child.stderr_fd);
    frames_.send(protocol::RankStarted{rank, child.pid, false});
    boost::system::error_code nb_error;
    if (child.stdout_is_pty) r.out->non_blocking(true, nb_error);
    const bool fill = child.stdout_is_pty && !nb_error;
    asio::co_spawn(io_, pump(rank, protocol::Stream::Stdout, *r.out, fill), asio::detached);
    asio::co_spawn(io_, pump(rank, protocol::Stream::Stderr, *r.err, false), asio::detached);
  }
}

void Agent::handle(const protocol::ChildJob& m) {
  if (!job_ || !hello_ || shutting_down_) return;
  // Open MPI's children are registered with the PMIx server; MPICH's (PMI spawn) get a PMI
  // server of their own, their kvs seeded with the parent's preput keys.
  if (m.spec.serve_pmix && (!job_->serve_pmix || !pmix_.initialized())) return;
  // The parent is a rank of the job or of a spawned job (a spawned process's own spawn).
  if ((m.parent_nspace != job_->nspace && !child_jobs_.contains(m.parent_nspace)) ||
      child_jobs_.contains(m.spec.nspace))
    return;
  auto values = namespace_values(m.spec, hello_->node_index);
  if (!values) return fail(values.error());
  const protocol::ChildJob& child = child_jobs_.emplace(m.spec.nspace, m).first->second;
  if (m.spec.serve_pmix) {
    const std::string ns_dir = node_dir() + "/ompi/" + m.spec.nspace;
    std::error_code ec;
    std::filesystem::create_directories(ns_dir, ec);
    if (auto st = pmix_.register_namespace(m.spec.nspace, values.value(), node_dir() + "/ompi",
                                           ns_dir, std::pair{m.parent_nspace, m.parent_rank});
        !st) {
      // The spawned processes of this node cannot start: each is reported as such (the
      // launcher names the spawned job and rank), so nobody waits for them; a node with none
      // of them reports the failure itself.
      const auto& local = m.spec.nodes[hello_->node_index].ranks;
      if (local.empty()) return fail(st.error());
      for (const std::uint32_t rank : local)
        report_spawn_failure(child.first_index + rank, st.error());
      return;
    }
  }
  if (m.spec.serve_pmi) child_pmi_[m.spec.nspace] = make_pmi_server(m.spec, *values, m.preput);
  start_ranks(child.spec, child.first_index);
}

std::shared_ptr<PmiServer> Agent::make_pmi_server(const protocol::JobSpec& spec,
                                                  const NamespaceValues& values,
                                                  const std::vector<std::string>& preput) {
  std::vector<std::vector<std::uint32_t>> placement;
  for (const protocol::NodeRanks& node : spec.nodes) placement.push_back(node.ranks);
  pmi::JobFacts facts{.kvsname = spec.nspace,
                      .size = static_cast<int>(values.job_size),
                      .process_mapping = pmi::process_mapping(placement),
                      .local_ranks = {},
                      .app_sizes = {},
                      .preput = {}};
  for (std::uint32_t n : values.app_sizes) facts.app_sizes.push_back(static_cast<int>(n));
  for (std::uint32_t r : spec.nodes[hello_->node_index].ranks)
    facts.local_ranks.push_back(static_cast<int>(r));
  for (const std::string& kv : preput)
    if (const std::size_t eq = kv.find('='); eq != std::string::npos)
      facts.preput[kv.substr(0, eq)] = kv.substr(eq + 1);
  return std::make_shared<PmiServer>(io_, *this, std::move(facts));
}

std::shared_ptr<PmiServer> Agent::pmi_of(const std::string& nspace) const {
  if (job_ && job_->nspace == nspace) return pmi_;
  const auto it = child_pmi_.find(nspace);
  return it == child_pmi_.end() ? nullptr : it->second;
}

void Agent::close_pmi_servers() {
  if (pmi_) pmi_->close_all();
  pmi_.reset();
  for (const auto& [nspace, server] : child_pmi_) server->close_all();
  child_pmi_.clear();
}

void Agent::on_spawn(protocol::SpawnRequest request, SpawnDone done) {
  if (launcher_gone_ || shutting_down_ || finished_) return done(-1, {});  // PMIX_ERROR
  const std::uint32_t id = next_request_id_++;
  pending_spawns_[id] = std::move(done);
  frames_.send(std::move(request), id);
}

bool Agent::pass_streams(std::uint32_t rank, const SpawnedChild& child) {
  if (stream_fd_ < 0) return false;
  // Sent before RankStarted is queued: the launcher finds the record once it reads that frame.
  const Status sent =
      stream_channel::send(stream_fd_, {rank, job_->attempt, child.stdout_fd, child.stderr_fd});
  if (!sent) {
    std::fprintf(stderr, "mpilaunch-agent: %s; forwarding rank output itself\n",
                 sent.error().detail.c_str());
    ::close(stream_fd_);
    stream_fd_ = -1;
    return false;
  }
  ::close(child.stdout_fd);
  ::close(child.stderr_fd);
  return true;
}

void Agent::report_spawn_failure(std::uint32_t rank, Error e) {
  e.host = hello_->node_name;
  e.rank = static_cast<int>(rank);
  if (e.phase.empty()) e.phase = "spawn";
  Rank& r = ranks_[rank];
  r.rank = rank;
  r.reported = true;
  frames_.send(protocol::SpawnFailed{std::move(e)});
}

bool Agent::oversubscribed_for(const protocol::JobSpec& job, std::uint32_t first_index) const {
  const protocol::NodeRanks& node = job.nodes[hello_->node_index];
  // More ranks than the CPUs this agent's mask leaves them (taskset, a cgroup) share CPUs as on
  // an oversubscribed node: Open MPI must yield there, not busy-poll (mpirun counts only slots).
  if (own_cpu_count_ > 0 && node.ranks.size() > own_cpu_count_) return true;
  if (&job == &*job_) return oversubscribed(node);
  // A spawned job shares the node with every process still running there (the initial ranks,
  // earlier spawns): mpirun 4.1.4 counts them all (measured: 2 children next to 2 ranks on 2
  // slots get 1, the ranks keep their 0).
  std::size_t size = 0;
  for (const protocol::NodeRanks& n : job.nodes) size += n.ranks.size();
  std::size_t running = node.ranks.size();
  for (const auto& [index, r] : ranks_)
    if (!r.exit && r.pid > 0 && (index < first_index || index - first_index >= size)) ++running;
  return node.slots > 0 && running > node.slots;
}

std::optional<SpawnRequest> Agent::prepare_rank(const protocol::JobSpec& job, std::uint32_t rank,
                                                std::uint32_t index) {
  const bool current = &job == &*job_;
  const auto& local = job.nodes[hello_->node_index].ranks;
  const int local_rank =
      static_cast<int>(std::find(local.begin(), local.end(), rank) - local.begin());
  std::size_t size = 0;
  for (const auto& node : job.nodes) size += node.ranks.size();
  RankEnvInput input;
  if (job.serve_pmix) {
    auto pmix_env = pmix_.register_client(job.nspace, rank, ::getuid(), ::getgid());
    if (!pmix_env) {
      report_spawn_failure(index, pmix_env.error());
      return std::nullopt;
    }
    input.pmix = std::move(pmix_env).value();
  }
  if (const auto pmi = pmi_of(job.nspace); pmi && job.serve_pmi) {
    auto fd = pmi->open(rank);
    if (!fd) {
      report_spawn_failure(index, fd.error());
      return std::nullopt;
    }
    input.pmi_fd = fd.value();
  }
  for (char** e = environ; *e != nullptr; ++e) input.inherited.emplace_back(*e);
  // The rank's application context: its program, arguments, directory and -x.
  for (const protocol::AppContext& a : job.apps) input.app.app_sizes.push_back(a.num_procs);
  const std::uint32_t appnum = app_of_rank(input.app.app_sizes, rank);
  const protocol::AppContext& app = job.apps.at(appnum);
  input.app.appnum = static_cast<int>(appnum);
  input.app.argv = app.argv;
  input.app.wdir = app.wdir;
  const auto& cpus = job.nodes[hello_->node_index].cpus;
  const std::string bind = static_cast<std::size_t>(local_rank) < cpus.size()
                               ? cpus[static_cast<std::size_t>(local_rank)]
                               : std::string();
  // Bound, or told so all the same (NodeRanks::told_bound): Open MPI then does not bind the
  // rank itself (asked to report, it says "not bound").
  const bool bound = !bind.empty() && !job.cpus_not_bound;
  input.bound = bound || job.nodes[hello_->node_index].told_bound;
  input.job = job.env;
  // The job's OMPI_MCA_hwloc_base_report_bindings=1 asks an unbound rank's Open MPI to report
  // it; a bound rank's line is the launcher's. mpirun 4.1.4 gives it to the unbound ranks only
  // when it binds some (measured: -H node1:3,node2:1 -n 4 --report-bindings, node2's bound
  // rank has none; a later context's --report-bindings, in app.env below, still counts).
  if (bound) std::erase(input.job, std::string("OMPI_MCA_hwloc_base_report_bindings=1"));
  for (const std::string& entry : app.env)
    // A spawned job's context carries its parent's OMPI_* variables (Open MPI's spawn forwards
    // them), among them the parent's node's oversubscription and whether the parent reports
    // its own binding: the child's own node and binding decide, as under mpirun 4.1.4 (a --mca
    // or -x of the job's still comes with job.env). Likewise the parent's node's directories
    // (rank_env.hpp): a child on another virtual node with its parent's vader directory shared
    // its segment files with a sibling of the same local rank there, and crashed in MPI_Init.
    if (current || !(entry.starts_with("OMPI_MCA_mpi_oversubscribe=") ||
                     entry.starts_with("OMPI_MCA_hwloc_base_report_bindings=") ||
                     entry.starts_with("OMPI_MCA_btl_vader_backing_directory=") ||
                     entry.starts_with("OMPI_MCA_orte_tmpdir_base=")))
      input.job.push_back(entry);
  input.placement = RankPlacement{static_cast<int>(rank),
                                  static_cast<int>(size),
                                  local_rank,
                                  static_cast<int>(local.size()),
                                  local_rank,
                                  static_cast<int>(job.attempt),
                                  static_cast<int>(job.universe_size),
                                  oversubscribed_for(job, index - rank)};
  input.vader_dir = node_dir() + "/vader";
  input.ompi_tmpdir = node_dir() + "/ompi";
  input.virtual_nodes = job.virtual_nodes;
  // Only when no other node is the job's: an idle host's agent (no initial rank) can receive
  // spawned processes, which must reach these ranks over the network.
  input.whole_job_here = local.size() == size && job.nodes.size() == 1;
  input.topology_xml = topology_xml_.value_or(std::string());
  input.prefix = job.prefix;
  // --index-argv-by-rank: argv[0] "<argv[0]>-<rank in the job>", as mpirun 4.1.4 gives it.
  const std::string argv0 = job.index_argv_by_rank && !app.argv.empty()
                                ? mpilaunch::format("{}-{}", app.argv.front(), rank)
                                : std::string();
  std::vector<std::string> env = build_rank_env(input);
  // Open MPI's iof_base_redirect_app_stderr_to_stdout, as the rank's environment gives it (a
  // --mca, the launcher's OMPI_MCA_*, or the launcher's reading of the parameter files): the
  // rank's stderr is its stdout, as mpirun 4.1.4's daemons start it (measured: fd 2 is fd 1's
  // pty).
  constexpr std::string_view kRedirect = "OMPI_MCA_iof_base_redirect_app_stderr_to_stdout=";
  const auto redirect = std::find_if(
      env.rbegin(), env.rend(), [&](const std::string& e) { return e.starts_with(kRedirect); });
  const bool stderr_to_stdout =
      redirect != env.rend() && mca_bool(redirect->substr(kRedirect.size())).value_or(false);
  return SpawnRequest{.rank = index,
                      .argv = app.argv,
                      .argv0 = argv0,
                      .env = std::move(env),
                      .wdir = app.wdir,
                      .exec_path = app.exec_path,
                      .inherit_fd = input.pmi_fd,
                      .cgroup_procs_fd = cgroup_.procs_fd(),
                      .cpus = bind,
                      .stdin_pipe = current && reads_stdin(rank) && !stdin_eof_,
                      .stdout_pty = job.rank_stdout_pty,
                      .stderr_to_stdout = stderr_to_stdout};
}

std::optional<SpawnedChild> Agent::fork_rank(const SpawnRequest& request, const std::string& nspace,
                                             std::uint32_t rank) {
  auto child = children_.spawn(request);
  if (child && job_->serve_pmix) pmix_.rank_started(nspace, rank, child.value().pid);
  if (const auto pmi = pmi_of(nspace); pmi && request.inherit_fd >= 0)
    pmi->child_started(request.inherit_fd);
  if (!child) {
    report_spawn_failure(request.rank, child.error());  // registered until the namespace goes
    return std::nullopt;
  }
  if (!child.value().pty_refusal.empty() && !pty_warned_) {
    // Never a reason to fail the job: the rank runs with a pipe, as with --rank-stdout=pipe.
    pty_warned_ = true;
    std::fprintf(stderr,
                 "mpilaunch-agent: %s: no pseudo-terminal for rank %u's stdout (%s); it and any "
                 "other rank without one write to a pipe (C stdio buffers it fully; "
                 "--rank-stdout=pipe asks for pipes and silences this)\n",
                 hello_->node_name.c_str(), request.rank, child.value().pty_refusal.c_str());
  }
  return std::move(child).value();
}

asio::awaitable<void> Agent::pump(std::uint32_t rank, protocol::Stream stream,
                                  asio::posix::stream_descriptor& source, bool fill) {
  // Not zero-filled: a rank that prints little keeps only a page or two of this resident.
  const auto buffer = std::make_unique_for_overwrite<std::byte[]>(kOutputChunk);
  // Looked up after every wait: the ranks of an attempt go when the next one starts.
  const auto cut = [this, rank] {
    const auto it = ranks_.find(rank);
    return it == ranks_.end() || it->second.cut;
  };
  for (;;) {
    co_await frames_.wait_below(kOutputQueueLimit);
    if (cut()) break;
    boost::system::error_code ec;
    std::size_t n = co_await source.async_read_some(asio::buffer(buffer.get(), kOutputChunk),
                                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (!cut()) ranks_[rank].ended[stream == protocol::Stream::Stdout ? 0 : 1] = true;
      break;
    }
    // Would-block ends the filling; so does EIO, which the next read sees again.
    for (std::size_t more = 1; fill && more > 0 && n < kOutputChunk; n += more)
      more = source.read_some(asio::buffer(buffer.get() + n, kOutputChunk - n), ec);
    frames_.send_raw(protocol::encode_rank_output(rank, stream, {buffer.get(), n}));
  }
  const auto it = ranks_.find(rank);
  if (it == ranks_.end()) co_return;
  Rank& r = it->second;
  if (r.cut) {
    // The grace ran out with the stream still held: what it holds now is the rank's output
    // too, sent after what this pump read before (in order), then the stream is closed.
    boost::system::error_code ec;
    source.non_blocking(true, ec);
    while (!ec) {
      const std::size_t n = source.read_some(asio::buffer(buffer.get(), kOutputChunk), ec);
      if (n == 0) break;
      frames_.send_raw(protocol::encode_rank_output(rank, stream, {buffer.get(), n}));
    }
    source.close(ec);
  }
  --r.open_streams;
  maybe_report(r);
}

void Agent::on_reaped(pid_t pid, ExitReason reason) {
  const auto it = rank_of_pid_.find(pid);
  if (it == rank_of_pid_.end()) return;  // a child whose exec failed: already reported
  Rank& r = ranks_[it->second];
  r.exit = reason;
  maybe_report(r);
}

void Agent::maybe_report(Rank& r) {
  if (r.reported || !r.exit) return;
  if (r.open_streams > 0) {
    // Something the rank started may still hold its output open: wait a little, then stop.
    if (!r.drain) {
      r.drain = std::make_unique<asio::steady_timer>(io_, kDrainGrace);
      r.drain->async_wait([this, rank = r.rank](const boost::system::error_code& ec) {
        if (ec) return;
        // Each pump takes what its stream holds now and stops: what is written to it later is
        // not forwarded, which the launcher tells the user, on stderr and in an output-held
        // event (mpirun 4.1.4 would wait for the stream). Sent before the RankExited.
        Rank& late = ranks_[rank];
        late.cut = true;
        const bool out_held = !late.ended[0], err_held = !late.ended[1];
        frames_.send(protocol::OutputHeld{rank, out_held, err_held});
        boost::system::error_code ignored;
        if (out_held) late.out->cancel(ignored);
        if (err_held) late.err->cancel(ignored);
      });
    }
    return;
  }
  if (r.drain) r.drain->cancel();
  r.reported = true;
  frames_.send(protocol::RankExited{
      r.rank, r.pid, *r.exit,
      r.abort_status ? std::optional<std::int32_t>(*r.abort_status) : std::nullopt, r.connected,
      r.finalized, r.ended_before_kill});
  // The client stays registered until its namespace goes (next attempt or shutdown): an
  // asynchronous PMIx_server_deregister_client here raced with the next attempt's
  // registration and left about one restarted rank in twenty stuck in PMIx_Init.
  maybe_finish();
}

void Agent::handle(const protocol::Kill& m) {
  // A rank that ended before this Kill was read counts as ended before the teardown even if
  // its SIGCHLD is still queued behind the Kill on the loop, or it is still on its way out
  // (its peers may have seen its sockets close and aborted before it became a zombie):
  // RankExited.ended_before_kill.
  children_.reap();
  if (!kill_seen_)
    for (auto& [rank, r] : ranks_)
      if (!r.exit && r.pid > 0) r.ended_before_kill = ChildSet::exiting(r.pid);
  kill_seen_ = true;
  children_.signal_all(m.signal);
}

bool Agent::reads_stdin(std::uint32_t rank) const {
  return job_ && (job_->stdin_rank == protocol::kStdinAll ||
                  (job_->stdin_rank >= 0 && rank == static_cast<std::uint32_t>(job_->stdin_rank)));
}

void Agent::handle(const protocol::StdinData& m) {
  auto chunk = std::make_shared<StdinChunk>(StdinChunk{m.data, m.eof, 0});
  if (m.eof) stdin_eof_ = true;
  for (const auto& pipe : stdin_pipes_) {
    ++chunk->pending;
    pipe->queue.push_back(chunk);
  }
  if (chunk->pending == 0) {
    ++chunk->pending;
    release(*chunk);  // no stdin rank here (any more): dropped, and credited at once
  }
  for (const auto& pipe : std::vector(stdin_pipes_)) write_stdin(pipe);
}

void Agent::write_stdin(const std::shared_ptr<StdinPipe>& pipe) {
  if (pipe->writing || pipe->queue.empty() || !pipe->fd.is_open()) return;
  pipe->writing = true;
  // Never blocks the loop: a rank that does not read holds only its own queue, and the
  // launcher sends no more than its window beyond what was credited.
  asio::async_write(pipe->fd, asio::buffer(pipe->queue.front()->data),
                    [this, pipe](const boost::system::error_code& ec, std::size_t) {
                      pipe->writing = false;
                      if (ec || pipe->queue.empty()) return drop_stdin(pipe);  // EPIPE: gone
                      const std::shared_ptr<StdinChunk> done = pipe->queue.front();
                      pipe->queue.pop_front();
                      release(*done);
                      if (done->eof) return drop_stdin(pipe);
                      write_stdin(pipe);
                    });
}

void Agent::drop_stdin(const std::shared_ptr<StdinPipe>& pipe) {
  std::deque<std::shared_ptr<StdinChunk>> left;
  left.swap(pipe->queue);
  for (const auto& chunk : left) release(*chunk);
  boost::system::error_code ignored;
  pipe->fd.close(ignored);
  std::erase(stdin_pipes_, pipe);
}

void Agent::drop_all_stdin() {
  for (const auto& pipe : std::vector(stdin_pipes_)) drop_stdin(pipe);
}

void Agent::release(StdinChunk& chunk) {
  if (--chunk.pending > 0 || chunk.data.empty()) return;
  frames_.send(protocol::StdinCredit{static_cast<std::uint32_t>(chunk.data.size())});
}

void Agent::handle(const protocol::CollectStacks& m, std::uint32_t id) {
  std::vector<StackTarget> targets;
  for (const auto& [rank, r] : ranks_) {
    if (r.pid > 0 && !r.exit) targets.push_back({rank, r.pid});
  }
  const std::string host = hello_ ? hello_->node_name : os_hostname();
  stacks_.collect(std::move(targets), std::chrono::milliseconds(m.deadline_ms), host,
                  [this, id](std::vector<protocol::RankStack> stacks) {
                    if (!launcher_gone_)
                      frames_.send(protocol::NodeStacks{std::move(stacks)}, 0, id);
                  });
}

void Agent::handle(const protocol::Shutdown&) {
  shutting_down_ = true;
  drop_all_stdin();
  children_.signal_all(SIGKILL);
  maybe_finish();
}

void Agent::fail(Error error) {
  if (error.host.empty() && hello_) error.host = hello_->node_name;
  frames_.send(protocol::AgentError{std::move(error)});
}

Agent::Rank* Agent::find_current_rank(std::uint32_t rank) {
  return job_ ? find_rank(job_->nspace, rank) : nullptr;
}

Agent::Rank* Agent::find_rank(const std::string& nspace, std::uint32_t rank) {
  if (!job_) return nullptr;
  std::uint32_t index = rank;
  if (job_->nspace != nspace) {
    const auto child = child_jobs_.find(nspace);
    if (child == child_jobs_.end()) return nullptr;
    index = child->second.first_index + rank;
  }
  const auto it = ranks_.find(index);
  return it == ranks_.end() ? nullptr : &it->second;
}

void Agent::mark_connected(Rank& r) {
  if (r.connected) return;
  r.connected = true;
  frames_.send(protocol::RankConnected{r.rank});
}

void Agent::on_client_connected(const std::string& nspace, std::uint32_t rank) {
  if (Rank* r = find_rank(nspace, rank)) mark_connected(*r);
}

void Agent::on_pmi_connected(const std::string& nspace, std::uint32_t rank) {
  if (Rank* r = find_rank(nspace, rank)) mark_connected(*r);
}

void Agent::on_pmi_finalized(const std::string& nspace, std::uint32_t rank) {
  if (Rank* r = find_rank(nspace, rank)) r->finalized = true;
}

void Agent::on_pmi_abort(const std::string& nspace, std::uint32_t rank, int exit_code) {
  Rank* r = find_rank(nspace, rank);
  if (r == nullptr) return;
  r->abort_status = exit_code;
  // MPICH's PMI_Abort blocks for an answer (end of file would make MPI_Abort return and the
  // program go on), so the rank ends here, as under Hydra; its error carries the abort code.
  if (r->pid > 0 && !r->exit) ::kill(-r->pid, SIGKILL);
}

void Agent::on_pmi_barrier(const std::string& nspace, std::vector<std::byte> blob) {
  const auto server = pmi_of(nspace);
  if (!job_ || !server) return;
  // The same relay as a PMIx fence over the whole namespace: every node's blob, node order.
  on_fence(nspace, mpilaunch::format("{}:{};", nspace, protocol::kWildcardRank), true, 0,
           std::move(blob), [server](int status, std::span<const std::byte> data) {
             if (status == 0) server->release(data);
           });
}

void Agent::on_pmi_error(const std::string& nspace, std::uint32_t rank, std::string text) {
  on_log(nspace, rank, "mpilaunch-agent: " + text);
}

void Agent::on_pmi_name(protocol::Message request,
                        std::function<void(const protocol::NameReply&)> done) {
  on_name_request(std::move(request), std::move(done));
}

void Agent::on_pmi_spawn(protocol::SpawnRequest request,
                         std::function<void(int status, const std::string& nspace)> done) {
  on_spawn(std::move(request), std::move(done));
}

void Agent::on_pmi_unsupported(const std::string& nspace, std::uint32_t rank, std::string call) {
  on_unsupported(nspace, rank, std::move(call));
}

void Agent::on_client_finalized(const std::string& nspace, std::uint32_t rank) {
  if (Rank* r = find_rank(nspace, rank)) r->finalized = true;
}

void Agent::on_abort(const std::string& nspace, std::uint32_t rank, int status,
                     const std::string&) {
  if (Rank* r = find_rank(nspace, rank)) r->abort_status = status;
}

void Agent::on_fence(const std::string& nspace, const std::string& signature, bool collect,
                     int local_status, std::vector<std::byte> data, ModexDone done) {
  const std::string key = nspace + "|" + signature;
  const std::uint32_t seq = ++fence_counts_[key];
  pending_fences_[{key, seq}] = std::move(done);
  frames_.send(
      protocol::FenceContribute{nspace, signature, seq, local_status, collect, std::move(data)});
}

void Agent::on_dmodex(const std::string& nspace, std::uint32_t rank, ModexDone done) {
  const std::uint32_t id = next_request_id_++;
  pending_dmodex_[id] = std::move(done);
  frames_.send(protocol::DmodexRequest{nspace, rank}, id);
}

void Agent::on_log(const std::string& nspace, std::optional<std::uint32_t> rank, std::string text) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  if (const Rank* r = rank ? find_rank(nspace, *rank) : nullptr) {
    frames_.send(protocol::RankOutput{r->rank, protocol::Stream::Stderr, to_bytes(text)});
  } else {
    std::fputs(text.c_str(), stderr);
  }
}

void Agent::on_name_request(protocol::Message request, NameDone done) {
  if (finished_ || launcher_gone_)
    return done(protocol::NameReply{protocol::NameStatus::JobEnded, {}});
  const std::uint32_t id = next_request_id_++;
  pending_names_[id] = std::move(done);
  frames_.send(request, id);
}

void Agent::on_unsupported(const std::string& nspace, std::optional<std::uint32_t> rank,
                           std::string call) {
  // Once per call and namespace: each rank of a spawn or connect asks, the first says it all.
  if (!job_ || !unsupported_said_.insert(call).second) return;
  const auto child = child_jobs_.find(nspace);
  if (job_->nspace != nspace && child == child_jobs_.end()) return;
  const protocol::JobSpec& job = child == child_jobs_.end() ? *job_ : child->second.spec;
  // The program of the rank's application context (MPMD), when the rank is known.
  std::string executable;
  std::uint32_t first = 0;
  for (const protocol::AppContext& app : job.apps) {
    if (rank && *rank >= first && *rank < first + app.num_procs && !app.argv.empty())
      executable = app.argv.front();
    first += app.num_procs;
  }
  fail(Error{.kind = ErrorKind::UnsupportedMpiCall,
             .rank = rank ? std::optional<int>(static_cast<int>(*rank)) : std::nullopt,
             .phase = "running",
             .executable = std::move(executable),
             .detail = std::move(call)});
}

void Agent::maybe_finish() {
  if (finished_ || !(shutting_down_ || launcher_gone_)) return;
  for (const auto& [rank, r] : ranks_)
    if (!r.reported) return;
  finish();
}

void Agent::finish() {
  finished_ = true;
  drop_all_stdin();
  children_.release_ended();
  cgroup_.remove();  // and whatever the ranks left, wherever it went
  close_pmi_servers();
  for (auto& [key, done] : pending_fences_) done(-1, {});
  pending_fences_.clear();
  for (auto& [id, done] : pending_dmodex_) done(-1, {});
  pending_dmodex_.clear();
  for (auto& [id, done] : pending_spawns_) done(-1, {});  // PMIX_ERROR
  pending_spawns_.clear();
  for (auto& [id, done] : std::exchange(pending_names_, {}))
    done(protocol::NameReply{protocol::NameStatus::JobEnded, {}});
  remove_job_files();
  if (launcher_gone_) return close_pmix_and_stop();
  // The bye goes before the PMIx server's teardown, which has no one waiting for it: every
  // rank is reaped and the files are gone. A local or ssh launcher ends the link at the bye
  // (and stops a local agent at once); srun's waits for the agent to exit.
  frames_.send(protocol::AgentBye{});
  asio::co_spawn(
      io_,
      [this]() -> asio::awaitable<void> {
        co_await frames_.flush();
        close_pmix_and_stop();
      },
      asio::detached);
}

void Agent::close_pmix_and_stop() {
  for (const auto& [nspace, child] : child_jobs_) pmix_.deregister_namespace(nspace);
  if (job_) pmix_.deregister_namespace(job_->nspace);
  pmix_.finalize();
  io_.stop();
}

void Agent::remove_job_files() {
  if (!job_ || !hello_) return;
  std::error_code ec;
  std::filesystem::remove_all(node_dir(), ec);
  job_dir_.release_and_remove_if_last();  // the last agent of a machine removes the directory
}

}  // namespace mpilaunch::agent
