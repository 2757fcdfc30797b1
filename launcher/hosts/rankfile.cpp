#include "launcher/hosts/rankfile.hpp"

#include "common/text.hpp"
#include "common/text_format.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace mpilaunch::launcher {
namespace {

constexpr int kMaxRank = 1 << 20;

std::optional<std::string> read_line(std::string_view line, RankfileLine& out) {
  const std::vector<std::string_view> w = split_words(line);
  constexpr std::string_view kForm = "write 'rank N=HOST slot=CPUS' (CPUS: 1, 0-2, 0,3 or S:C)";
  if (w.size() != 7 || w[0] != "rank" || w[2] != "=" || w[4] != "slot" || w[5] != "=")
    return mpilaunch::format("'{}' is not a rankfile line; {}", printable(line), kForm);
  const auto rank = parse_int<int>(w[1], 0, kMaxRank - 1);
  if (!rank) return mpilaunch::format("'{}' is not a rank number; {}", printable(w[1]), kForm);
  if (w[3].front() == '+')
    return mpilaunch::format(
        "'{}' is Open MPI's relative host syntax, which needs a resource manager's allocation; "
        "write the host's name",
        printable(w[3]));
  HostEntry probe;
  if (auto why = read_user_and_name(w[3], probe)) return why;
  auto slot = parse_rank_slot(w[6]);
  if (!slot) return slot.error().detail;
  out.rank = *rank;
  out.host = std::string(w[3]);
  out.slot = std::move(slot).value();
  return std::nullopt;
}

}  // namespace

Result<std::vector<RankfileLine>> parse_rankfile(std::string_view text, std::string_view path) {
  std::vector<RankfileLine> lines;
  std::map<int, int> line_of_rank;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("--rankfile {}:{}: {}", path, line_no, what)};
  };
  for (const ContentLine& line : content_lines(text)) {
    line_no = line.number;
    RankfileLine entry;
    if (auto why = read_line(line.text, entry)) return fail(*why);
    entry.line = line_no;
    if (const auto [it, fresh] = line_of_rank.try_emplace(entry.rank, line_no); !fresh)
      return fail(mpilaunch::format("rank {} is also on line {}; give each rank one line",
                                    entry.rank, it->second));
    lines.push_back(std::move(entry));
  }
  if (lines.empty())
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format(
                     "--rankfile {}: no ranks in the file; write one 'rank N=HOST slot=CPUS' "
                     "per line",
                     path)};
  return lines;
}

Result<std::vector<HostEntry>> rankfile_hosts(const std::vector<RankfileLine>& lines,
                                              const std::vector<HostEntry>& hosts,
                                              std::string_view path) {
  if (hosts.empty()) {
    HostListBuilder built;
    for (const RankfileLine& l : lines) {
      HostEntry entry{.slots = 1, .slots_given = true};
      if (auto why = read_user_and_name(l.host, entry))
        return Error{.kind = ErrorKind::BadOption, .detail = *why};
      if (!built.add(std::move(entry)))
        return Error{.kind = ErrorKind::BadOption,
                     .detail = mpilaunch::format("--rankfile {}: too many ranks", path)};
    }
    return std::move(built).take();
  }
  for (const RankfileLine& l : lines) {
    HostEntry want;
    if (auto why = read_user_and_name(l.host, want))
      return Error{.kind = ErrorKind::BadOption, .detail = *why};
    const bool found = std::any_of(hosts.begin(), hosts.end(), [&](const HostEntry& h) {
      return h.name == want.name && (want.user.empty() || want.user == h.user);
    });
    if (!found)
      return Error{.kind = ErrorKind::BadOption,
                   .detail = mpilaunch::format(
                       "--rankfile {}:{}: rank {} is on {}, which is not among the job's hosts "
                       "(-H, --hostfile or the allocation); add it there, or name one of them",
                       path, l.line, l.rank, printable(l.host))};
  }
  return hosts;
}

}  // namespace mpilaunch::launcher
