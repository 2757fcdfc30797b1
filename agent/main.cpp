// mpilaunch-agent: started by mpilaunch (locally or over ssh); speaks the protocol on stdio.

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "agent/agent.hpp"
#include "agent/login_shell.hpp"
#include "agent/self_check.hpp"
#include "common/descriptors.hpp"
#include "common/stream_channel.hpp"
#include "common/streaming_heap.hpp"
#include "mpilaunch_version.h"

int main(int argc, char** argv) {
  mpilaunch::reserve_standard_descriptors();
  // Nothing this agent inherited reaches its ranks; the stream channel is marked the same way.
  mpilaunch::inherit_nothing_from(3);
  int stream_fd = -1;  // a local agent's stream channel (common/stream_channel.hpp)
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-V") == 0) {
      std::printf("mpilaunch-agent %s (protocol %u)\n", MPILAUNCH_VERSION,
                  static_cast<unsigned>(mpilaunch::protocol::kProtocolVersion));
      return 0;
    }
    if (std::strcmp(argv[i], "--self-check") == 0) return mpilaunch::agent::run_self_check();
    if (std::strcmp(argv[i], mpilaunch::stream_channel::kAgentOption) == 0 && i + 1 < argc) {
      char* end = nullptr;
      const long fd = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || fd < 3 || fd > 1'000'000 || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) {
        std::fprintf(stderr, "mpilaunch-agent: %s %s: not an open descriptor\n",
                     mpilaunch::stream_channel::kAgentOption, argv[i]);
        return 64;
      }
      stream_fd = static_cast<int>(fd);
      (void)::fcntl(stream_fd, F_SETFD, FD_CLOEXEC);  // ranks must not inherit it
      continue;
    }
    if (std::strcmp(argv[i], "--stdio") != 0) {
      std::fprintf(stderr,
                   "mpilaunch-agent: unknown argument '%s'\n"
                   "usage: mpilaunch-agent [--stdio [--stream-fd N] | --version | --self-check]\n"
                   "The agent is started by mpilaunch and speaks its protocol on stdin/stdout;\n"
                   "--stream-fd names the socket on which a local agent passes rank pipes.\n",
                   argv[i]);
      return 64;
    }
  }
  // Over ssh (no stream channel): how long the login shell took before this agent ran.
  int login_ms = -1;
  if (stream_fd < 0)
    if (const auto ms = mpilaunch::agent::login_shell_ms()) login_ms = static_cast<int>(*ms);
  // Keep the protocol on private descriptors; stray writes to stdout (libraries) go to stderr.
  const int in_fd = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  const int out_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (in_fd < 0 || out_fd < 0) return 70;
  ::dup2(2, 1);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0), ::close(devnull);
  std::signal(SIGPIPE, SIG_IGN);
  mpilaunch::tune_heap_for_streaming();

  mpilaunch::asio::io_context io(1);
  mpilaunch::agent::Agent agent(io, in_fd, out_fd, stream_fd, login_ms);
  return agent.run();
}
