#include "common/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/text_format.hpp"

namespace mpilaunch {
namespace {

std::string size_words(std::size_t bytes) {
  return bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0
             ? mpilaunch::format("{} MiB", bytes >> 20)
             : mpilaunch::format("{} bytes", bytes);
}

}  // namespace

BoundedFile read_bounded_file(const std::string& path, std::size_t max_bytes) {
  BoundedFile out;
  auto fail = [&](BoundedFile::Outcome outcome, std::string problem) {
    out.outcome = outcome;
    out.text.clear();
    out.problem = std::move(problem);
    return out;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return fail(err == ENOENT || err == ENOTDIR ? BoundedFile::Outcome::Missing
                                                : BoundedFile::Outcome::Unreadable,
                mpilaunch::format("{}: cannot be read: {}", path, std::strerror(err)));
  }
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } close_fd{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
    return fail(BoundedFile::Outcome::Directory, mpilaunch::format("{}: is a directory", path));
  char chunk[65536];
  while (out.text.size() <= max_bytes) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return fail(BoundedFile::Outcome::Unreadable,
                  mpilaunch::format("{}: cannot be read: {}", path, std::strerror(errno)));
    if (n == 0) return out;
    out.text.append(chunk, static_cast<std::size_t>(n));
  }
  return fail(BoundedFile::Outcome::TooLarge,
              mpilaunch::format("{}: larger than {}", path, size_words(max_bytes)));
}

}  // namespace mpilaunch
