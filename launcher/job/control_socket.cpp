#include "launcher/job/control_socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "common/text_format.hpp"

#include "launcher/job/stacks_request.hpp"

namespace mpilaunch::launcher {
namespace {

using Socket = asio::local::stream_protocol::socket;

// One connection: the request line, then the reply, each under its deadline.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Socket socket, ControlSocket::Handler handler)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), handler_(std::move(handler)) {}

  void start() {
    ucred peer{};
    socklen_t len = sizeof peer;
    if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
        peer.uid != ::geteuid()) {
      // Only the job's owner may ask (the directory's mode already keeps others out).
      return reply(R"({"error":"only the job's owner may ask for its stacks"})"
                   "\n");
    }
    arm(ControlSocket::kRequestDeadline);
    auto self = shared_from_this();
    asio::async_read_until(
        socket_, asio::dynamic_buffer(line_, kMaxRequestLine), '\n',
        [self](const boost::system::error_code& ec, std::size_t n) {
          self->timer_.cancel();
          if (ec) return self->end();  // closed, too long, or the deadline
          std::string request = self->line_.substr(0, n - 1);
          if (!request.empty() && request.back() == '\r') request.pop_back();
          self->handler_(request, [self](std::string text) { self->reply(std::move(text)); });
        });
  }

 private:
  void arm(std::chrono::seconds deadline) {
    timer_.expires_after(deadline);
    std::weak_ptr<Session> weak = shared_from_this();
    timer_.async_wait([weak](const boost::system::error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->end();
    });
  }

  void reply(std::string text) {
    if (replied_ || !socket_.is_open()) return;
    replied_ = true;
    out_ = std::move(text);
    arm(ControlSocket::kReplyDeadline);
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(out_),
                      [self](const boost::system::error_code&, std::size_t) { self->end(); });
  }

  void end() {
    timer_.cancel();
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  Socket socket_;
  asio::steady_timer timer_;
  ControlSocket::Handler handler_;
  std::string line_;
  std::string out_;
  bool replied_ = false;
};

}  // namespace

ControlSocket::ControlSocket(asio::io_context& io, Handler handler)
    : io_(io), handler_(std::move(handler)), acceptor_(io) {}

ControlSocket::~ControlSocket() {
  close();
}

Status ControlSocket::open(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un{}.sun_path))
    return Error{.kind = ErrorKind::Unknown,
                 .detail = mpilaunch::format("{}: the path is too long for a socket", path)};
  ::unlink(path.c_str());
  boost::system::error_code ec;
  acceptor_.open(asio::local::stream_protocol(), ec);
  if (!ec) acceptor_.bind(asio::local::stream_protocol::endpoint(path), ec);
  if (!ec) ::chmod(path.c_str(), 0600);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    return Error{.kind = ErrorKind::Unknown,
                 .detail = mpilaunch::format("{}: {}", path, ec.message())};
  }
  path_ = path;
  accept();
  return {};
}

void ControlSocket::close() {
  if (!acceptor_.is_open()) return;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  ::unlink(path_.c_str());
}

void ControlSocket::accept() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, Socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!ec) std::make_shared<Session>(std::move(socket), handler_)->start();
    accept();
  });
}

}  // namespace mpilaunch::launcher
