#include "launcher/output/output_forwarder.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "launcher/output/event_log.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::size_t kMaxHeldLine = 64 * 1024;  // a longer unterminated line is written as is
constexpr int kOutputPipeBytes = 1 << 20;        // the default most users may set (pipe-max-size)

}  // namespace

void widen_output_pipes() {
  for (int fd : {1, 2}) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) continue;
    if (::fcntl(fd, F_GETPIPE_SZ) >= kOutputPipeBytes) continue;
    (void)::fcntl(fd, F_SETPIPE_SZ, kOutputPipeBytes);
  }
}

bool write_all(int fd, std::string_view data) {
  return write_all(fd, data, {});
}

bool write_all(int fd, std::string_view first, std::string_view second) {
  while (!first.empty() || !second.empty()) {
    iovec parts[2] = {{const_cast<char*>(first.data()), first.size()},
                      {const_cast<char*>(second.data()), second.size()}};
    const bool both = !first.empty();
    const ssize_t n = ::writev(fd, both ? parts : parts + 1, both ? 2 : 1);
    if (n > 0) {
      auto done = static_cast<std::size_t>(n);
      const std::size_t from_first = std::min(done, first.size());
      first.remove_prefix(from_first);
      second.remove_prefix(done - from_first);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return false;
    }
  }
  return true;
}

OutputForwarder::~OutputForwarder() {
  flush_all();
  for (const auto& [key, fd] : files_) ::close(fd);
}

Status OutputForwarder::open() {
  if (config_.directory.empty()) {
    widen_output_pipes();
    return {};
  }
  std::error_code ec;
  std::filesystem::create_directories(config_.directory, ec);
  if (ec)
    return Error{
        .kind = ErrorKind::BadOption,
        .detail = fmt::format("--output-filename {}: {}", config_.directory, ec.message())};
  return {};
}

int OutputForwarder::fd_for(const Key& key) {
  if (config_.directory.empty()) return key.second == protocol::Stream::Stdout ? 1 : 2;
  if (const auto it = files_.find(key); it != files_.end()) return it->second;
  const std::string dir = fmt::format("{}/rank-{}", config_.directory, key.first);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + (key.second == protocol::Stream::Stdout ? "/stdout" : "/stderr");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  files_[key] = fd;
  return fd;
}

void OutputForwarder::emit(const Key& key, std::string_view text, bool complete_lines_only) {
  const int fd = fd_for(key);
  if (fd < 0) return;
  if (!config_.tag && !config_.timestamp) {
    bytes_ += text.size();
    write_all(fd, text);
    return;
  }
  std::string out;
  out.reserve(text.size() + 64);
  const std::string tag =
      config_.tag ? fmt::format("[{},{}]<{}>: ", config_.job_tag, key.first,
                                key.second == protocol::Stream::Stdout ? "stdout" : "stderr")
                  : std::string();
  const std::string stamp = config_.timestamp ? fmt::format("[{}] ", rfc3339_now()) : std::string();
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (complete_lines_only) break;
      end = text.size() - 1;
    }
    out += stamp;
    out += tag;
    out.append(text.substr(start, end - start + 1));
    if (text[end] != '\n') out += '\n';
    start = end + 1;
  }
  bytes_ += out.size();
  write_all(fd, out);
}

void OutputForwarder::write(std::uint32_t rank, protocol::Stream stream,
                            std::span<const std::byte> data) {
  const Key key{rank, stream};
  const std::string_view chunk(reinterpret_cast<const char*>(data.data()), data.size());
  if (!config_.directory.empty() && !config_.tag && !config_.timestamp) {
    emit(key, chunk, false);  // files need no line assembly
    return;
  }
  std::string& held = partial_[key];
  const std::size_t last_newline = chunk.rfind('\n');
  if (last_newline == std::string_view::npos) {
    held.append(chunk);
    if (held.size() > kMaxHeldLine) {
      emit(key, held, false);
      held.clear();
    }
    return;
  }
  if (!config_.tag && !config_.timestamp) {
    // The held partial line, completed, and the chunk's whole lines go out in one writev: the
    // chunk is not copied behind the held line first.
    const std::size_t first_newline = chunk.find('\n');
    held.append(chunk.substr(0, first_newline + 1));
    const std::string_view lines = chunk.substr(first_newline + 1, last_newline - first_newline);
    const int fd = fd_for(key);
    if (fd >= 0) {
      bytes_ += held.size() + lines.size();
      write_all(fd, held, lines);
    }
    held.assign(chunk.substr(last_newline + 1));
    return;
  }
  if (held.empty()) {
    emit(key, chunk.substr(0, last_newline + 1), true);
  } else {
    held.append(chunk.substr(0, last_newline + 1));
    emit(key, held, true);
    held.clear();
  }
  held.append(chunk.substr(last_newline + 1));
}

void OutputForwarder::set_attempt(int attempt) {
  if (base_directory_.empty()) return;
  flush_all();
  for (const auto& [key, fd] : files_) ::close(fd);
  files_.clear();
  config_.directory = fmt::format("{}/attempt-{}", base_directory_, attempt);
}

void OutputForwarder::rank_done(std::uint32_t rank) {
  for (auto stream : {protocol::Stream::Stdout, protocol::Stream::Stderr}) {
    const auto it = partial_.find({rank, stream});
    if (it == partial_.end()) continue;
    if (!it->second.empty()) emit(it->first, it->second, false);
    partial_.erase(it);
  }
}

void OutputForwarder::flush_all() {
  for (auto& [key, held] : partial_)
    if (!held.empty()) emit(key, held, false);
  partial_.clear();
}

}  // namespace mpilaunch::launcher
