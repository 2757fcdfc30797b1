#include "agent/job_cgroup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "agent/cgroup_path.hpp"
#include "agent/proc_stat.hpp"
#include "common/file_text.hpp"

namespace mpilaunch::agent {
namespace {

// Bounds of the sweeps: each round kills what it finds; a stray that forks while being killed
// is found again next round. A process killed with SIGKILL is gone within milliseconds.
constexpr int kSweepRounds = 50;
constexpr auto kSweepPause = std::chrono::milliseconds(10);

// Children of this process, from /proc (a subreaper's adopted orphans included).
std::vector<pid_t> children_of_self() {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    const auto stat = parse_proc_stat(file_text("/proc/" + std::string(e->d_name) + "/stat"));
    if (stat && stat->ppid == self) found.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return found;
}

std::vector<pid_t> pids_in(const std::string& procs_file) {
  std::vector<pid_t> pids;
  const std::string text = file_text(procs_file);
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string line(rest.substr(0, nl));
    if (const long pid = std::strtol(line.c_str(), nullptr, 10); pid > 0)
      pids.push_back(static_cast<pid_t>(pid));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return pids;
}

bool write_text(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

}  // namespace

JobCgroup::~JobCgroup() {
  if (procs_fd_ >= 0) ::close(procs_fd_);
}

void JobCgroup::start(const std::string& name) {
  (void)::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (const char* v = std::getenv("MPILAUNCH_CGROUP"); v != nullptr && std::string_view(v) == "off")
    return;
  const auto own = cgroup2_dir(file_text("/proc/self/mountinfo"), file_text("/proc/self/cgroup"));
  if (!own) return;
  remove_stale(*own);
  const std::string dir = *own + "/" + name;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return;
  const int fd = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    ::rmdir(dir.c_str());
    return;
  }
  dir_ = dir;
  procs_fd_ = fd;
}

void JobCgroup::remove_stale(const std::string& parent) {
  // "mpilaunch-JOB-nodeI-PID": an agent killed before its end (SIGKILL) left it; once that
  // agent's pid is gone, whatever is still in it belongs to no live job.
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name(e->d_name);
    const auto dash = name.rfind('-');
    if (!name.starts_with("mpilaunch-") || name.find("-node") == std::string_view::npos ||
        dash == std::string_view::npos)
      continue;
    const std::string pid_text(name.substr(dash + 1));
    char* end = nullptr;
    const long pid = std::strtol(pid_text.c_str(), &end, 10);
    if (pid <= 0 || *end != '\0' || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;
    stale.push_back(parent + "/" + std::string(name));
  }
  ::closedir(dir);
  for (const std::string& path : stale) {
    if (!pids_in(path + "/cgroup.procs").empty()) (void)write_text(path + "/cgroup.kill", "1");
    ::rmdir(path.c_str());  // fails, harmlessly, while a killed process is still exiting
  }
}

int JobCgroup::kill_all(const std::vector<pid_t>& keep) {
  int found = 0;
  for (int round = 0; round < kSweepRounds; ++round) {
    std::vector<pid_t> victims;
    if (!dir_.empty()) {
      const std::vector<pid_t> inside = pids_in(dir_ + "/cgroup.procs");
      if (!inside.empty() && !write_text(dir_ + "/cgroup.kill", "1"))
        for (const pid_t pid : inside) ::kill(pid, SIGKILL);  // kernels before 5.14
      victims = inside;
    }
    for (const pid_t pid : children_of_self())
      if (std::find(keep.begin(), keep.end(), pid) == keep.end()) {
        ::kill(pid, SIGKILL);
        victims.push_back(pid);
      }
    if (victims.empty()) break;
    found += static_cast<int>(victims.size());
    // Reap our own (an adopted orphan is ours now) without waiting: one not dead yet is found
    // again next round. Others are reaped by their parents, which were killed too, their
    // children coming to us for the next round.
    std::this_thread::sleep_for(kSweepPause);
    for (const pid_t pid : victims) ::waitpid(pid, nullptr, WNOHANG);
  }
  return found;
}

void JobCgroup::remove() {
  kill_all({});
  if (dir_.empty()) return;
  ::close(procs_fd_);
  procs_fd_ = -1;
  // Emptied above; the kernel may take a moment to let an emptied cgroup go.
  for (int round = 0; round < kSweepRounds && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++round)
    std::this_thread::sleep_for(kSweepPause);
  dir_.clear();
}

}  // namespace mpilaunch::agent
