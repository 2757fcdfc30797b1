#include "launcher/hosts/host_option.hpp"

#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include <algorithm>

namespace mpilaunch::launcher {

Result<std::vector<HostEntry>> parse_host_option(std::string_view value) {
  auto fail = [&](int position, const std::string& why) {
    return Error{
        .kind = ErrorKind::BadOption,
        .detail = mpilaunch::format("-H {}: item {}: {}", printable(value), position, why)};
  };
  HostListBuilder hosts;
  int position = 0;
  for (const std::string_view written : split_at(value, ',')) {
    ++position;
    const std::string_view item = trim_blanks(written);
    if (item.empty())
      return fail(position, "empty; remove the extra comma or write a host name there");
    HostEntry entry;
    if (auto why = read_host_item(item, entry)) return fail(position, *why);
    const std::string name = entry.name;
    if (!hosts.add(std::move(entry)))
      return fail(position, mpilaunch::format("{} has more than {} slots in all", printable(name),
                                              kMaxSlotsPerHost));
  }
  return std::move(hosts).take();
}

}  // namespace mpilaunch::launcher
