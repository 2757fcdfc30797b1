#pragma once
/// One host and its slots, as given by -H, a hostfile or a resource manager.

#include <optional>
#include <string>
#include <vector>

namespace mpilaunch::launcher {

struct HostEntry {
  std::string name;              // as the user wrote it (an ssh alias, a name, an address)
  int slots = 1;                 // how many ranks may run there without oversubscribing
  bool slots_given = false;      // false: slots is a default (e.g. "-H a,b")
  std::optional<int> max_slots;  // hard limit even with --oversubscribe
  std::string user;              // from user@host, empty when not given
  std::optional<int> port;       // from host:port forms where unambiguous, else empty
  friend bool operator==(const HostEntry&, const HostEntry&) = default;
};

/// Hosts plus where they came from ("-H", "hostfile hosts.txt", "slurm", ...), for --dry-run.
struct HostList {
  std::vector<HostEntry> hosts;
  std::string source;
};

}  // namespace mpilaunch::launcher
