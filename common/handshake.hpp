#pragma once
/// The agent's one-line hello, "MPILAUNCH-AGENT <protocol> <hostname>\n", written before its
/// first frame. The launcher skips shell noise (motd, banners) before it and rejects anything
/// else: a line that starts with the magic but is malformed, or noise past kMaxNoiseBytes.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch::handshake {

inline constexpr std::string_view kMagic = "MPILAUNCH-AGENT";
inline constexpr std::size_t kMaxNoiseBytes = 64 * 1024;

std::string hello_line(std::string_view hostname);

struct Hello {
  int protocol = 0;
  std::string hostname;
  std::size_t consumed = 0;        // bytes of input up to and including the hello line
  std::vector<std::string> noise;  // lines seen before it, for diagnostics
};

/// Looks for the hello line in everything received so far. nullopt: not yet, feed more.
/// Errors: MalformedFrame for a broken hello or too much noise, ProtocolMismatch for another
/// protocol version (detail names both versions).
Result<std::optional<Hello>> scan_for_hello(std::span<const std::byte> received);

}  // namespace mpilaunch::handshake
