#include "launcher/job/stacks_command.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "common/text_format.hpp"

#include "common/exit_codes.hpp"
#include "common/job_dir.hpp"
#include "launcher/job/control_socket.hpp"
#include "launcher/job/stacks_request.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::string_view kUsageText =
    "usage: mpilaunch stacks [--json] [JOB]\n"
    "  Asks a running job's launcher (on this machine) for the stack of every rank, collected\n"
    "  by the agents on every node, and prints them merged: ranks grouped by where they are,\n"
    "  the odd ones first. The job's events file gets a stacks event too.\n"
    "  JOB     the job's id, its --status file or its --events file; without JOB, the only\n"
    "          running job of yours on this machine (MPILAUNCH_TMPDIR must be the job's)\n"
    "  --json  print the reply document: {\"job\", \"tree\", \"stacks\": {\"groups\", \"ranks\"}}\n"
    "  exit status: 0 printed, 1 the job has no running ranks, 64 bad usage, 66 no such job\n"
    "  here, 69 its launcher did not answer\n";

// A message for the user on stderr, and the exit status that goes with it.
int say(int code, const std::string& text) {
  std::fprintf(stderr, "mpilaunch stacks: %s\n", text.c_str());
  return code;
}

// A connection to `path`, or -errno.
int connect_to(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return -ENAMETOOLONG;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

std::string socket_of(const std::string& base, const std::string& id) {
  return mpilaunch::format("{}/{}", job_dir_of(base, ::getuid(), id), kControlSocket);
}

struct Found {
  std::string id;
  int fd = -1;
};

// The only running job of this user under `base`; a message when there is none or several.
std::optional<Found> only_running_job(const std::string& base, std::string& why) {
  std::vector<Found> live;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    const auto id = job_id_of_dir(entry.path().filename().string(), ::getuid());
    if (!id) continue;
    const int fd = connect_to(socket_of(base, *id));
    if (fd >= 0) live.push_back({*id, fd});
  }
  if (live.size() == 1) return live.front();
  std::string ids;
  for (const Found& f : live) {
    ids += (ids.empty() ? "" : ", ") + f.id;
    ::close(f.fd);
  }
  why = live.empty()
            ? mpilaunch::format(
                  "no running job of yours on this machine (none in {}); a job "
                  "started with another MPILAUNCH_TMPDIR is found with the same one",
                  base)
            : mpilaunch::format("{} running jobs of yours here ({}): name one", live.size(), ids);
  return std::nullopt;
}

// The job JOB names: an id, or a --status or --events file naming one.
std::optional<std::string> job_named(const std::string& job, std::string& why) {
  std::error_code ec;
  if (looks_like_job_id(job) && !std::filesystem::exists(job, ec)) return job;
  std::ifstream in(job, std::ios::binary);
  if (!in) {
    why = mpilaunch::format("{}: neither a job id nor a file that can be read", job);
    return std::nullopt;
  }
  std::string text(1 << 20, '\0');  // a status document or an events file's first lines
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (auto id = job_id_in(text)) return id;
  why = mpilaunch::format("{}: no job id in it (a --status file or an --events file has one)", job);
  return std::nullopt;
}

// Sends the request and reads the reply until the launcher closes, within `deadline`.
std::optional<std::string> ask(int fd, std::chrono::milliseconds deadline, std::string& why) {
  const std::string request = std::string(kStacksRequest) + "\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    why = mpilaunch::format("the request could not be sent: {}", std::strerror(errno));
    return std::nullopt;
  }
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string reply;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          until - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      why = mpilaunch::format("its launcher did not answer within {} s",
                              std::chrono::duration_cast<std::chrono::seconds>(deadline).count());
      return std::nullopt;
    }
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    char buf[64 * 1024];
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0) {
      reply.append(buf, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      why = mpilaunch::format("reading the reply: {}", std::strerror(errno));
      return std::nullopt;
    }
    return reply;  // end of the reply
  }
  why = mpilaunch::format("waiting for the reply: {}", std::strerror(errno));
  return std::nullopt;
}

}  // namespace

int run_stacks(const std::vector<std::string>& args) {
  bool json = false;
  std::optional<std::string> job;
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(std::string(kUsageText).c_str(), stdout);
      return exit_codes::kSuccess;
    }
    if (a == "--json") {
      json = true;
    } else if (a.starts_with("-") || job) {
      std::fputs(std::string(kUsageText).c_str(), stderr);
      return say(exit_codes::kUsage, mpilaunch::format("unexpected argument '{}'", a));
    } else {
      job = a;
    }
  }
  const std::string base = job_dir_base();
  std::string why;
  Found found;
  if (!job) {
    auto only = only_running_job(base, why);
    if (!only) return say(exit_codes::kNoInput, why);
    found = *only;
  } else {
    auto id = job_named(*job, why);
    if (!id) return say(exit_codes::kNoInput, why);
    found.id = *id;
    found.fd = connect_to(socket_of(base, found.id));
    if (found.fd < 0) {
      const int err = -found.fd;
      if (err == ENOENT)
        return say(exit_codes::kNoInput,
                   mpilaunch::format("job {} is not running on this machine (no {}; a job "
                                     "started with another MPILAUNCH_TMPDIR needs the same one)",
                                     found.id, socket_of(base, found.id)));
      return say(err == ECONNREFUSED ? exit_codes::kNoInput : exit_codes::kUnavailable,
                 mpilaunch::format("job {}: its launcher cannot be reached: {}", found.id,
                                   std::strerror(err)));
    }
  }
  // The launcher's collection is bounded (10 s, and 5 s more for a silent agent); its reply
  // is written within ControlSocket::kReplyDeadline.
  const std::optional<std::string> text = ask(found.fd, ControlSocket::kReplyDeadline, why);
  ::close(found.fd);
  if (!text) return say(exit_codes::kUnavailable, mpilaunch::format("job {}: {}", found.id, why));
  const std::optional<StacksReply> reply = parse_reply(*text);
  if (!reply)
    return say(exit_codes::kUnavailable,
               text->empty()
                   ? mpilaunch::format("job {} ended before its launcher answered", found.id)
                   : mpilaunch::format("job {}: its launcher's reply could not be read", found.id));
  if (!reply->error.empty())
    return say(exit_codes::kGenericFailure,
               mpilaunch::format("job {}: {}", found.id, reply->error));
  if (json) {
    std::fputs(text->c_str(), stdout);
  } else {
    std::printf("job %s: %s", found.id.c_str(), reply->tree.c_str());
  }
  return std::fflush(stdout) == 0 ? exit_codes::kSuccess : exit_codes::kGenericFailure;
}

}  // namespace mpilaunch::launcher
