#include "common/descriptors.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace mpilaunch {

void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0) continue;
    // open() returns the lowest free descriptor: this one, since those below are open.
    const int null_fd = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) ::close(null_fd);
  }
}

void inherit_nothing_from(int first) {
  if (::close_range(static_cast<unsigned>(first), ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  rlimit limit{};
  const rlim_t last = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                          ? limit.rlim_cur
                          : 65536;
  for (int fd = first; fd < static_cast<int>(std::min<rlim_t>(last, 1 << 20)); ++fd) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) (void)::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}

}  // namespace mpilaunch
