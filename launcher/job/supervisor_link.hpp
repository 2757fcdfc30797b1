#pragma once
/// [io] Supervisor::Link: one agent's stream and what the supervisor knows of it. Private to
/// supervisor*.cpp.

#include "launcher/job/supervisor.hpp"

namespace mpilaunch::launcher {

class Supervisor::Link final : public FrameSink {
 public:
  Link(Supervisor& owner, int node, HostEntry host, AgentProcess process)
      : owner_(owner),
        node(node),
        host(std::move(host)),
        pid(process.pid),
        stream(owner.io_, process.fd, process.fd, this->host.name) {
    if (process.streams_fd >= 0)
      channel = std::make_unique<asio::posix::stream_descriptor>(owner.io_, process.streams_fd);
  }
  void on_hello(const handshake::Hello&) override { hello_seen = true; }
  void on_message(protocol::Envelope envelope) override {
    owner_.on_link_message(*this, std::move(envelope));
  }
  void on_closed(std::optional<Error> why) override {
    owner_.on_link_closed(*this, std::move(why));
  }
  asio::awaitable<void> ready_to_read() override { return owner_.output_room(); }

  Supervisor& owner_;
  int node;
  HostEntry host;
  pid_t pid;
  FrameStream stream;
  std::unique_ptr<asio::posix::stream_descriptor> channel;  // the stream channel, if any
  bool hello_seen = false;
  bool ready = false;
  bool bye = false;
  bool closed = false;
  bool unresponsive = false;                 // closed by close_unresponsive_links()
  std::vector<std::string> transport_facts;  // from the AgentHello
  NodeTopology topology;                     // from the AgentHello: what the node's ranks may use
  std::string os_hostname;                   // from the AgentHello
  int agent_pid = 0;
};

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

}  // namespace mpilaunch::launcher
