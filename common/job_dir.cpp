#include "common/job_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <utility>

#include "common/text_format.hpp"

namespace mpilaunch {

std::string job_dir_base() {
  if (const char* dir = std::getenv("MPILAUNCH_TMPDIR"); dir != nullptr && *dir != '\0') return dir;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  if (const char* dir = std::getenv("TMPDIR"); dir != nullptr && *dir != '\0') return dir;
  return "/tmp";
}

namespace {

// A lock file this young may belong to a job between creating it and locking it.
constexpr std::time_t kLockSettleSeconds = 10;

std::string lock_path(const std::string& dir) {
  return dir + "/" + kJobDirLock;
}

}  // namespace

JobDirHold::~JobDirHold() {
  if (fd_ >= 0) ::close(fd_);
}

JobDirHold::JobDirHold(JobDirHold&& other) noexcept
    : dir_(std::move(other.dir_)), fd_(std::exchange(other.fd_, -1)) {}

JobDirHold& JobDirHold::operator=(JobDirHold&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    dir_ = std::move(other.dir_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Result<JobDirHold> JobDirHold::take(const std::string& dir) {
  const auto failed = [&](const std::string& what) {
    return Error{.kind = ErrorKind::OutOfResources,
                 .detail = mpilaunch::format("{}: {}", what, std::strerror(errno))};
  };
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return failed("mkdir " + dir);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return failed("stat " + dir);
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    errno = EPERM;
    return failed(dir + " (not a directory of this user)");
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) return failed("chmod " + dir);
  const std::string lock = lock_path(dir);
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return failed("open " + lock);
  int rc;
  while ((rc = ::flock(fd, LOCK_SH)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const Error e = failed("flock " + lock);
    ::close(fd);
    return e;
  }
  JobDirHold hold;
  hold.dir_ = dir;
  hold.fd_ = fd;
  return hold;
}

void JobDirHold::release_and_remove_if_last() {
  if (fd_ < 0) return;
  // Exclusive only when no other launcher or agent of the job holds it.
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
    ::unlink(lock_path(dir_).c_str());
    // The launcher's request socket (launcher/job/stacks_request.hpp), left by a launcher that
    // was killed: nobody answers on it any more.
    ::unlink((dir_ + "/control.sock").c_str());
    ::rmdir(dir_.c_str());  // fails, harmlessly, while anything else is left in it
  }
  ::close(fd_);
  fd_ = -1;
}

int remove_stale_job_dirs(const std::string& base) {
  const std::string prefix = mpilaunch::format("mpilaunch-{}-", ::getuid());  // as jobs name them
  int removed = 0;
  std::error_code ec;
  std::filesystem::directory_iterator it(base, ec);
  if (ec) return 0;
  const std::time_t now = std::time(nullptr);
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || name.size() == prefix.size()) continue;
    const std::string dir = entry.path().string();
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    const std::string lock = lock_path(dir);
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;  // no lock file: not ours to judge (or still being created)
    struct stat lst {};
    const bool settled = ::fstat(fd, &lst) == 0 && now - lst.st_mtime >= kLockSettleSeconds;
    if (settled && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code rm;
      std::filesystem::remove_all(dir, rm);
      if (!rm) ++removed;
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace mpilaunch
