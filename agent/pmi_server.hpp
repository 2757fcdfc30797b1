#pragma once
/// [io] The agent's PMI-1/PMI-2 "simple" server for MPICH ranks: one socketpair per rank
/// (PMI_FD), bytes in and replies out through pmi::ServerCore. Node barriers leave through
/// PmiEvents::on_pmi_barrier and come back with every node's puts (docs/pmi.md).

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "common/asio.hpp"
#include "common/pmi_wire.hpp"
#include "common/result.hpp"

namespace mpilaunch::agent {

/// Every event names the rank's namespace: the job's, or a spawned PMI job's (ChildJob).
class PmiEvents {
 public:
  virtual ~PmiEvents() = default;
  virtual void on_pmi_connected(const std::string& nspace, std::uint32_t rank) = 0;
  virtual void on_pmi_finalized(const std::string& nspace, std::uint32_t rank) = 0;
  /// The rank called PMI_Abort and now waits for a reply that never comes: end it.
  virtual void on_pmi_abort(const std::string& nspace, std::uint32_t rank, int exit_code) = 0;
  /// Every local rank entered the barrier; `blob` is this node's puts (pmi::encode_puts).
  /// Answer with PmiServer::release() once every node's blobs are known.
  virtual void on_pmi_barrier(const std::string& nspace, std::vector<std::byte> blob) = 0;
  /// A rank published, looked up or unpublished a name: `request` (NamePublish, NameLookup,
  /// NameUnpublish) for the job's name service; call `done` with its answer, on the loop.
  virtual void on_pmi_name(protocol::Message request,
                           std::function<void(const protocol::NameReply&)> done) = 0;
  /// A rank called MPI_Comm_spawn: `request` for the launcher; call `done` with its answer (a
  /// PMIx status, 0 when the children started, and their namespace), on the loop.
  virtual void on_pmi_spawn(protocol::SpawnRequest request,
                            std::function<void(int status, const std::string& nspace)> done) = 0;
  /// A rank asked for a dynamic-process service (answered rc=-1); `call` names the MPI call.
  virtual void on_pmi_unsupported(const std::string& nspace, std::uint32_t rank,
                                  std::string call) = 0;
  /// A rank broke the protocol; its connection is closed. `text` is one line for its stderr.
  virtual void on_pmi_error(const std::string& nspace, std::uint32_t rank, std::string text) = 0;
};

class PmiServer : public std::enable_shared_from_this<PmiServer> {
 public:
  PmiServer(asio::io_context& io, PmiEvents& events, pmi::JobFacts facts);
  /// Opens `rank`'s socketpair and starts serving the agent's end. Returns the rank's end,
  /// close-on-exec (ChildSet::spawn keeps it in the rank); call child_started() after the fork.
  Result<int> open(std::uint32_t rank);
  /// Closes the agent's copy of the rank's end (after fork, or when the spawn failed).
  void child_started(int rank_fd);
  /// The launcher released the barrier: `all` is every node's blob, concatenated.
  void release(std::span<const std::byte> all);
  /// Stops serving: every socket closes and every reader ends.
  void close_all();

 private:
  struct Link {
    std::shared_ptr<asio::local::stream_protocol::socket> socket;
    std::deque<std::string> queue;
    std::size_t queued = 0;
    bool writing = false;
  };
  asio::awaitable<void> read_loop(std::uint32_t rank,
                                  std::shared_ptr<asio::local::stream_protocol::socket> socket);
  asio::awaitable<void> write_loop(std::uint32_t rank);
  void act_on(const std::vector<pmi::Output>& outputs);
  void send(std::uint32_t rank, std::string bytes);
  void answer_name(std::uint32_t token, const protocol::NameReply& reply);
  void answer_spawn(std::uint32_t token, int status, const std::string& nspace);
  void close(std::uint32_t rank);
  void drop(std::uint32_t rank, std::string text);

  asio::io_context& io_;
  PmiEvents& events_;
  std::string nspace_;  // the kvsname
  pmi::ServerCore core_;
  std::map<std::uint32_t, Link> links_;
  bool closed_ = false;
};

}  // namespace mpilaunch::agent
