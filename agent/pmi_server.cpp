#include "agent/pmi_server.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/text_format.hpp"

namespace mpilaunch::agent {
namespace {

constexpr std::size_t kReadChunk = 4096;
// A rank that keeps sending without reading its replies is broken; do not buffer for it.
constexpr std::size_t kMaxQueuedReplyBytes = 1 << 20;

}  // namespace

PmiServer::PmiServer(asio::io_context& io, PmiEvents& events, pmi::JobFacts facts)
    : io_(io), events_(events), nspace_(facts.kvsname), core_(std::move(facts)) {}

Result<int> PmiServer::open(std::uint32_t rank) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return Error{.kind = ErrorKind::OutOfResources,
                 .rank = static_cast<int>(rank),
                 .detail = mpilaunch::format("PMI socketpair: {}", std::strerror(errno))};
  auto socket = std::make_shared<asio::local::stream_protocol::socket>(io_);
  boost::system::error_code ec;
  socket->assign(asio::local::stream_protocol(), fds[0], ec);
  if (ec) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Error{.kind = ErrorKind::OutOfResources,
                 .rank = static_cast<int>(rank),
                 .detail = mpilaunch::format("PMI socket: {}", ec.message())};
  }
  links_[rank] = Link{socket, {}, 0, false};
  asio::co_spawn(io_, read_loop(rank, socket), asio::detached);
  return fds[1];
}

void PmiServer::child_started(int rank_fd) {
  if (rank_fd >= 0) ::close(rank_fd);
}

asio::awaitable<void> PmiServer::read_loop(
    std::uint32_t rank, std::shared_ptr<asio::local::stream_protocol::socket> socket) {
  const auto self = shared_from_this();  // outlives the agent's switch to the next attempt
  char buffer[kReadChunk];
  for (;;) {
    boost::system::error_code ec;
    const std::size_t n = co_await socket->async_read_some(
        asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, ec));
    if (ec || closed_) break;
    const bool was_connected = core_.connected(static_cast<int>(rank));
    const auto outputs = core_.feed(static_cast<int>(rank), std::string_view(buffer, n));
    if (!was_connected && core_.connected(static_cast<int>(rank)))
      events_.on_pmi_connected(nspace_, rank);
    act_on(outputs);
  }
  // End of file: the rank exited or closed PMI after finalize. Its exit is reported by the
  // agent's reaper, which knows whether it finalized.
}

void PmiServer::act_on(const std::vector<pmi::Output>& outputs) {
  for (const pmi::Output& o : outputs) {
    const auto rank = static_cast<std::uint32_t>(o.rank);
    switch (o.kind) {
      case pmi::Output::Kind::Reply:
        send(rank, o.bytes);
        break;
      case pmi::Output::Kind::BarrierReady:
        events_.on_pmi_barrier(nspace_, pmi::encode_puts(o.puts));
        break;
      case pmi::Output::Kind::Abort:
        events_.on_pmi_abort(nspace_, rank, o.exit_code);  // which ends the rank
        break;
      case pmi::Output::Kind::Finalized:
        events_.on_pmi_finalized(nspace_, rank);
        break;
      case pmi::Output::Kind::Unsupported:
        events_.on_pmi_unsupported(nspace_, rank, o.bytes);
        break;
      case pmi::Output::Kind::NameRequest:
        if (o.request)
          events_.on_pmi_name(*o.request, [self = shared_from_this(),
                                           token = o.token](const protocol::NameReply& reply) {
            self->answer_name(token, reply);
          });
        break;
      case pmi::Output::Kind::SpawnRequest:
        if (o.request)
          if (const auto* request = std::get_if<protocol::SpawnRequest>(&*o.request))
            events_.on_pmi_spawn(*request, [self = shared_from_this(), token = o.token](
                                               int status, const std::string& nspace) {
              self->answer_spawn(token, status, nspace);
            });
        break;
      case pmi::Output::Kind::ProtocolError:
        drop(rank, mpilaunch::format("PMI protocol error from rank {}: {}", o.rank, o.bytes));
        break;
    }
  }
}

void PmiServer::send(std::uint32_t rank, std::string bytes) {
  const auto it = links_.find(rank);
  if (it == links_.end() || closed_) return;
  Link& link = it->second;
  link.queued += bytes.size();
  link.queue.push_back(std::move(bytes));
  if (link.queued > kMaxQueuedReplyBytes)
    return drop(rank,
                mpilaunch::format("rank {} sends PMI commands without reading the replies", rank));
  if (!link.writing) {
    link.writing = true;
    asio::co_spawn(io_, write_loop(rank), asio::detached);
  }
}

asio::awaitable<void> PmiServer::write_loop(std::uint32_t rank) {
  const auto self = shared_from_this();
  for (;;) {
    const auto it = links_.find(rank);
    if (it == links_.end() || closed_) co_return;
    Link& link = it->second;
    if (link.queue.empty()) {
      link.writing = false;
      co_return;
    }
    const std::string bytes = std::move(link.queue.front());
    link.queue.pop_front();
    link.queued -= bytes.size();
    const auto socket = link.socket;
    boost::system::error_code ec;
    co_await asio::async_write(*socket, asio::buffer(bytes),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;  // the rank went away; its exit says why
  }
}

void PmiServer::answer_name(std::uint32_t token, const protocol::NameReply& reply) {
  if (closed_) return;
  act_on(core_.answer_name(token, reply));
}

void PmiServer::answer_spawn(std::uint32_t token, int status, const std::string& nspace) {
  if (closed_) return;
  act_on(core_.answer_spawn(token, status, nspace));
}

void PmiServer::close(std::uint32_t rank) {
  const auto it = links_.find(rank);
  if (it == links_.end()) return;
  boost::system::error_code ignored;
  it->second.socket->close(ignored);
  links_.erase(it);
}

void PmiServer::drop(std::uint32_t rank, std::string text) {
  if (!links_.contains(rank)) return;
  close(rank);
  events_.on_pmi_error(nspace_, rank, std::move(text));
}

void PmiServer::release(std::span<const std::byte> all) {
  if (closed_) return;
  const auto puts = pmi::decode_puts(all);
  if (!puts) {
    // Only a broken peer sends this; the ranks would wait forever, so end their connections.
    std::vector<std::uint32_t> ranks;
    for (const auto& [rank, link] : links_) ranks.push_back(rank);
    for (std::uint32_t rank : ranks) drop(rank, "PMI barrier data from the launcher is malformed");
    return;
  }
  act_on(core_.release_barrier(*puts));
}

void PmiServer::close_all() {
  closed_ = true;
  for (auto& [rank, link] : links_) {
    boost::system::error_code ignored;
    link.socket->close(ignored);
  }
  links_.clear();
}

}  // namespace mpilaunch::agent
