#include "launcher/hostfile.hpp"

#include <fmt/format.h>

#include <charconv>

namespace mpilaunch::launcher {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<int> count_of(std::string_view text) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

// "user@name" -> user, name; "[::1]" -> ::1. Empty name: invalid.
bool split_name(std::string_view text, HostEntry& h) {
  if (const auto at = text.find('@'); at != std::string_view::npos) {
    h.user = std::string(text.substr(0, at));
    text.remove_prefix(at + 1);
    if (h.user.empty()) return false;
  }
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
    text = text.substr(1, text.size() - 2);
  if (text.empty() || text.find_first_of(" \t[]=,") != std::string_view::npos) return false;
  h.name = std::string(text);
  return true;
}

// "name" or "name:N" where name may be "[v6]"; returns false on a malformed item.
bool parse_name_and_slots(std::string_view item, HostEntry& h, std::string& why) {
  std::string_view name = item;
  std::string_view slots;
  const auto bracket = item.rfind(']');
  const auto colon = item.rfind(':');
  // A bare IPv6 address ("::1", "fe80::2") has several colons and only hex digits besides.
  const bool v6_bare = bracket == std::string_view::npos && item.find(':') != colon &&
                       item.find_first_not_of("0123456789abcdefABCDEF:.") == std::string_view::npos;
  if (colon != std::string_view::npos && !v6_bare &&
      (bracket == std::string_view::npos || colon > bracket)) {
    name = item.substr(0, colon);
    slots = item.substr(colon + 1);
    const auto n = count_of(slots);
    if (!n) {
      why = fmt::format("'{}' is not a slot count; write {}:N with N >= 1", slots, name);
      return false;
    }
    h.slots = *n;
    h.slots_given = true;
  }
  if (!split_name(name, h)) {
    why = fmt::format("'{}' is not a host name", name);
    return false;
  }
  return true;
}

}  // namespace

void add_host(std::vector<HostEntry>& hosts, HostEntry entry) {
  for (HostEntry& h : hosts)
    if (h.name == entry.name && h.user == entry.user) {
      h.slots += entry.slots;
      h.slots_given = h.slots_given || entry.slots_given;
      if (entry.max_slots)
        h.max_slots = h.max_slots ? *h.max_slots + *entry.max_slots : *entry.max_slots;
      return;
    }
  hosts.push_back(std::move(entry));
}

Result<std::vector<HostEntry>> parse_host_option(std::string_view value) {
  std::vector<HostEntry> hosts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = value.find(',', start);
    const std::string_view item =
        trim(value.substr(start, end == std::string_view::npos ? end : end - start));
    HostEntry h;
    std::string why = "empty host name (two commas, or a comma at an end)";
    if (item.empty() || !parse_name_and_slots(item, h, why))
      return Error{.kind = ErrorKind::BadOption, .detail = fmt::format("-H {}: {}", value, why)};
    add_host(hosts, std::move(h));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return hosts;
}

Result<std::vector<HostEntry>> parse_hostfile(std::string_view text, std::string_view path) {
  std::vector<HostEntry> hosts;
  int line_no = 0;
  auto fail = [&](const std::string& what) -> Error {
    return Error{.kind = ErrorKind::HostfileError,
                 .detail = fmt::format("{}:{}: {}", path, line_no, what)};
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) {
      if (end == text.size()) break;
      continue;
    }
    // The host is the first word; the rest are key=value pairs ("slots = 4" is allowed).
    const auto space = line.find_first_of(" \t");
    const std::string_view first = line.substr(0, space);
    // The rest is key=value pairs; spaces around '=' are allowed ("slots = 4").
    std::string joined;
    const std::string_view rest =
        space == std::string_view::npos ? std::string_view() : line.substr(space);
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const bool blank = rest[i] == ' ' || rest[i] == '\t';
      if (!blank) {
        joined += rest[i];
        continue;
      }
      const std::size_t next = rest.find_first_not_of(" \t", i);
      const bool near_eq = (!joined.empty() && joined.back() == '=') ||
                           (next != std::string_view::npos && rest[next] == '=');
      if (!near_eq && !joined.empty() && joined.back() != ' ') joined += ' ';
    }
    HostEntry h;
    std::string why;
    if (!parse_name_and_slots(first, h, why)) return fail(why);
    std::size_t pos = 0;
    while (pos < joined.size()) {
      std::size_t next = joined.find(' ', pos);
      if (next == std::string::npos) next = joined.size();
      const std::string_view pair = std::string_view(joined).substr(pos, next - pos);
      pos = next + 1;
      if (pair.empty()) continue;
      const auto eq = pair.find('=');
      if (eq == std::string_view::npos)
        return fail(fmt::format("'{}' is not key=value; write 'host slots=N [max_slots=M]'", pair));
      const std::string_view key = pair.substr(0, eq);
      const std::string_view val = pair.substr(eq + 1);
      const auto n = count_of(val);
      if (key == "slots" || key == "count" || key == "cpu" || key == "cpus") {
        if (!n)
          return fail(fmt::format("'{}' is not a slot count; write slots=N with N >= 1", val));
        h.slots = *n;
        h.slots_given = true;
      } else if (key == "max_slots" || key == "max-slots") {
        if (!n)
          return fail(fmt::format("'{}' is not a slot count; write max_slots=N with N >= 1", val));
        h.max_slots = *n;
      } else {
        return fail(fmt::format("unknown keyword '{}'; the keywords are slots and max_slots", key));
      }
    }
    if (h.max_slots && !h.slots_given) h.slots = *h.max_slots;  // max_slots alone sets both
    if (h.max_slots && *h.max_slots < h.slots)
      return fail(fmt::format("max_slots={} is smaller than slots={}", *h.max_slots, h.slots));
    add_host(hosts, std::move(h));
    if (end == text.size()) break;
  }
  if (hosts.empty())
    return Error{
        .kind = ErrorKind::HostfileError,
        .detail = fmt::format("{}: no hosts in the file; write one 'host slots=N' per line", path)};
  return hosts;
}

}  // namespace mpilaunch::launcher
