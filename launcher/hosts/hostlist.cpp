#include "launcher/hosts/hostlist.hpp"

#include "common/text.hpp"
#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {
namespace {

using Why = std::optional<std::string>;  // why the input is malformed; empty when it is fine

struct Range {
  std::uint32_t lo = 0;
  std::uint32_t hi = 0;
  int width = 0;  // digits of the first number as written: "08" pads to 2
};

// Literal text, or a bracket group when `ranges` is not empty.
struct Part {
  std::string_view literal;
  std::vector<Range> ranges;
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '-' ||
         c == '_';
}

// Up to 9 digits, so any value fits and the message can say so.
std::optional<std::uint32_t> read_number(std::string_view digits) {
  if (digits.size() > 9) return std::nullopt;
  return parse_int<std::uint32_t>(digits);
}

int digits_of(std::uint32_t n) {
  return static_cast<int>(mpilaunch::format("{}", n).size());
}

Why read_group(std::string_view inside, Part& part) {
  const std::string group = mpilaunch::format("[{}]", printable(inside));
  for (const std::string_view item : split_at(inside, ',')) {
    if (item.empty()) return mpilaunch::format("'{}' has an empty range; write [1-3,7]", group);
    const std::size_t dash = item.find('-');
    const std::string_view lo_text = item.substr(0, dash);
    const std::string_view hi_text =
        dash == std::string_view::npos ? lo_text : item.substr(dash + 1);
    const auto lo = read_number(lo_text);
    const auto hi = read_number(hi_text);
    if (!lo || !hi)
      return mpilaunch::format(
          "'{}' in '{}' is not a number or range; write [1-3,7] (up to 9 digits)", printable(item),
          group);
    if (*lo > *hi)
      return mpilaunch::format("range {} in '{}' runs backwards; write [{}-{}]", printable(item),
                               group, printable(hi_text), printable(lo_text));
    part.ranges.push_back({*lo, *hi, static_cast<int>(lo_text.size())});
  }
  return std::nullopt;
}

Why read_item(std::string_view item, std::vector<Part>& parts) {
  std::size_t i = 0;
  while (i < item.size()) {
    if (item[i] == '[') {
      const std::size_t close = item.find(']', i);
      const std::size_t nested = item.find('[', i + 1);
      if (close == std::string_view::npos)
        return mpilaunch::format("'{}' has a '[' without ']'", printable(item));
      if (nested < close) return mpilaunch::format("'{}' nests brackets", printable(item));
      Part group;
      if (Why why = read_group(item.substr(i + 1, close - i - 1), group)) return why;
      parts.push_back(std::move(group));
      i = close + 1;
    } else {
      const std::size_t end = std::min(item.find('[', i), item.size());
      const std::string_view literal = item.substr(i, end - i);
      if (const auto bad = std::find_if_not(literal.begin(), literal.end(), is_name_char);
          bad != literal.end())
        return mpilaunch::format(
            "'{}' contains '{}'; host names use letters, digits, '.', '-', '_'", printable(item),
            printable(std::string_view(&*bad, 1)));
      parts.push_back(Part{literal, {}});
      i = end;
    }
  }
  if (!parts.front().literal.empty() && parts.front().literal.front() == '-')
    return mpilaunch::format("'{}' starts with '-'", printable(item));
  return std::nullopt;
}

// Every name of one item, appended to `out`, first group varying slowest.
Why expand_item(const std::vector<Part>& parts, std::string_view item,
                std::vector<std::string>& out) {
  std::uint64_t combinations = 1;
  std::size_t longest = 0;
  for (const Part& p : parts) {
    if (p.ranges.empty()) {
      longest += p.literal.size();
      continue;
    }
    std::uint64_t count = 0;
    int widest = 0;
    for (const Range& r : p.ranges) {
      count += std::uint64_t{r.hi} - r.lo + 1;
      widest = std::max({widest, r.width, digits_of(r.hi)});
    }
    longest += static_cast<std::size_t>(widest);
    // Each factor is checked before multiplying, so the product stays far below 2^64.
    if (count <= kMaxExpandedHosts) combinations *= count;
    if (count > kMaxExpandedHosts || combinations > kMaxExpandedHosts - out.size())
      return mpilaunch::format("'{}' expands to more than {} hosts in all", printable(item),
                               kMaxExpandedHosts);
  }
  if (longest > kMaxHostNameBytes)
    return mpilaunch::format("'{}' makes names longer than {} characters", printable(item),
                             kMaxHostNameBytes);
  std::vector<std::vector<std::string>> values;  // per group, its numbers as written
  for (const Part& p : parts) {
    if (p.ranges.empty()) continue;
    values.emplace_back();
    for (const Range& r : p.ranges)
      for (std::uint64_t n = r.lo; n <= r.hi; ++n)
        values.back().push_back(mpilaunch::format("{:0{}}", n, r.width));
  }
  std::vector<std::size_t> at(values.size(), 0);
  for (;;) {
    std::string name;
    std::size_t group = 0;
    for (const Part& p : parts) {
      if (p.ranges.empty()) {
        name += p.literal;
      } else {
        name += values[group][at[group]];
        ++group;
      }
    }
    out.push_back(std::move(name));
    std::size_t k = values.size();
    while (k > 0 && ++at[k - 1] == values[k - 1].size()) at[--k] = 0;
    if (k == 0) return std::nullopt;
  }
}

Why expand_all(std::string_view text, std::vector<std::string>& out) {
  std::size_t depth = 0;
  std::size_t item_start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']' && depth == 0)
      return mpilaunch::format("a ']' without '[' at character {}", i + 1);
    if (c == ']') --depth;
    if (depth > 0 && i < text.size()) continue;
    if (c != ',' && c != ' ' && c != '\t') continue;
    const std::string_view item = text.substr(item_start, i - item_start);
    item_start = i + 1;
    if (item.empty()) {
      if (c == ',' && (i == text.size() || i == 0 || text[i - 1] == ','))
        return mpilaunch::format("an empty item at character {}; remove the extra comma", i + 1);
      continue;
    }
    if (depth > 0) return mpilaunch::format("'{}' has a '[' without ']'", printable(item));
    std::vector<Part> parts;
    if (Why why = read_item(item, parts)) return why;
    if (Why why = expand_item(parts, item, out)) return why;
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view text, std::string_view origin) {
  std::vector<std::string> names;
  text = trim_blanks(text);
  const Why why = text.empty() ? Why("the host list is empty; write e.g. n[1-4],gpu1")
                               : expand_all(text, names);
  if (why)
    return Error{.kind = ErrorKind::HostfileError,
                 .detail = mpilaunch::format("{}: {}", origin, *why)};
  return names;
}

Result<std::vector<int>> expand_node_counts(std::string_view text, std::string_view origin) {
  auto fail = [&](std::string_view item) {
    return Error{
        .kind = ErrorKind::HostfileError,
        .detail = mpilaunch::format("{}: '{}' is not a count; write N or N(xM) items, e.g. 2(x3),1",
                                    origin, printable(item))};
  };
  std::vector<int> counts;
  for (const std::string_view item : split_at(trim_blanks(text), ',')) {
    const std::size_t paren = item.find('(');
    const auto count = parse_slot_count(item.substr(0, paren));
    std::optional<int> repeat = 1;
    if (paren != std::string_view::npos) {
      const std::string_view times = item.substr(paren);  // "(x3)"
      const bool shaped = times.size() > 3 && times.substr(0, 2) == "(x" && times.back() == ')';
      repeat = shaped ? parse_slot_count(times.substr(2, times.size() - 3)) : std::nullopt;
    }
    if (!count || !repeat) return fail(item);
    if (static_cast<std::size_t>(*repeat) > kMaxExpandedHosts - counts.size())
      return Error{
          .kind = ErrorKind::HostfileError,
          .detail = mpilaunch::format("{}: more than {} nodes", origin, kMaxExpandedHosts)};
    counts.insert(counts.end(), static_cast<std::size_t>(*repeat), *count);
  }
  return counts;
}

}  // namespace mpilaunch::launcher
