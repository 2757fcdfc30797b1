#include "launcher/hosts/host_entry.hpp"

#include <arpa/inet.h>

#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>

namespace mpilaunch::launcher {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_hex(char c) {
  return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9');
}

std::optional<std::string> ipv6_problem(std::string_view name) {
  const std::string_view address = name.substr(0, name.find('%'));  // "fe80::1%eth0"
  const bool chars_ok = std::all_of(address.begin(), address.end(),
                                    [](char c) { return is_hex(c) || c == ':' || c == '.'; });
  if (!chars_ok || std::count(address.begin(), address.end(), ':') < 2)
    return mpilaunch::format("'{}' is neither a host name nor an IPv6 address", printable(name));
  return std::nullopt;
}

std::string key_of(const HostEntry& entry) {
  return entry.user + '@' + entry.name;
}

}  // namespace

bool HostListBuilder::add(HostEntry entry) {
  const auto [it, inserted] = index_.try_emplace(key_of(entry), hosts_.size());
  if (inserted) {
    hosts_.push_back(std::move(entry));
    return true;
  }
  HostEntry& same = hosts_[it->second];
  const int max_here = same.max_slots.value_or(0);
  const int max_there = entry.max_slots.value_or(0);
  if (same.slots > kMaxSlotsPerHost - entry.slots || max_here > kMaxSlotsPerHost - max_there)
    return false;
  same.slots += entry.slots;
  same.slots_given = same.slots_given || entry.slots_given;
  same.count_cores = false;  // a host named again counts its entries, as mpirun's host file does
  if (same.max_slots || entry.max_slots) same.max_slots = max_here + max_there;
  if (!same.port) same.port = entry.port;
  return true;
}

std::optional<std::size_t> HostListBuilder::index_of(const HostEntry& entry) const {
  const auto it = index_.find(key_of(entry));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::optional<int> parse_slot_count(std::string_view text) {
  // Seven digits at most (kMaxSlotsPerHost's): a count padded with zeros beyond that is refused.
  if (text.size() > 7) return std::nullopt;
  return parse_int<int>(text, 1, kMaxSlotsPerHost);
}

std::optional<std::string> host_name_problem(std::string_view name) {
  if (name.empty()) return "the host name is empty";
  if (name.size() > kMaxHostNameBytes)
    return mpilaunch::format("'{}' is longer than {} characters", printable(name),
                             kMaxHostNameBytes);
  if (name.find(':') != std::string_view::npos) return ipv6_problem(name);
  // A leading '-' would read as an option to ssh.
  if (name.front() == '-') return mpilaunch::format("'{}' starts with '-'", printable(name));
  for (const char c : name)
    if (!is_alnum(c) && c != '.' && c != '-' && c != '_')
      return mpilaunch::format(
          "'{}' contains '{}'; host names use letters, digits, '.', '-' and '_'", printable(name),
          printable(std::string_view(&c, 1)));
  return std::nullopt;
}

std::optional<std::string> read_host_item(std::string_view item, HostEntry& entry) {
  std::string_view name = item;
  const auto colon = item.rfind(':');
  const auto bracket = item.rfind(']');
  if (item.find('[') != std::string_view::npos && bracket == std::string_view::npos)
    return mpilaunch::format("'{}' has an unmatched bracket; write IPv6 addresses as [::1]",
                             printable(item));
  const bool bare_ipv6 =
      std::count(item.begin(), item.end(), ':') > 1 && item.find('[') == std::string_view::npos;
  if (colon != std::string_view::npos && !bare_ipv6 &&
      (bracket == std::string_view::npos || colon > bracket)) {
    name = item.substr(0, colon);
    const std::string_view count = item.substr(colon + 1);
    const auto slots = parse_slot_count(count);
    if (!slots)
      return mpilaunch::format("'{}' is not a slot count; write {}:N with 1 <= N <= {}",
                               printable(count), printable(name), kMaxSlotsPerHost);
    entry.slots = *slots;
    entry.slots_given = true;
  }
  return read_user_and_name(name, entry);
}

std::optional<std::string> read_user_and_name(std::string_view text, HostEntry& entry) {
  if (const auto at = text.find('@'); at != std::string_view::npos) {
    const std::string_view user = text.substr(0, at);
    const bool user_ok =
        !user.empty() && user.front() != '-' && std::all_of(user.begin(), user.end(), [](char c) {
          return is_alnum(c) || c == '.' || c == '-' || c == '_';
        });
    if (!user_ok)
      return mpilaunch::format("'{}' is not a user name in '{}'; write user@host", printable(user),
                               printable(text));
    entry.user = std::string(user);
    text.remove_prefix(at + 1);
  }
  if (!text.empty() && (text.front() == '[' || text.back() == ']')) {
    if (text.size() < 2 || text.front() != '[' || text.back() != ']')
      return mpilaunch::format("'{}' has an unmatched bracket; write IPv6 addresses as [::1]",
                               printable(text));
    text = text.substr(1, text.size() - 2);
    if (text.find(':') == std::string_view::npos)
      return mpilaunch::format("'[{}]' is not an IPv6 address; brackets are for IPv6 only",
                               printable(text));
  }
  if (auto problem = host_name_problem(text)) return problem;
  entry.name = std::string(text);
  return std::nullopt;
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > 64) out += "...";
  return out;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t') {
      ++i;
    } else if (line[i] == '=') {
      words.push_back(line.substr(i++, 1));
    } else {
      const std::size_t end = std::min(line.find_first_of(" \t=", i), line.size());
      words.push_back(line.substr(i, end - i));
      i = end;
    }
  }
  return words;
}

std::string host_text(const HostEntry& entry) {
  const std::string name =
      entry.name.find(':') != std::string::npos ? "[" + entry.name + "]" : entry.name;
  return entry.user.empty() ? name : entry.user + "@" + name;
}

std::string_view trim_blanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

bool is_ip_address(const std::string& name) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, name.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

std::string short_host_name(const std::string& name) {
  return is_ip_address(name) ? name : name.substr(0, name.find('.'));
}

bool is_local_name(const std::string& name, const std::string& hostname) {
  return name == "localhost" || name == "127.0.0.1" || name == "::1" ||
         (!hostname.empty() && short_host_name(name) == short_host_name(hostname));
}

}  // namespace mpilaunch::launcher
