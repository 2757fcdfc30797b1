#pragma once
/// One host and its slots, as given by -H, a hostfile or a resource manager, plus the small
/// checks every host format shares (names, slot counts, merging repeats). Pure.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/placement.hpp"

namespace mpilaunch::launcher {

struct HostEntry {
  std::string name;          // as the user wrote it (an ssh alias, a name, an address)
  int slots = 1;             // how many ranks may run there without oversubscribing
  bool slots_given = false;  // false: slots is a default (e.g. "-H a,b")
  /// A host file's one line for this host gave no slots=: mpirun 4.1.4 counts the node's cores
  /// (what its agent reports), not 1. Cleared when the host is merged with another entry
  /// (several lines without slots= are one slot per line) or picked by -H without :N.
  bool count_cores = false;
  std::optional<int> max_slots;  // hard limit even with --oversubscribe
  std::string user;              // from user@host, empty when not given
  std::optional<int> port;       // from host:port forms where unambiguous, else empty
  friend bool operator==(const HostEntry&, const HostEntry&) = default;
};

/// One line of a -rf/--rankfile (launcher/hosts/rankfile.hpp).
struct RankfileLine {
  int rank = 0;
  std::string host;  // as written: a name, or user@name
  RankSlot slot;
  int line = 0;
  friend bool operator==(const RankfileLine&, const RankfileLine&) = default;
};

/// Hosts plus where they came from ("-H", "hostfile hosts.txt", "slurm", ...), for --dry-run.
struct HostList {
  std::vector<HostEntry> hosts;
  std::string source;
  std::vector<RankfileLine> rankfile;  // -rf: which host and CPUs each rank gets
  std::string rankfile_path;
  /// The host of each -H word or host file line, in order ("user@name", "[v6]"): the seq
  /// mapper's order. Empty when the hosts came from elsewhere or from both -H and a host file.
  std::vector<std::string> host_lines;
  /// Several application contexts with a host file each (HostRequest::context_hostfiles): each
  /// file's host names, by path; a context with a file runs only on its hosts.
  std::map<std::string, std::vector<std::string>> hostfile_hosts;
  /// Inside a resource manager's allocation that -H or a host file narrowed: the allocation's
  /// own hosts and slots (MPI_UNIVERSE_SIZE, --display-allocation); empty otherwise.
  std::vector<HostEntry> allocation;
  /// The hosts -H or a host file named that the allocation does not have: left out.
  std::vector<std::string> outside_allocation;
};

/// Bounds that keep every host parser's output small whatever the input.
inline constexpr int kMaxSlotsPerHost = 1'000'000;
inline constexpr std::size_t kMaxHostNameBytes = 255;  // the DNS limit

/// Collects hosts in first-seen order, merging an entry into the earlier one of the same name and
/// user: slots (and max_slots) add up, as for Open MPI's "-H a,a". Each add is O(1).
class HostListBuilder {
 public:
  /// False, changing nothing, when the merged slots would pass kMaxSlotsPerHost.
  [[nodiscard]] bool add(HostEntry entry);
  /// Position of the entry with this name and user, if one was added.
  std::optional<std::size_t> index_of(const HostEntry& entry) const;
  const std::vector<HostEntry>& hosts() const { return hosts_; }
  std::vector<HostEntry> take() && { return std::move(hosts_); }

 private:
  std::vector<HostEntry> hosts_;
  std::unordered_map<std::string, std::size_t> index_;  // "user@name" -> position in hosts_
};

/// "N" with 1 <= N <= kMaxSlotsPerHost, digits only; nullopt otherwise.
std::optional<int> parse_slot_count(std::string_view text);

/// Why `name` cannot be a host name (empty, too long, a character such as ' ' '=' ',' '/'),
/// or nullopt when it can. Letters, digits, ".-_" and, for IPv6 addresses, ":%" are allowed.
std::optional<std::string> host_name_problem(std::string_view name);

/// Reads "name:N" (N slots, slots_given), "user@name", "[v6]:N" or a bare IPv6 address ("::1",
/// which takes no ":N") into `entry`; returns why the text is not a host otherwise.
std::optional<std::string> read_host_item(std::string_view item, HostEntry& entry);

/// Fills name and user from "name", "user@name" or "[v6-address]" (brackets removed); returns
/// why the text is not a host otherwise.
std::optional<std::string> read_user_and_name(std::string_view text, HostEntry& entry);

/// Words of a host file or rankfile line, split at blanks; '=' is a word of its own, so that
/// "slots = 4" and "slots=4" ("rank 0 = a" and "rank 0=a") read alike.
std::vector<std::string_view> split_words(std::string_view line);

/// The entry's host as read_user_and_name reads it back: "name", "user@name", "[v6]".
std::string host_text(const HostEntry& entry);

/// `text` without leading and trailing blanks (space, tab, CR).
std::string_view trim_blanks(std::string_view text);

/// `text` cut to 64 characters with unprintable bytes as '?': safe to quote in an error.
std::string printable(std::string_view text);

/// An IPv4 or IPv6 address (whose dots are no domain).
bool is_ip_address(const std::string& name);

/// The host part of a name as mpirun compares nodes (its default strips the domain): "vm" for
/// "vm.example.org"; an address unchanged.
std::string short_host_name(const std::string& name);

/// True when `name` denotes this machine, whose hostname is `hostname`: localhost, 127.0.0.1,
/// ::1, or the same short name ("vm" and "vm.example.org" are one node, as for mpirun).
bool is_local_name(const std::string& name, const std::string& hostname);

}  // namespace mpilaunch::launcher
