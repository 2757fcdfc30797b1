#include "launcher/hosts_from_system.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "launcher/hostfile.hpp"

namespace mpilaunch::launcher {

Result<HostList> gather_hosts(const Options& o) {
  HostList list;
  if (!o.hosts.empty()) {
    for (const std::string& value : o.hosts) {
      auto hosts = parse_host_option(value);
      if (!hosts) return hosts.error();
      for (HostEntry& h : hosts.value()) add_host(list.hosts, std::move(h));
    }
    list.source = "-H " + fmt::format("{}", fmt::join(o.hosts, " -H "));
    return list;
  }
  if (!o.hostfile.empty()) {
    std::ifstream in(o.hostfile);
    if (!in)
      return Error{
          .kind = ErrorKind::HostfileError,
          .detail = fmt::format("{}: cannot be read: {}", o.hostfile, std::strerror(errno))};
    std::ostringstream text;
    text << in.rdbuf();
    auto hosts = parse_hostfile(text.str(), o.hostfile);
    if (!hosts) return hosts.error();
    list.hosts = std::move(hosts).value();
    list.source = "hostfile " + o.hostfile;
    return list;
  }
  return list;
}

}  // namespace mpilaunch::launcher
