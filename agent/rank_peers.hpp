#pragma once
/// [io] Who may connect to the agent's PMIx server as a rank (issue 23 item 11, docs/
/// reliability.md). libpmix 4.2 serves clients over TCP on 127.0.0.1 only, and its "native"
/// credential there is the client's own claim of its uid: any local user could connect as a
/// rank of any job (its namespace is guessable) and, say, decide its exit code with PMIx_Abort.
/// So the agent admits a connection claiming rank R only while the processes of R (its process
/// and its descendants) hold a connected socket to the server that no earlier admission of R
/// took: found through /proc/net/tcp and tcp6 (the client ends of connections to the server's
/// port) and the inodes in their /proc/PID/fd. Admissions are counted by live socket, so a
/// rank that closes its connection and connects again (PMIx_Finalize then PMIx_Init, as Open
/// MPI 5 does after a failed MPI_Init to report it) is admitted again. Called on libpmix's progress
/// thread; the rest of the agent tells it the server's port and each rank's pid.

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace mpilaunch::agent {

class RankPeers {
 public:
  /// The server's port, from the URI libpmix hands each rank (PMIX_SERVER_URI*).
  void set_port(std::uint16_t port);
  /// Rank `rank` of `nspace` was started as process `pid`.
  void set_pid(const std::string& nspace, std::uint32_t rank, pid_t pid);
  /// Forgets a namespace's ranks (its attempt is over).
  void forget(const std::string& nspace);
  /// Whether a connection that says it is `rank` of `nspace` comes from that rank. Waits up
  /// to a second for the rank's pid (the connection may beat the agent's bookkeeping).
  bool admit(const std::string& nspace, std::uint32_t rank);
  /// MPILAUNCH_PMIX_PEER_CHECK=off: every connection libpmix accepts is admitted.
  static bool enabled();

 private:
  struct Rank {
    pid_t pid = -1;
    std::set<unsigned long> admitted;  // client socket inodes, each taken by one admission
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::uint16_t> port_;
  std::map<std::pair<std::string, std::uint32_t>, Rank> ranks_;
};

}  // namespace mpilaunch::agent
