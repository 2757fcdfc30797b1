#pragma once
/// The launcher <-> agent protocol: every message, its bytes and the framing, in one place.
/// docs/protocol.md documents the same; change both, the round-trip test and the fuzz corpus
/// together. Carried over any byte stream after the agent's hello line (common/handshake.hpp).

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "common/error.hpp"
#include "common/exit_reason.hpp"
#include "common/node_topology.hpp"
#include "common/result.hpp"

namespace mpilaunch::protocol {

inline constexpr std::uint16_t kProtocolVersion = 20;
inline constexpr std::size_t kHeaderBytes = 16;  // version, type: u16; id, refers_to, size: u32
inline constexpr std::uint32_t kMaxBodyBytes = 16u << 20;

enum class MsgType : std::uint16_t {
  LauncherHello = 1,
  AgentHello = 2,
  JobSpec = 3,
  Spawn = 4,
  RankStarted = 5,
  RankOutput = 6,
  FenceContribute = 7,
  FenceRelease = 8,
  DmodexRequest = 9,
  DmodexReply = 10,
  RankExited = 11,
  SpawnFailed = 12,
  Kill = 13,
  Shutdown = 14,
  AgentError = 15,
  AgentBye = 16,
  RankConnected = 17,
  StdinData = 18,
  StdinCredit = 19,
  CollectStacks = 20,
  NodeStacks = 21,
  SpawnRequest = 22,
  SpawnReply = 23,
  ChildJob = 24,
  // 25-37: reserved for other messages (mapping, ...)
  NamePublish = 38,
  NameLookup = 39,
  NameUnpublish = 40,
  NameReply = 41,
  OutputHeld = 42,
};

/// JobSpec::stdin_rank: no rank reads the launcher's stdin (every rank gets /dev/null), or all.
inline constexpr std::int32_t kStdinNone = -1;
inline constexpr std::int32_t kStdinAll = -2;

/// launcher -> agent, first frame: who the agent is in this job. The token never goes on argv.
struct LauncherHello {
  std::string launcher_version;
  std::string token;
  std::uint32_t node_index = 0;
  std::string node_name;  // the PMIx hostname of this node (a virtual name in local mode)
  friend bool operator==(const LauncherHello&, const LauncherHello&) = default;
};

/// agent -> launcher, answer to LauncherHello.
struct AgentHello {
  std::string agent_version;
  std::string os_hostname;
  std::int32_t pid = 0;
  std::uint32_t cpus = 0;
  /// What on this node makes Open MPI's own transport choice matter: fabric devices
  /// (/sys/class/infiniband/mlx5_0, /dev/hfi1_0, ...) and MCA parameter files that choose a pml
  /// or mtl. Empty: shared memory and TCP are all there is (see docs/transport.md).
  std::vector<std::string> transport_facts;
  /// Milliseconds the login shell took before the agent ran (agent/login_shell.hpp); -1 when
  /// not started by sshd.
  std::int32_t login_ms = -1;
  /// The PUs ranks may use here and what holds each (agent/topology_summary.hpp): the
  /// launcher maps and binds with it (common/placement.hpp). Empty: unknown, ranks unbound.
  NodeTopology topology;
  friend bool operator==(const AgentHello&, const AgentHello&) = default;
};

struct NodeRanks {
  std::string name;
  std::vector<std::uint32_t> ranks;
  /// The node's slots (host:N, slots=N, the cores counted): more ranks than slots is
  /// oversubscribed, where Open MPI's ranks must yield instead of busy-polling. 0: unknown.
  std::uint32_t slots = 0;
  /// Per rank (in `ranks` order) the CPUs to bind it to, as a kernel CPU list of OS indexes
  /// ("0-1,4"); empty (or an empty list) leaves the rank unbound.
  std::vector<std::string> cpus;
  /// The node's unbound ranks are told they are bound all the same
  /// (OMPI_MCA_orte_bound_at_launch=1: their Open MPI does not bind them itself, and asked to
  /// report says "not bound"), as mpirun 4.1.4 tells them where it would bind but cannot: on a
  /// saved topology (HWLOC_XMLFILE).
  bool told_bound = false;
  friend bool operator==(const NodeRanks&, const NodeRanks&) = default;
};

/// One application context (mpirun's MPMD `a : b`, or one line of an appfile): its ranks are
/// the `num_procs` after those of the contexts before it (MPI_APPNUM is its index).
struct AppContext {
  std::vector<std::string> argv;  // program and its arguments
  std::vector<std::string> env;   // NAME=value of this context only (its -x), after JobSpec.env
  std::string wdir;               // empty: the agent's working directory
  std::uint32_t num_procs = 0;
  /// --path: directories (':'-separated, a relative one from `wdir`) searched for a program
  /// name without '/' before PATH, as mpirun 4.1.4 searches them. Empty: PATH only.
  std::string exec_path;
  friend bool operator==(const AppContext&, const AppContext&) = default;
};

/// launcher -> agent: one attempt of the job. The agent serves nodes[node_index].
struct JobSpec {
  std::string job_id;
  std::string nspace;  // fresh per attempt
  std::uint32_t attempt = 1;
  std::vector<NodeRanks> nodes;
  std::vector<AppContext> apps;  // in rank order; their num_procs add up to the job size
  std::vector<std::string> env;  // NAME=value set in every rank (--mca, launcher's)
  std::string tmpdir;            // base directory for every temporary file of the job
  bool virtual_nodes = false;    // several nodes share this machine
  bool serve_pmix = true;        // register every rank with the agent's PMIx server
  bool serve_pmi = false;        // give every rank a PMI-1/PMI-2 socket (PMI_FD), for MPICH
  /// MPI_UNIVERSE_SIZE: the slots of every host of the job, with ranks or not (0: the job size).
  std::uint32_t universe_size = 0;
  /// Which rank's stdin is a pipe fed by StdinData: a rank, kStdinAll or kStdinNone. The others
  /// read /dev/null, as under mpirun.
  std::int32_t stdin_rank = kStdinNone;
  /// Each rank's stdout is a pseudo-terminal (as under mpirun; C stdio line-buffers it), else a
  /// pipe (--rank-stdout). stderr is a pipe either way.
  bool rank_stdout_pty = true;
  /// --prefix: an install prefix DIR (absolute, no trailing '/'), whose bin and lib the ranks
  /// get in front of PATH and LD_LIBRARY_PATH as mpirun gives them (agent/rank_env.hpp).
  /// Empty: none.
  std::string prefix;
  /// --index-argv-by-rank: each rank's argv[0] is "<argv[0]>-<rank>" (the rank in the job), as
  /// mpirun 4.1.4 gives it; the program run is still argv[0]'s.
  bool index_argv_by_rank = false;
  /// The nodes' `cpus` keep each rank on those CPUs without binding it (--bind-to none with
  /// --cpu-list): the ranks are not told they are bound (no OMPI_MCA_orte_bound_at_launch), as
  /// mpirun 4.1.4 runs them; PMIX_CPUSET and the locality string are given as for a binding.
  bool cpus_not_bound = false;
  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

/// launcher -> agent: fork this node's ranks of `nspace`.
struct Spawn {
  std::string nspace;
  friend bool operator==(const Spawn&, const Spawn&) = default;
};

struct RankStarted {
  std::uint32_t rank = 0;
  std::int32_t pid = 0;
  /// The rank's stdout/stderr pipes went to the launcher over the stream channel (local agents,
  /// docs/protocol.md) before this message: no RankOutput for this rank, the launcher reads them.
  bool streams_passed = false;
  friend bool operator==(const RankStarted&, const RankStarted&) = default;
};

enum class Stream : std::uint8_t { Stdout = 1, Stderr = 2 };

/// agent -> launcher: a chunk of a rank's output, in order per (rank, stream).
struct RankOutput {
  std::uint32_t rank = 0;
  Stream stream = Stream::Stdout;
  std::vector<std::byte> data;
  friend bool operator==(const RankOutput&, const RankOutput&) = default;
};

/// The rank that stands for every rank of a namespace in a fence's proc set (PMIX_RANK_WILDCARD).
inline constexpr std::uint32_t kWildcardRank = 4294967294u;

/// agent -> launcher: this node's part of fence `seq` over the proc set `procs`
/// ("nspace:rank;..." as PMIx listed it, the wildcard rank being kWildcardRank).
struct FenceContribute {
  std::string nspace;
  std::string procs;
  std::uint32_t seq = 0;
  std::int32_t status = 0;  // PMIx status of the local collective
  bool collect = false;
  std::vector<std::byte> data;
  friend bool operator==(const FenceContribute&, const FenceContribute&) = default;
};

/// launcher -> agents: every node's blob concatenated in node order, or a failure status.
struct FenceRelease {
  std::string nspace;
  std::string procs;
  std::uint32_t seq = 0;
  std::int32_t status = 0;
  std::vector<std::byte> data;
  friend bool operator==(const FenceRelease&, const FenceRelease&) = default;
};

/// agent -> launcher -> owning agent: the modex data of one rank. Replies carry refers_to.
struct DmodexRequest {
  std::string nspace;
  std::uint32_t rank = 0;
  friend bool operator==(const DmodexRequest&, const DmodexRequest&) = default;
};

struct DmodexReply {
  std::int32_t status = 0;
  std::vector<std::byte> data;
  friend bool operator==(const DmodexReply&, const DmodexReply&) = default;
};

/// agent -> launcher: a rank has ended and its output is drained.
struct RankExited {
  std::uint32_t rank = 0;
  std::int32_t pid = 0;
  ExitReason reason = Exited{0};
  std::optional<std::int32_t> abort_status;  // set when the rank called PMIx_Abort (MPI_Abort)
  bool connected = false;                    // reached PMIx_Init
  bool finalized = false;                    // reached PMIx_Finalize
  bool ended_before_kill = true;  // reaped before this attempt's first Kill reached the agent
  friend bool operator==(const RankExited&, const RankExited&) = default;
};

/// agent -> launcher: a rank could not be started (exec failure, bad wdir, ...).
struct SpawnFailed {
  Error error;
  friend bool operator==(const SpawnFailed&, const SpawnFailed&) = default;
};

/// launcher -> agent: send `signal` to every rank's process group.
struct Kill {
  std::int32_t signal = 15;
  friend bool operator==(const Kill&, const Kill&) = default;
};

/// launcher -> agent: clean up and exit; the agent answers AgentBye first.
struct Shutdown {
  friend bool operator==(const Shutdown&, const Shutdown&) = default;
};

/// agent -> launcher: the agent itself failed (PMIx server init, temp dir, ...).
struct AgentError {
  Error error;
  friend bool operator==(const AgentError&, const AgentError&) = default;
};

struct AgentBye {
  friend bool operator==(const AgentBye&, const AgentBye&) = default;
};

/// agent -> launcher: a rank reached PMIx_Init (its wire-up began).
struct RankConnected {
  std::uint32_t rank = 0;
  friend bool operator==(const RankConnected&, const RankConnected&) = default;
};

/// launcher -> agent: the next bytes of the launcher's stdin, for this node's stdin ranks
/// (JobSpec::stdin_rank); `eof`: nothing follows, their stdin closes once these are written.
struct StdinData {
  std::vector<std::byte> data;
  bool eof = false;
  friend bool operator==(const StdinData&, const StdinData&) = default;
};

/// agent -> launcher: `bytes` of StdinData are written to the ranks (or dropped, for a rank
/// that is gone), so the launcher may send that many more (its window per agent).
struct StdinCredit {
  std::uint32_t bytes = 0;
  friend bool operator==(const StdinCredit&, const StdinCredit&) = default;
};

/// agent -> launcher: `rank` ended, but something it started still held these of its streams
/// when the drain grace ran out; what they got until then is forwarded (before its RankExited),
/// what is written to them later is not. The launcher warns and writes an output-held event.
struct OutputHeld {
  std::uint32_t rank = 0;
  bool stdout_held = false;
  bool stderr_held = false;
  friend bool operator==(const OutputHeld&, const OutputHeld&) = default;
};

/// launcher -> agent, a request: the stack of every running rank of this node, with the tool
/// found here (gdb, else eu-stack), all within `deadline_ms`. Answered by NodeStacks.
struct CollectStacks {
  std::uint32_t deadline_ms = 0;
  friend bool operator==(const CollectStacks&, const CollectStacks&) = default;
};

/// One rank's stack as its node's tool printed it (`text`), or why there is none (`note`).
struct RankStack {
  std::uint32_t rank = 0;
  std::int32_t pid = 0;
  std::string tool;  // "gdb", "eu-stack"; empty when no tool ran
  std::string text;
  std::string note;
  friend bool operator==(const RankStack&, const RankStack&) = default;
};

/// agent -> launcher, the answer to CollectStacks (refers_to its id): one entry per rank.
struct NodeStacks {
  std::vector<RankStack> stacks;
  friend bool operator==(const NodeStacks&, const NodeStacks&) = default;
};

/// One application context of a PMIx_Spawn (MPI_Comm_spawn's command, MPI_Comm_spawn_multiple's
/// each) with the info keys Open MPI 4.1 passes per context.
struct SpawnApp {
  std::vector<std::string> argv;  // command and its arguments
  std::vector<std::string> env;   // NAME=value for these processes (OMPI_PARENT_PORT, info "env")
  std::string wdir;               // info "wdir" (Open MPI sends the parent's directory otherwise)
  std::uint32_t maxprocs = 0;
  std::string host;      // info "host": comma-separated node names
  std::string hostfile;  // info "hostfile"
  std::string add_host;  // info "add-host"; "add-hostfile=FILE" for info "add-hostfile"
  friend bool operator==(const SpawnApp&, const SpawnApp&) = default;
};

/// agent -> launcher, a request (its id): a rank called PMIx_Spawn. Answered by SpawnReply.
struct SpawnRequest {
  std::string nspace;  // the parent's namespace and rank
  std::uint32_t rank = 0;
  std::vector<SpawnApp> apps;
  std::string map_by;  // job info "map_by" (PMIX_MAPBY); empty: the launcher's mapping
  /// The parent is an MPICH rank (PMI spawn): the children get a PMI socket, not PMIx.
  bool pmi = false;
  /// PMI spawn's preput keys, "KEY=value": the children's key-value space holds them from the
  /// start (MPICH's PARENT_ROOT_PORT_NAME).
  std::vector<std::string> preput;
  friend bool operator==(const SpawnRequest&, const SpawnRequest&) = default;
};

/// launcher -> agent, the answer to SpawnRequest (refers_to its id): a PMIx status and, on
/// success, the new namespace, registered on every agent and started before this reply.
struct SpawnReply {
  std::int32_t status = 0;
  std::string nspace;
  friend bool operator==(const SpawnReply&, const SpawnReply&) = default;
};

/// launcher -> every agent: a spawned job. Each agent registers `spec.nspace` with its PMIx
/// server and forks its ranks of it (spec.nodes[node_index]). The launcher numbers every
/// process of the run: child rank R is `first_index + R` in RankStarted, RankOutput,
/// RankConnected, RankExited, SpawnFailed and the stream channel.
struct ChildJob {
  JobSpec spec;
  std::uint32_t job_number = 2;  // mpirun's JOB in [JOB,RANK]
  std::uint32_t first_index = 0;
  std::string parent_nspace;
  std::uint32_t parent_rank = 0;
  std::vector<std::string> preput;  // SpawnRequest::preput, for a PMI child job (spec.serve_pmi)
  friend bool operator==(const ChildJob&, const ChildJob&) = default;
};

/// Who may look a published name up (PMIx data ranges, as mpirun 4.1's data servers read them:
/// node-local names live apart from the job's, docs/dynamic-processes.md).
enum class NameRange : std::uint8_t {
  Session = 0,    // every process of the job, all its namespaces (PMIx session, global, undef)
  Namespace = 1,  // processes of the publisher's namespace
  Node = 2,       // processes on the publisher's node (PMIx local)
  Process = 3,    // the publisher itself (PMIx proc-local)
};
/// How long a published name lives (PMIx persistence).
enum class NamePersistence : std::uint8_t {
  Session = 0,    // until the job (this attempt) ends (PMIx session, indefinite)
  App = 1,        // until the publisher's namespace ends (mpirun 4.1's default)
  Proc = 2,       // until the publishing process ends
  FirstRead = 3,  // until the first lookup that returns it
};
/// How a NameEntry's value is written.
enum class NameFormat : std::uint8_t {
  Text = 0,       // a string (MPI_Publish_name's port, PMI's value, a PMIx string)
  PmixValue = 1,  // a pmix_value_t of another type, packed by libpmix (PMIx_Data_pack)
};
/// The answer to a name request.
enum class NameStatus : std::uint8_t {
  Ok = 0,
  NotFound = 1,    // a lookup found none of its keys (without waiting)
  TimedOut = 2,    // a waiting lookup's deadline passed first
  JobEnded = 3,    // the job (this attempt) ended while the lookup waited
  BadRequest = 4,  // a request the service cannot serve (no keys, ...)
};

struct NameEntry {
  std::string key;
  NameFormat format = NameFormat::Text;
  std::vector<std::byte> value;
  friend bool operator==(const NameEntry&, const NameEntry&) = default;
};

/// agent -> launcher, a request (its id): rank `rank` of `nspace` published `entries`
/// (PMIx_Publish, PMI publish_name). Answered by NameReply.
struct NamePublish {
  std::string nspace;
  std::uint32_t rank = 0;
  NameRange range = NameRange::Session;
  NamePersistence persistence = NamePersistence::App;
  std::vector<NameEntry> entries;
  friend bool operator==(const NamePublish&, const NamePublish&) = default;
};

/// agent -> launcher, a request (its id): look `keys` up for rank `rank` of `nspace`
/// (PMIx_Lookup, PMI lookup_name). `wait`: 0 answers at once; N waits until N of the keys are
/// published, at most `timeout_ms` (0: the service's own deadline). Answered by NameReply.
struct NameLookup {
  std::string nspace;
  std::uint32_t rank = 0;
  NameRange range = NameRange::Session;
  std::vector<std::string> keys;
  std::uint32_t wait = 0;
  std::uint32_t timeout_ms = 0;
  friend bool operator==(const NameLookup&, const NameLookup&) = default;
};

/// agent -> launcher, a request (its id): withdraw the caller's `keys` published with `range`
/// (empty: all the caller's names). Answered by NameReply.
struct NameUnpublish {
  std::string nspace;
  std::uint32_t rank = 0;
  NameRange range = NameRange::Session;
  std::vector<std::string> keys;
  friend bool operator==(const NameUnpublish&, const NameUnpublish&) = default;
};

/// One name a lookup found, with its publisher.
struct NameFound {
  std::string nspace;
  std::uint32_t rank = 0;
  NameEntry entry;
  friend bool operator==(const NameFound&, const NameFound&) = default;
};

/// launcher -> agent, the answer to NamePublish, NameLookup or NameUnpublish (refers_to its id).
struct NameReply {
  NameStatus status = NameStatus::Ok;
  std::vector<NameFound> found;  // lookups only
  friend bool operator==(const NameReply&, const NameReply&) = default;
};

using Message =
    std::variant<LauncherHello, AgentHello, JobSpec, Spawn, RankStarted, RankOutput,
                 FenceContribute, FenceRelease, DmodexRequest, DmodexReply, RankExited, SpawnFailed,
                 Kill, Shutdown, AgentError, AgentBye, RankConnected, StdinData, StdinCredit,
                 CollectStacks, NodeStacks, SpawnRequest, SpawnReply, ChildJob, NamePublish,
                 NameLookup, NameUnpublish, NameReply, OutputHeld>;

/// Each alternative's MsgType, in the variant's order (the numbers have gaps: ranges are
/// reserved for messages other branches add).
inline constexpr MsgType kMessageTypes[] = {
    MsgType::LauncherHello, MsgType::AgentHello,   MsgType::JobSpec,         MsgType::Spawn,
    MsgType::RankStarted,   MsgType::RankOutput,   MsgType::FenceContribute, MsgType::FenceRelease,
    MsgType::DmodexRequest, MsgType::DmodexReply,  MsgType::RankExited,      MsgType::SpawnFailed,
    MsgType::Kill,          MsgType::Shutdown,     MsgType::AgentError,      MsgType::AgentBye,
    MsgType::RankConnected, MsgType::StdinData,    MsgType::StdinCredit,     MsgType::CollectStacks,
    MsgType::NodeStacks,    MsgType::SpawnRequest, MsgType::SpawnReply,      MsgType::ChildJob,
    MsgType::NamePublish,   MsgType::NameLookup,   MsgType::NameUnpublish,   MsgType::NameReply,
    MsgType::OutputHeld,
};
static_assert(std::size(kMessageTypes) == std::variant_size_v<Message>);

struct Header {
  std::uint16_t version = kProtocolVersion;
  MsgType type = MsgType::LauncherHello;
  std::uint32_t id = 0;
  std::uint32_t refers_to = 0;
  std::uint32_t body_bytes = 0;
};

/// A whole frame: header plus its raw body.
struct Frame {
  Header header;
  std::vector<std::byte> body;
  std::size_t wire_size() const { return kHeaderBytes + body.size(); }
};

/// One decoded message with its request id and the id it answers (0 when none).
struct Envelope {
  Message message;
  std::uint32_t id = 0;
  std::uint32_t refers_to = 0;
};

MsgType type_of(const Message& message);
/// Serialises a message into one frame (header + body), ready to write.
std::vector<std::byte> encode(const Message& message, std::uint32_t id = 0,
                              std::uint32_t refers_to = 0);
/// The same bytes as encode(RankOutput{rank, stream, data}), without copying `data` into a
/// message first: the agent's path for every chunk of rank output.
std::vector<std::byte> encode_rank_output(std::uint32_t rank, Stream stream,
                                          std::span<const std::byte> data);
/// Decodes the frame at the front of `in`. An empty optional means "not enough bytes yet": keep
/// them and call again after the next read. Never reads past `in`, never throws, never aborts.
Result<std::optional<Frame>> decode_frame(std::span<const std::byte> in);
/// Decodes a frame's body into its message. A body that does not parse exactly is an Error.
Result<Envelope> decode_message(const Frame& frame);

}  // namespace mpilaunch::protocol
