#include "launcher/hosts_from_system.hpp"

#include <charconv>

#include <fmt/format.h>

namespace mpilaunch::launcher {
namespace {

// Interim -H parser (host[:slots], comma separated); replaced by launcher/host_option.
Result<std::vector<HostEntry>> parse_host_values(const std::vector<std::string>& values) {
  std::vector<HostEntry> out;
  for (const std::string& value : values) {
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t end = value.find(',', start);
      if (end == std::string::npos) end = value.size();
      const std::string item = value.substr(start, end - start);
      start = end + 1;
      if (item.empty())
        return Error{.kind = ErrorKind::BadOption,
                     .detail = fmt::format("-H {}: empty host name", value)};
      HostEntry h{.name = item};
      if (const auto colon = item.rfind(':'); colon != std::string::npos) {
        h.name = item.substr(0, colon);
        int slots = 0;
        const auto [p, ec] =
            std::from_chars(item.data() + colon + 1, item.data() + item.size(), slots);
        if (ec != std::errc() || p != item.data() + item.size() || slots < 1)
          return Error{.kind = ErrorKind::BadOption,
                       .detail = fmt::format("-H {}: slots must be a number of at least 1", item)};
        h.slots = slots;
        h.slots_given = true;
      }
      bool merged = false;
      for (HostEntry& existing : out)
        if (existing.name == h.name) {
          existing.slots += h.slots;
          merged = true;
        }
      if (!merged) out.push_back(h);
    }
  }
  return out;
}

}  // namespace

Result<HostList> gather_hosts(const Options& o) {
  HostList list;
  if (!o.hosts.empty()) {
    auto hosts = parse_host_values(o.hosts);
    if (!hosts) return hosts.error();
    list.hosts = std::move(hosts).value();
    list.source = "-H " + fmt::format("{}", fmt::join(o.hosts, " -H "));
    return list;
  }
  if (!o.hostfile.empty())
    return Error{.kind = ErrorKind::HostfileError,
                 .detail = "--hostfile is not supported by this build yet"};
  return list;
}

}  // namespace mpilaunch::launcher
