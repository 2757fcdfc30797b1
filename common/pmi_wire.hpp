#pragma once
/// PMI-1 "simple" and PMI-2 wire formats plus a per-node server state machine (sans-I/O).
/// The agent owns the sockets; this file only turns bytes into replies and events.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/protocol.hpp"

namespace mpilaunch::pmi {

/// Longest client line/message we accept (MPICH's PMIU_MAXLINE is 1024; PMI-2 allows more).
inline constexpr std::size_t kMaxPmi1Line = 1024;
inline constexpr std::size_t kMaxPmi2Message = 64 * 1024;

struct Command {
  std::string cmd;
  std::vector<std::pair<std::string, std::string>> args;
  std::optional<std::string_view> get(std::string_view key) const;
};

struct ParseOutcome {
  std::optional<Command> command;
  std::string error;  // set when command is empty
};

/// One PMI-1 line (without or with its trailing newline): space separated key=value pairs,
/// the first being cmd= (or mcmd=); "value=" and "message=" extend to the end of the line.
ParseOutcome parse_pmi1_line(std::string_view line);
std::string format_pmi1(const Command& c);

/// One PMI-2 message body (after the 6-digit length): key=value; pairs, ";;" escapes ';'.
ParseOutcome parse_pmi2_body(std::string_view body);
std::string format_pmi2(const Command& c);

/// PMI_process_mapping for ranks placed as `nodes[n]` = the ranks of node n:
/// "(vector,(start_node,node_count,ranks_per_node),...)", blocks covering ranks in order.
/// Empty when a rank is missing or the text would not fit in one PMI value (MPICH then falls
/// back to exchanging hostnames).
std::string process_mapping(const std::vector<std::vector<std::uint32_t>>& nodes);

/// One node's puts between two barriers as a self-delimiting blob (key then value, each a
/// common/codec.hpp string: u32 little-endian length + bytes), so that the launcher's fence
/// relay can concatenate nodes' blobs.
std::vector<std::byte> encode_puts(const std::map<std::string, std::string>& puts);
/// The union of concatenated blobs; nullopt when the bytes are not such a concatenation.
std::optional<std::map<std::string, std::string>> decode_puts(std::span<const std::byte> blob);

/// Static facts about the job that every rank may ask for.
struct JobFacts {
  std::string kvsname;
  int size = 1;
  std::string process_mapping;  // (vector,(node,nodes,ppn),...)
  std::vector<int> local_ranks;
  /// Ranks of each application context in rank order (MPMD); empty: one context.
  std::vector<int> app_sizes;
  /// What the key-value space holds from the start: a spawned job's preput keys (MPICH's
  /// PARENT_ROOT_PORT_NAME), as Hydra seeds the new job's KVS.
  std::map<std::string, std::string> preput;
  /// The application context of `rank` (PMI_Get_appnum, PMI-2's fullinit appnum).
  int appnum_of(int rank) const;
};

/// What the agent must do after feeding bytes.
struct Output {
  /// Unsupported: the rank asked for a dynamic-process service in a form not served, which was
  /// answered rc=-1; `bytes` names the MPI call behind it (dynamic_call()).
  /// NameRequest: the rank published, looked up or unpublished a name (MPI_Publish_name, ...);
  /// `request` goes to the job's name service and its NameReply comes back through
  /// ServerCore::answer_name(`token`), which writes the rank's reply.
  /// SpawnRequest: the rank called MPI_Comm_spawn(_multiple) (PMI-1 mcmd=spawn, PMI-2 spawn);
  /// `request` is a protocol::SpawnRequest for the launcher, whose answer comes back through
  /// ServerCore::answer_spawn(`token`).
  enum class Kind {
    Reply,
    BarrierReady,
    Abort,
    Finalized,
    ProtocolError,
    Unsupported,
    NameRequest,
    SpawnRequest
  };
  Kind kind;
  int rank = -1;
  std::string bytes;  // Reply: bytes to write; ProtocolError: reason; Unsupported: the MPI call
  int exit_code = 0;  // Abort
  std::map<std::string, std::string> puts;  // BarrierReady: this node's puts since last barrier
  /// NameRequest: NamePublish, NameLookup or NameUnpublish; SpawnRequest: a SpawnRequest.
  std::optional<protocol::Message> request;
  std::uint32_t token = 0;  // NameRequest, SpawnRequest
};

/// The MPI call behind a dynamic-process command in a form the server does not serve (PMI-1's
/// "cmd=spawn" on one line: MPICH sends mcmd=spawn), e.g. "MPI_Comm_spawn (PMI spawn)"; empty
/// for every other command.
std::string dynamic_call(std::string_view command);

/// Server side for all local ranks of one node. feed() buffers partial input per rank.
class ServerCore {
 public:
  explicit ServerCore(JobFacts facts);
  std::vector<Output> feed(int rank, std::string_view bytes);
  /// The launcher released the barrier with the union of every node's puts.
  std::vector<Output> release_barrier(const std::map<std::string, std::string>& all_puts);
  bool finalized(int rank) const;
  /// The rank has sent its init line (it reached PMI_Init).
  bool connected(int rank) const;
  /// The name service answered the NameRequest `token`: the rank's reply, in its protocol
  /// (Hydra's replies: PMI-1 publish_result/lookup_result/unpublish_result, PMI-2
  /// name-publish-response/...). Nothing for an unknown token or a rank gone dead.
  std::vector<Output> answer_name(std::uint32_t token, const protocol::NameReply& reply);
  /// The launcher answered the SpawnRequest `token`: a PMIx status (0: started) and the new
  /// job's namespace, which is its children's kvsname. The rank's spawn_result (PMI-1) or
  /// spawn-response (PMI-2, jobid=) as Hydra writes them.
  std::vector<Output> answer_spawn(std::uint32_t token, int status, const std::string& nspace);
  /// Name requests sent and not answered yet.
  std::size_t names_waiting() const { return names_.size(); }
  const std::map<std::string, std::string>& kvs() const { return kvs_; }

 private:
  struct Conn {
    std::string buf;
    int version = 0;  // 0 = before init, 1, 2
    bool in_barrier = false;
    bool finalized = false;
    bool dead = false;
    bool in_mcmd = false;
    /// PMI-1 spawn: the key=value lines of each mcmd=spawn segment so far (one per command of
    /// MPI_Comm_spawn_multiple); the request leaves once the last one (spawnssofar=totspawns)
    /// has ended with endcmd.
    std::vector<std::vector<std::pair<std::string, std::string>>> spawn_segments;
  };
  void handle(int rank, Conn& c, const Command& cmd, std::vector<Output>& out);
  void reply(int rank, const Conn& c, Command cmd, std::vector<Output>& out);
  void maybe_barrier(std::vector<Output>& out);
  /// publish_name, lookup_name, unpublish_name (PMI-1) and name-publish, ... (PMI-2).
  void name_request(int rank, const Conn& c, const Command& cmd, std::vector<Output>& out);
  /// PMI-1's segments (consumed) or PMI-2's spawn command, as the launcher's SpawnRequest.
  void spawn_request_v1(int rank, Conn& c, std::vector<Output>& out);
  void spawn_request_v2(int rank, const Conn& c, const Command& cmd, std::vector<Output>& out);
  void send_spawn(int rank, const Conn& c, protocol::SpawnRequest request,
                  std::optional<std::string> thrid, std::vector<Output>& out);
  struct PendingSpawn {
    int rank = -1;
    int version = 1;
    std::optional<std::string> thrid;
  };

  enum class NameOp { Publish, Lookup, Unpublish };
  struct PendingName {
    int rank = -1;
    int version = 1;
    NameOp op = NameOp::Publish;
    std::string service;
    std::optional<std::string> thrid;  // PMI-2: echoed for a threaded client
  };

  /// An upcall answered later (names_, spawns_): the entry `token` taken out of `waiting`, and
  /// the live connection of its rank; nullopt for an unknown token or a rank gone dead (the
  /// entry is dropped all the same).
  template <typename Pending>
  struct Answered {
    Pending pending;
    Conn& conn;
  };
  template <typename Pending>
  std::optional<Answered<Pending>> take_answered(std::map<std::uint32_t, Pending>& waiting,
                                                 std::uint32_t token);

  JobFacts facts_;
  std::map<int, Conn> conns_;
  std::map<std::string, std::string> kvs_;
  std::map<std::string, std::string> pending_puts_;
  std::map<std::string, std::string> node_attrs_;
  bool barrier_sent_ = false;
  std::map<std::uint32_t, PendingName> names_;
  std::map<std::uint32_t, PendingSpawn> spawns_;
  std::uint32_t next_token_ = 1;
};

}  // namespace mpilaunch::pmi
