#include "launcher/start/ssh_failure.hpp"

#include <doctest/doctest.h>

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("ssh: the remote command quotes the agent path for any shell") {
  CHECK(remote_agent_command("/opt/mpilaunch/bin/mpilaunch-agent") ==
        "'/opt/mpilaunch/bin/mpilaunch-agent' --stdio");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
}

TEST_CASE("ssh: *.invalid never reaches a resolver") {
  CHECK(is_reserved_invalid_name("nosuch.invalid"));
  CHECK(is_reserved_invalid_name("NoSuch.INVALID."));
  CHECK(is_reserved_invalid_name("invalid"));
  CHECK_FALSE(is_reserved_invalid_name("node1"));
  CHECK_FALSE(is_reserved_invalid_name("invalid.example.org"));
}

TEST_CASE("ssh: host key errors name the fingerprint and the fix") {
  const Error unknown =
      hostkey_error("node2", HostKeyState::Unknown, "ssh-ed25519 SHA256:abc", "[127.0.0.2]:2222");
  CHECK(unknown.kind == ErrorKind::AgentStartFailed);
  CHECK(unknown.phase == "hostkey");
  CHECK(unknown.host == "node2");
  CHECK(unknown.detail.find("SHA256:abc") != std::string::npos);
  CHECK(unknown.detail.find("ssh-keyscan") != std::string::npos);
  const Error changed =
      hostkey_error("node3", HostKeyState::Changed, "ssh-ed25519 SHA256:def", "[127.0.0.3]:2222");
  CHECK(changed.detail.find("CHANGED") != std::string::npos);
  CHECK(changed.detail.find("ssh-keygen -R '[127.0.0.3]:2222'") != std::string::npos);
}

TEST_CASE("ssh: how a closed channel is classified") {
  const std::string cmd = "'/x' --stdio";
  CHECK_FALSE(classify_remote_exit("n", cmd, RemoteExit{0, "", ""}));
  const auto missing =
      classify_remote_exit("n", cmd, RemoteExit{127, "bash: line 1: /x: No such file\n", ""});
  REQUIRE(missing);
  CHECK(missing->phase == "exec");
  CHECK(missing->exit_code == 127);
  CHECK(missing->detail.find("bash: line 1: /x") != std::string::npos);
  // A loader failure names the library and the package that brings it.
  const auto loader = classify_remote_exit(
      "n", cmd,
      RemoteExit{127,
                 "/x: error while loading shared libraries: libpmix.so.2: cannot open shared "
                 "object file: No such file or directory\n",
                 ""});
  REQUIRE(loader);
  CHECK(loader->phase == "exec");
  CHECK(loader->exit_code == 127);
  CHECK(loader->detail.find("cannot load the shared library libpmix.so.2") != std::string::npos);
  CHECK(loader->detail.find("libpmix2") != std::string::npos);
  const auto not_found = classify_remote_exit("n", cmd, RemoteExit{1, "sh: x: not found", ""});
  REQUIRE(not_found);
  CHECK(not_found->phase == "exec");
  const auto crashed = classify_remote_exit("n", cmd, RemoteExit{3, "boom\n", ""});
  REQUIRE(crashed);
  CHECK(crashed->phase.empty());  // the supervisor knows whether it said hello
  CHECK(crashed->detail.find("status 3") != std::string::npos);
  const auto killed = classify_remote_exit("n", cmd, RemoteExit{std::nullopt, "", ""});
  REQUIRE(killed);
  CHECK(killed->phase.empty());
  const auto dropped = classify_remote_exit("n", cmd, RemoteExit{std::nullopt, "", "Socket error"});
  REQUIRE(dropped);
  CHECK(dropped->detail.find("Socket error") != std::string::npos);
}

TEST_CASE("revoked_line: an @revoked mark of the server's key, for any host pattern") {
  const std::string text =
      "# comment\n"
      "node1 ssh-ed25519 AAAAgood\n"
      "@cert-authority *.example ssh-ed25519 AAAAca\n"
      "@revoked * ssh-ed25519 AAAAbad old key\n"
      "  @revoked\t|1|c2FsdA==|aGFzaA== ecdsa-sha2-nistp256 AAAAecdsa\r\n";
  CHECK(revoked_line(text, "ssh-ed25519", "AAAAbad") == 4);
  CHECK(revoked_line(text, "ecdsa-sha2-nistp256", "AAAAecdsa") == 5);    // hashed hosts too
  CHECK(revoked_line(text, "ssh-ed25519", "AAAAgood") == std::nullopt);  // not marked
  CHECK(revoked_line(text, "ssh-ed25519", "AAAAca") == std::nullopt);    // another marker
  CHECK(revoked_line(text, "ssh-rsa", "AAAAbad") == std::nullopt);       // another type
  CHECK(revoked_line(text, "", "") == std::nullopt);
  CHECK(revoked_line("", "ssh-ed25519", "AAAAbad") == std::nullopt);
  CHECK(revoked_line("@revoked ssh-ed25519 AAAAbad\n", "ssh-ed25519", "AAAAbad") == std::nullopt);
}

TEST_CASE("hostkey_error: a revoked key names the fingerprint, the mark's line and the fix") {
  const Error e = hostkey_error("node2", HostKeyState::Revoked, "ssh-ed25519 SHA256:abc",
                                "/root/.ssh/known_hosts:4");
  CHECK(e.kind == ErrorKind::AgentStartFailed);
  CHECK(e.phase == "hostkey");
  CHECK(e.detail.find("REVOKED") != std::string::npos);
  CHECK(e.detail.find("SHA256:abc") != std::string::npos);
  CHECK(e.detail.find("/root/.ssh/known_hosts:4") != std::string::npos);
  CHECK(e.detail.find("ssh-keygen -A") != std::string::npos);
}
