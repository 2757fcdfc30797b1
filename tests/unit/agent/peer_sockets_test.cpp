#include <doctest/doctest.h>

#include "agent/peer_sockets.hpp"

using namespace mpilaunch::agent;

TEST_CASE("server_uri_port: the port of libpmix's tcp URIs") {
  CHECK(server_uri_port("pmix-server.4242;tcp4://127.0.0.1:45678") == 45678);
  CHECK(server_uri_port("pmix-server.4242;tcp6://[::1]:1024") == 1024);
  CHECK(server_uri_port("pmix-server.4242;tcp4://127.0.0.1:0") == std::nullopt);
  CHECK(server_uri_port("pmix-server.4242;tcp4://127.0.0.1:99999") == std::nullopt);
  CHECK(server_uri_port("pmix-server.4242") == std::nullopt);
  CHECK(server_uri_port("") == std::nullopt);
}

TEST_CASE("client_socket_inodes: established sockets whose remote port is the server's") {
  // Captured shape of /proc/net/tcp: a listener on 0xB26E (45678), its server-side end of one
  // connection, the client-side end (remote port 45678, inode 5551), and an unrelated one.
  const char* tcp =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
      "timeout inode\n"
      "   0: 0100007F:B26E 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
      "0 4440 1 0000000000000000 100 0 0 10 0\n"
      "   1: 0100007F:B26E 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        "
      "0 4441 1 0000000000000000 20 4 30 10 -1\n"
      "   2: 0100007F:9C40 0100007F:B26E 01 00000000:00000000 00:00000000 00000000     0        "
      "0 5551 1 0000000000000000 20 4 30 10 -1\n"
      "   3: 0100007F:9C41 0100007F:B26E 06 00000000:00000000 03:00000000 00000000     0        "
      "0 0 3 0000000000000000\n"
      "   4: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        "
      "0 7771 1 0000000000000000 20 4 30 10 -1\n";
  CHECK(client_socket_inodes(tcp, 45678) == std::set<unsigned long>{5551});
  CHECK(client_socket_inodes(tcp, 8080).empty());
  CHECK(client_socket_inodes("", 45678).empty());
}
