#include "agent/rank_peers.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

#include "agent/peer_sockets.hpp"
#include "common/file_text.hpp"
#include "common/process_tree.hpp"

namespace mpilaunch::agent {
namespace {

constexpr auto kPidWait = std::chrono::seconds(1);

// Which of `inodes` the processes of `tree` hold open.
std::set<unsigned long> held_by(const std::vector<pid_t>& tree,
                                const std::set<unsigned long>& inodes) {
  std::set<unsigned long> held;
  for (const pid_t pid : tree) {
    const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
    DIR* dir = ::opendir(fds.c_str());
    if (dir == nullptr) continue;
    while (const dirent* e = ::readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      char target[64];
      const ssize_t n = ::readlink((fds + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      target[n] = '\0';
      // "socket:[12345]"
      const std::string_view link(target, static_cast<std::size_t>(n));
      if (!link.starts_with("socket:[") || !link.ends_with(']')) continue;
      const unsigned long inode = std::strtoul(target + 8, nullptr, 10);
      if (inodes.contains(inode)) held.insert(inode);
    }
    ::closedir(dir);
  }
  return held;
}

}  // namespace

bool RankPeers::enabled() {
  const char* v = std::getenv("MPILAUNCH_PMIX_PEER_CHECK");
  return v == nullptr || std::string_view(v) != "off";
}

void RankPeers::set_port(std::uint16_t port) {
  std::lock_guard lock(mutex_);
  port_ = port;
}

void RankPeers::set_pid(const std::string& nspace, std::uint32_t rank, pid_t pid) {
  {
    std::lock_guard lock(mutex_);
    ranks_[{nspace, rank}] = Rank{pid, {}};
  }
  changed_.notify_all();
}

void RankPeers::forget(const std::string& nspace) {
  std::lock_guard lock(mutex_);
  std::erase_if(ranks_, [&](const auto& entry) { return entry.first.first == nspace; });
}

bool RankPeers::admit(const std::string& nspace, std::uint32_t rank) {
  std::unique_lock lock(mutex_);
  if (!port_) return true;  // no port known: nothing to check against
  const auto key = std::make_pair(nspace, rank);
  // Not a rank this agent started (another node's, or none): never admitted.
  if (!changed_.wait_for(lock, kPidWait, [&] { return ranks_.contains(key); })) return false;
  const pid_t pid = ranks_[key].pid;
  const std::uint16_t port = *port_;
  lock.unlock();
  std::set<unsigned long> inodes = client_socket_inodes(file_text("/proc/net/tcp"), port);
  inodes.merge(client_socket_inodes(file_text("/proc/net/tcp6"), port));
  const std::set<unsigned long> held = held_by(process_tree(pid), inodes);
  lock.lock();
  Rank& r = ranks_[key];
  if (r.pid != pid) return false;
  // Sockets of earlier admissions that are closed now (or no longer the rank's) are forgotten;
  // one the rank holds that no admission took yet takes this one.
  std::erase_if(r.admitted, [&](unsigned long inode) { return !held.contains(inode); });
  const auto fresh =
      std::ranges::find_if(held, [&](unsigned long inode) { return !r.admitted.contains(inode); });
  if (fresh == held.end()) return false;
  r.admitted.insert(*fresh);
  return true;
}

}  // namespace mpilaunch::agent
