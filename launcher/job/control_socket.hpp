#pragma once
/// [io] The running launcher's request socket for `mpilaunch stacks`: a Unix socket in the
/// job's directory, which is mode 0700, so only its owner (and root) can reach it; each
/// connection's peer must also be of the launcher's own user (SO_PEERCRED), else it is told so
/// and closed. A connection sends one request line (launcher/job/stacks_request.hpp) within
/// kRequestDeadline and gets one reply, written without blocking the loop and bounded by
/// kReplyDeadline; nothing else is read from it.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/asio.hpp"
#include "common/result.hpp"

namespace mpilaunch::launcher {

class ControlSocket {
 public:
  static constexpr std::chrono::seconds kRequestDeadline{5};
  static constexpr std::chrono::seconds kReplyDeadline{30};
  using Respond = std::function<void(std::string reply)>;
  /// Called on the loop with the request line (without its newline); `respond` may be called
  /// later, at most once. Not called for a peer of another user.
  using Handler = std::function<void(const std::string& request, Respond respond)>;

  ControlSocket(asio::io_context& io, Handler handler);
  ~ControlSocket();
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;

  /// Listens at `path` (a name in the job's directory; an old file there is replaced).
  Status open(const std::string& path);
  /// Stops accepting and removes the socket file; connections under way end with the loop.
  void close();

 private:
  void accept();

  asio::io_context& io_;
  Handler handler_;
  asio::local::stream_protocol::acceptor acceptor_;
  std::string path_;
};

}  // namespace mpilaunch::launcher
