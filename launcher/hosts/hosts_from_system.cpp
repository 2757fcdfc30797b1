#include "launcher/hosts/hosts_from_system.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "launcher/hosts/host_sources.hpp"

namespace mpilaunch::launcher {

Result<HostList> gather_hosts(const Options& o) {
  const EnvLookup env = [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    return value == nullptr ? std::nullopt : std::optional<std::string>(value);
  };
  const FileReader read = [](const std::string& path) -> Result<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return Error{.kind = ErrorKind::HostfileError,
                   .detail = fmt::format("{}: cannot be read: {}", path, std::strerror(errno))};
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  return select_hosts(HostRequest{.host_values = o.hosts, .hostfile = o.hostfile}, env, read);
}

}  // namespace mpilaunch::launcher
