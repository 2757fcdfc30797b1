#pragma once
/// Which TCP sockets are connected to the agent's PMIx server: the text of /proc/net/tcp and
/// /proc/net/tcp6, parsed (for agent/rank_peers.hpp), and the server's port from the URI
/// libpmix gives every rank.

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

namespace mpilaunch::agent {

/// The port of a PMIx server URI ("pmix-server.123;tcp4://127.0.0.1:45678"); nullopt when
/// there is none.
std::optional<std::uint16_t> server_uri_port(std::string_view uri);

/// The inodes of established sockets in a /proc/net/tcp or tcp6 text whose remote port is
/// `port`: the client ends of connections to a server listening on it.
std::set<unsigned long> client_socket_inodes(std::string_view proc_net_tcp, std::uint16_t port);

}  // namespace mpilaunch::agent
