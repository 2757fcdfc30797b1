#include "agent/peer_sockets.hpp"

#include <charconv>
#include <vector>

namespace mpilaunch::agent {
namespace {

template <class T>
std::optional<T> number(std::string_view text, int base) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint16_t> server_uri_port(std::string_view uri) {
  const auto scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::nullopt;
  const auto colon = uri.rfind(':');
  if (colon == std::string_view::npos || colon < scheme + 3) return std::nullopt;
  const auto port = number<std::uint16_t>(uri.substr(colon + 1), 10);
  if (!port || *port == 0) return std::nullopt;
  return port;
}

std::set<unsigned long> client_socket_inodes(std::string_view text, std::uint16_t port) {
  constexpr std::string_view kEstablished = "01";
  std::set<unsigned long> inodes;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout
    // inode ...": addresses are HEX_IP:HEX_PORT.
    std::vector<std::string_view> fields;
    while (fields.size() < 10) {
      const auto start = line.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      line.remove_prefix(start);
      const auto end = line.find(' ');
      fields.push_back(line.substr(0, end));
      line.remove_prefix(end == std::string_view::npos ? line.size() : end);
    }
    if (fields.size() < 10 || fields[3] != kEstablished) continue;
    const auto colon = fields[2].rfind(':');
    if (colon == std::string_view::npos) continue;
    const auto remote = number<std::uint16_t>(fields[2].substr(colon + 1), 16);
    const auto inode = number<unsigned long>(fields[9], 10);
    if (remote && *remote == port && inode && *inode != 0) inodes.insert(*inode);
  }
  return inodes;
}

}  // namespace mpilaunch::agent
