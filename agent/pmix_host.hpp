#pragma once
/// [io] The agent's PMIx server: libpmix's server module and its calls. Upcalls arrive on
/// libpmix's progress thread; each is copied and posted onto the agent's loop, where
/// PmixEvents handles it. Completions (`done` callbacks) may be called on the loop thread.
/// libpmix keeps one server per process, hence one PmixHost per agent process.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agent/namespace_info.hpp"
#include "agent/rank_peers.hpp"
#include "common/asio.hpp"
#include "common/protocol.hpp"
#include "common/result.hpp"

struct hwloc_topology;

namespace mpilaunch::agent {

/// Completes a fence or a direct-modex request: status is a PMIx status code.
using ModexDone = std::function<void(int status, std::span<const std::byte> data)>;
/// Completes a PMIx_Spawn: a PMIx status and, on success, the new namespace.
using SpawnDone = std::function<void(int status, const std::string& nspace)>;
/// Completes a name-service request with the launcher's answer.
using NameDone = std::function<void(const protocol::NameReply& reply)>;

class PmixEvents {
 public:
  virtual ~PmixEvents() = default;
  virtual void on_client_connected(const std::string& nspace, std::uint32_t rank) = 0;
  virtual void on_client_finalized(const std::string& nspace, std::uint32_t rank) = 0;
  virtual void on_abort(const std::string& nspace, std::uint32_t rank, int status,
                        const std::string& message) = 0;
  /// Every local participant of a fence entered it; `signature` identifies its proc set.
  virtual void on_fence(const std::string& nspace, const std::string& signature, bool collect,
                        int local_status, std::vector<std::byte> data, ModexDone done) = 0;
  /// A local rank needs another rank's modex data.
  virtual void on_dmodex(const std::string& nspace, std::uint32_t rank, ModexDone done) = 0;
  /// A rank logged text (Open MPI's show_help in a direct launch).
  virtual void on_log(const std::string& nspace, std::optional<std::uint32_t> rank,
                      std::string text) = 0;
  /// A rank called PMIx_Spawn (MPI_Comm_spawn, MPI_Comm_spawn_multiple): `request` holds the
  /// parent, the contexts and their info keys; `done` answers the rank.
  virtual void on_spawn(protocol::SpawnRequest request, SpawnDone done) = 0;
  /// A rank published, looked up or withdrew names (`request` is a NamePublish, NameLookup or
  /// NameUnpublish): the launcher's name service answers; `done` must be called exactly once.
  virtual void on_name_request(protocol::Message request, NameDone done) = 0;
  /// A rank asked for a service the agent does not serve (spawn, publish, connect, ...): the
  /// request was already answered PMIX_ERR_NOT_SUPPORTED. `call` names the MPI call(s) behind
  /// it and the PMIx call ("MPI_Comm_spawn (PMIx_Spawn)"); `rank` is empty when PMIx does not
  /// say who asked (connect, disconnect).
  virtual void on_unsupported(const std::string& nspace, std::optional<std::uint32_t> rank,
                              std::string call) = 0;
};

class PmixHost {
 public:
  PmixHost(asio::io_context& io, PmixEvents& events);
  ~PmixHost();
  PmixHost(const PmixHost&) = delete;
  PmixHost& operator=(const PmixHost&) = delete;

  /// PMIx_server_init with this node's name (as in the node map), id and private tmpdir;
  /// `gds` is the store to use unless the user set PMIX_MCA_gds (see default_gds());
  /// `job_size` sizes the shared store's meta segments (shared_store_meta_bytes());
  /// `topology_xml` the machine's topology (topology_file()), or empty: libpmix discovers.
  Status init(const std::string& hostname, std::uint32_t node_id, const std::string& tmpdir,
              std::string_view gds, std::size_t job_size, const std::string& topology_xml);
  bool initialized() const { return initialized_; }
  /// `parent`: for a spawned job, the namespace and rank that spawned it (PMIX_SPAWNED,
  /// PMIX_PARENT_ID).
  Status register_namespace(
      const std::string& nspace, const NamespaceValues& values, const std::string& job_tmpdir,
      const std::string& ns_tmpdir,
      const std::optional<std::pair<std::string, std::uint32_t>>& parent = std::nullopt);
  /// Registers one local rank and returns the environment PMIx wants it to have.
  Result<std::vector<std::string>> register_client(const std::string& nspace, std::uint32_t rank,
                                                   uid_t uid, gid_t gid);
  void deregister_namespace(const std::string& nspace);
  /// Asks the local PMIx server for a local rank's modex data, for a peer agent.
  void request_dmodex(const std::string& nspace, std::uint32_t rank, ModexDone done);
  void finalize();

  /// Rank `rank` of `nspace` runs as `pid`: only its processes may connect as it (RankPeers).
  void rank_started(const std::string& nspace, std::uint32_t rank, pid_t pid) {
    peers_.set_pid(nspace, rank, pid);
  }

  // Entry points for the C upcalls (pmix_host.cpp); not for other callers.
  asio::io_context& io() { return io_; }
  PmixEvents& events() { return events_; }
  RankPeers& peers() { return peers_; }

 private:
  asio::io_context& io_;
  PmixEvents& events_;
  bool initialized_ = false;
  hwloc_topology* topology_ = nullptr;  // lent to libpmix until PMIx_server_finalize
  RankPeers peers_;
};

/// libpmix's version string ("OpenPMIx 4.2.2, ...").
std::string pmix_library_version();
/// Starts and finalizes a PMIx server with `tmpdir` as its temp dir and no host callbacks: what
/// `--self-check` runs to prove libpmix and its plugins load and work on this host.
Status pmix_self_test(const std::string& tmpdir);

/// Printable text inside a log payload (Open MPI packs file, topic and rendered text into a
/// byte object): the longest run of printable characters.
std::string printable_text(std::span<const std::byte> bytes);

}  // namespace mpilaunch::agent
