#include "common/handshake.hpp"

#include "common/text_format.hpp"

#include "common/protocol.hpp"
#include "common/text.hpp"

namespace mpilaunch::handshake {

std::string hello_line(std::string_view hostname) {
  return mpilaunch::format("{} {} {}\n", kMagic, protocol::kProtocolVersion, hostname);
}

Result<std::optional<Hello>> scan_for_hello(std::span<const std::byte> received) {
  const std::string_view text(reinterpret_cast<const char*>(received.data()), received.size());
  Hello hello;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) break;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end + 1;
    const std::size_t at = line.find(kMagic);
    if (at == std::string_view::npos) {
      if (hello.noise.size() < 20) hello.noise.emplace_back(line.substr(0, 200));
      continue;
    }
    // "MPILAUNCH-AGENT <protocol> <hostname>" (text before the magic on the same line is noise
    // from a shell that printed without a newline).
    const std::string_view rest = line.substr(at + kMagic.size());
    const std::size_t space = rest.find(' ', 1);
    const auto version = rest.starts_with(' ') && space != std::string_view::npos
                             ? parse_int<int>(rest.substr(1, space - 1))
                             : std::nullopt;
    const std::string_view hostname =
        space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    if (!version || hostname.empty() || hostname.find(' ') != std::string_view::npos)
      return Error{.kind = ErrorKind::MalformedFrame,
                   .detail = mpilaunch::format("malformed agent hello '{}'", line.substr(0, 200))};
    if (*version != protocol::kProtocolVersion)
      return Error{.kind = ErrorKind::ProtocolMismatch,
                   .detail = mpilaunch::format("agent speaks protocol {}, launcher {}", *version,
                                               protocol::kProtocolVersion)};
    hello.protocol = *version;
    hello.hostname = std::string(hostname);
    hello.consumed = start;
    return std::optional<Hello>{std::move(hello)};
  }
  if (received.size() > kMaxNoiseBytes)
    return Error{
        .kind = ErrorKind::MalformedFrame,
        .detail = mpilaunch::format("no agent hello in the first {} bytes", kMaxNoiseBytes)};
  return std::optional<Hello>{};
}

}  // namespace mpilaunch::handshake
