#include "launcher/hosts/hostfile.hpp"

#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>

namespace mpilaunch::launcher {
namespace {

enum class Key { Slots, MaxSlots, User, Port, Topology, RankfileOnly };

struct Keyword {
  std::string_view name;
  Key key;
};

// Open MPI's hostfile lexer (orte/util/hostfile) accepts these spellings.
constexpr Keyword kKeywords[] = {
    {"slots", Key::Slots},
    {"count", Key::Slots},
    {"cpu", Key::Slots},
    {"max_slots", Key::MaxSlots},
    {"max-slots", Key::MaxSlots},
    {"slots_max", Key::MaxSlots},
    {"slots-max", Key::MaxSlots},
    {"max_cpu", Key::MaxSlots},
    {"max-cpu", Key::MaxSlots},
    {"cpu_max", Key::MaxSlots},
    {"cpu-max", Key::MaxSlots},
    {"max_count", Key::MaxSlots},
    {"max-count", Key::MaxSlots},
    {"count_max", Key::MaxSlots},
    {"count-max", Key::MaxSlots},
    {"username", Key::User},
    {"user_name", Key::User},
    {"user-name", Key::User},
    {"port", Key::Port},
    {"boards", Key::Topology},
    {"sockets", Key::Topology},
    {"sockets_per_board", Key::Topology},
    {"sockets-per-board", Key::Topology},
    {"cores", Key::Topology},
    {"cores_per_socket", Key::Topology},
    {"cores-per-socket", Key::Topology},
    {"slot", Key::RankfileOnly},
    {"rank", Key::RankfileOnly},
    {"cpu_set", Key::RankfileOnly},
    {"cpu-set", Key::RankfileOnly},
};

std::optional<Key> find_key(std::string_view name) {
  for (const Keyword& k : kKeywords)
    if (k.name == name) return k.key;
  return std::nullopt;
}

// Why `value` is not a count for `key` (slots=N, max_slots=N), worded with the fix.
std::string count_problem(std::string_view key, std::string_view value) {
  const std::string written = mpilaunch::format("{}={}", key, printable(value));
  if (!value.empty() && value.front() == '-')
    return mpilaunch::format("'{}' is negative; write {}=N with N >= 1", written, key);
  if (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) { return c == '0'; }))
    return mpilaunch::format("'{}' gives no slots; write {}=N with N >= 1, or remove the line",
                             written, key);
  if (!value.empty() &&
      std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return mpilaunch::format("'{}' is more than {}; write {}=N with a smaller N", written,
                             kMaxSlotsPerHost, key);
  return mpilaunch::format("'{}' is not a number; write {}=N with N >= 1", written, key);
}

// Applies one key=value word to `entry`; the reason when it cannot.
std::optional<std::string> apply(std::string_view key, std::string_view value, HostEntry& entry) {
  const auto k = find_key(key);
  if (!k)
    return mpilaunch::format(
        "'{}' is not a hostfile keyword; write 'host slots=N [max_slots=M]' (also: username=, "
        "port=)",
        printable(key));
  switch (*k) {
    case Key::Slots: {
      if (entry.slots_given)
        return mpilaunch::format("the slots are given twice (again as '{}={}'); keep one", key,
                                 printable(value));
      const auto n = parse_slot_count(value);
      if (!n) return count_problem(key, value);
      entry.slots = *n;
      entry.slots_given = true;
      return std::nullopt;
    }
    case Key::MaxSlots: {
      if (entry.max_slots) return mpilaunch::format("'{}' is given twice; keep one", key);
      const auto n = parse_slot_count(value);
      if (!n) return count_problem(key, value);
      entry.max_slots = *n;
      return std::nullopt;
    }
    case Key::User: {
      HostEntry probe;
      if (!entry.user.empty() || read_user_and_name(mpilaunch::format("{}@x", value), probe))
        return mpilaunch::format("'{}={}' is not one user name; write {}=NAME once, or user@host",
                                 key, printable(value), key);
      entry.user = probe.user;
      return std::nullopt;
    }
    case Key::Port: {
      const auto n = parse_slot_count(value);
      if (!n || *n > 65535)
        return mpilaunch::format("'{}={}' is not a port; write port=P with 1 <= P <= 65535", key,
                                 printable(value));
      entry.port = *n;
      return std::nullopt;
    }
    case Key::Topology:
      // Open MPI's topology hints; mpilaunch maps by slots only, so they are checked, not used.
      if (value.empty() || value.size() > 6 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return mpilaunch::format("'{}={}' is not a number; write {}=N with N >= 0", key,
                                 printable(value), key);
      return std::nullopt;
    case Key::RankfileOnly:
      return mpilaunch::format("'{}=' belongs in a rankfile, not a hostfile; remove it", key);
  }
  return std::nullopt;
}

// One non-blank line (comment removed) into `entry`; the reason when it is malformed.
std::optional<std::string> read_line(std::string_view line, HostEntry& entry) {
  const std::vector<std::string_view> words = split_words(line);
  const std::string_view host = words.front();
  if (host == "=") return "the line starts with '='; write 'host slots=N'";
  if (host.front() == '+' || host.front() == '^')
    return mpilaunch::format(
        "'{}' is Open MPI's relative or excluded host syntax, which needs a resource manager's "
        "allocation; write the host's name",
        printable(host));
  if (auto why = read_host_item(host, entry)) return why;
  for (std::size_t i = 1; i < words.size(); i += 3) {
    if (words[i] == "=") return "'=' has no keyword before it; write slots=N";
    if (i + 1 >= words.size() || words[i + 1] != "=")
      return mpilaunch::format("'{}' is not key=value; write 'host slots=N [max_slots=M]'",
                               printable(words[i]));
    if (i + 2 >= words.size() || words[i + 2] == "=")
      return mpilaunch::format("'{}=' has no value; write {}=N", printable(words[i]),
                               printable(words[i]));
    if (auto why = apply(words[i], words[i + 2], entry)) return why;
  }
  if (entry.max_slots && !entry.slots_given) {  // Open MPI: max_slots alone sets both
    entry.slots = *entry.max_slots;
    entry.slots_given = true;
  }
  if (entry.max_slots && *entry.max_slots < entry.slots)
    return mpilaunch::format("max_slots={} is less than slots={}; raise max_slots or lower slots",
                             *entry.max_slots, entry.slots);
  return std::nullopt;
}

}  // namespace

Result<std::vector<HostEntry>> parse_hostfile(std::string_view text, std::string_view path,
                                              std::vector<std::string>* line_hosts) {
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    return Error{.kind = ErrorKind::HostfileError,
                 .detail = mpilaunch::format("{}:{}: {}", path, line_no, what)};
  };
  HostListBuilder hosts;
  std::vector<int> first_line;  // per host: the line that named it first
  for (const ContentLine& line : content_lines(text)) {
    line_no = line.number;
    HostEntry entry;
    if (auto why = read_line(line.text, entry)) return fail(*why);
    entry.count_cores = !entry.slots_given;
    if (line_hosts != nullptr) line_hosts->push_back(host_text(entry));
    if (const auto earlier = hosts.index_of(entry)) {
      const HostEntry& before = hosts.hosts()[*earlier];
      if (before.slots_given || entry.slots_given)
        return fail(mpilaunch::format(
            "{} is also on line {} and one of them gives its slots; list it once with slots=N, "
            "or once per slot without slots",
            printable(entry.name), first_line[*earlier]));
    } else {
      first_line.push_back(line_no);
    }
    const std::string name = entry.name;
    if (!hosts.add(std::move(entry)))
      return fail(mpilaunch::format("{} has more than {} slots in all", name, kMaxSlotsPerHost));
  }
  if (hosts.hosts().empty())
    return Error{.kind = ErrorKind::HostfileError,
                 .detail = mpilaunch::format(
                     "{}: no hosts in the file; write one 'host slots=N' per line", path)};
  return std::move(hosts).take();
}

}  // namespace mpilaunch::launcher
