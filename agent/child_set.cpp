#include "agent/child_set.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include <hwloc.h>
#include "common/text_format.hpp"

namespace mpilaunch::agent {
namespace {

constexpr int kRankStdoutPipeBytes = 256 * 1024;

struct ExecFailure {
  char stage;  // 'W': chdir, 'E': execve, 'S': setup
  int err;
};

// What the new process needs between clone and exec, all prepared by the parent.
struct ChildStart {
  pid_t parent;
  int devnull, out, err, status, inherit_fd, cgroup_procs;
  int max_fd;  // close_range's fallback: the highest descriptor that may be open
  const char* wdir;
  const char* exe;
  char* const* argv;
  char* const* envp;
  const cpu_set_t* cpus;  // the rank's CPUs, or nullptr: unbound
  std::size_t cpus_size;
};

// The kernel's affinity mask of a CPU list ("0-1,4"), read with hwloc; empty when `list` is
// empty or unreadable.
struct CpuMask {
  cpu_set_t* set = nullptr;
  std::size_t size = 0;
  CpuMask() = default;
  CpuMask(const CpuMask&) = delete;
  CpuMask& operator=(const CpuMask&) = delete;
  ~CpuMask() {
    if (set != nullptr) CPU_FREE(set);
  }
};

bool read_cpu_list(const std::string& list, CpuMask& mask) {
  hwloc_bitmap_t bitmap = hwloc_bitmap_alloc();
  if (bitmap == nullptr) return false;
  const int last =
      hwloc_bitmap_list_sscanf(bitmap, list.c_str()) == 0 && !hwloc_bitmap_iszero(bitmap)
          ? hwloc_bitmap_last(bitmap)
          : -1;
  if (last >= 0 && last < (1 << 20)) {
    mask.set = CPU_ALLOC(static_cast<std::size_t>(last) + 1);
    mask.size = CPU_ALLOC_SIZE(static_cast<std::size_t>(last) + 1);
    if (mask.set != nullptr) {
      CPU_ZERO_S(mask.size, mask.set);
      for (int cpu = hwloc_bitmap_first(bitmap); cpu >= 0; cpu = hwloc_bitmap_next(bitmap, cpu))
        CPU_SET_S(static_cast<std::size_t>(cpu), mask.size, mask.set);
    }
  }
  hwloc_bitmap_free(bitmap);
  return mask.set != nullptr;
}

// The child side runs on its own stack but in the agent's memory (CLONE_VM) until execve: only
// system calls, nothing that allocates, locks or writes shared state, and no sanitizer
// bookkeeping (its shadow memory is the agent's too).
#define MPILAUNCH_CHILD_SIDE __attribute__((no_sanitize("address", "undefined")))

MPILAUNCH_CHILD_SIDE [[noreturn]] void child_failed(int status_fd, char stage) {
  const ExecFailure f{stage, errno};
  [[maybe_unused]] ssize_t n = ::write(status_fd, &f, sizeof f);
  ::_exit(127);
}

MPILAUNCH_CHILD_SIDE int start_child(void* arg) {
  const ChildStart& c = *static_cast<const ChildStart*>(arg);
  ::setpgid(0, 0);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != c.parent) ::_exit(127);
  // Yama's ptrace_scope 1 (Ubuntu's default) lets only a process's ancestors attach to it; the
  // agent's stack tool (gdb, eu-stack) is the rank's sibling, so the rank names the agent, and
  // with it the agent's children, as its ptracer (kept across execve). Without Yama: EINVAL.
  (void)::prctl(PR_SET_PTRACER, static_cast<unsigned long>(c.parent), 0UL, 0UL, 0UL);
  // Into the job's cgroup before exec, so that everything the rank starts is in it too. Best
  // effort: without it the agent's subreaper sweep still finds what the rank leaves.
  if (c.cgroup_procs >= 0) [[maybe_unused]]
    ssize_t n = ::write(c.cgroup_procs, "0", 1);
  // Default dispositions first, then unblock (the parent blocked everything around clone, so
  // none of its handlers can run here).
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (c.devnull >= 0) ::dup2(c.devnull, 0);
  if (::dup2(c.out, 1) < 0 || ::dup2(c.err, 2) < 0) child_failed(c.status, 'S');
  // Only 0-2 (and the descriptor the request names) reach the rank, whatever libraries in the
  // agent opened without O_CLOEXEC. The descriptor table is the child's own copy.
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
    for (int fd = 3; fd <= c.max_fd; ++fd) (void)::fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (c.inherit_fd >= 0 && ::fcntl(c.inherit_fd, F_SETFD, 0) != 0) child_failed(c.status, 'S');
  if (c.wdir != nullptr && ::chdir(c.wdir) != 0) child_failed(c.status, 'W');
  if (c.cpus != nullptr && ::sched_setaffinity(0, c.cpus_size, c.cpus) != 0)
    child_failed(c.status, 'B');
  ::execve(c.exe, c.argv, c.envp);
  child_failed(c.status, 'E');
  return 127;
}

// A pseudo-terminal for a rank's stdout: {master, slave}, both close-on-exec, the slave not
// anyone's controlling terminal (O_NOCTTY), with the modes mpirun 4.1.4 gives its ranks' ptys
// (`stty -g` there: iflag 0, oflag OPOST alone, cflag CS8 CREAD, lflag ISIG ICANON IEXTEN):
// what the rank writes arrives unchanged ("\n" stays "\n", no echo), and the window is 0x0.
// An errno on failure (no /dev/pts, the kernel's pty limit reached).
Result<std::pair<int, int>> open_rank_pty() {
  const auto failed = [](const char* what) {
    return Error{.kind = ErrorKind::OutOfResources,
                 .detail = mpilaunch::format("{}: {}", what, std::strerror(errno))};
  };
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return failed("posix_openpt");
  char name[64];
  if (::grantpt(master) != 0 || ::unlockpt(master) != 0 ||
      ::ptsname_r(master, name, sizeof name) != 0) {
    auto e = failed("pty setup");
    ::close(master);
    return e;
  }
  const int slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) {
    auto e = failed(name);
    ::close(master);
    return e;
  }
  termios modes{};
  if (::tcgetattr(slave, &modes) == 0) {
    modes.c_iflag = 0;
    modes.c_oflag = OPOST;
    modes.c_cflag = (modes.c_cflag & CBAUD) | CS8 | CREAD;
    modes.c_lflag = ISIG | ICANON | IEXTEN;
    (void)::tcsetattr(slave, TCSANOW, &modes);
  }
  return std::pair{master, slave};
}

int highest_descriptor() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 65535;
  return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 1 << 20)) - 1;
}

}  // namespace

ChildSet::ChildSet(asio::io_context& io, ReapHandler on_reaped)
    : sigchld_(io, SIGCHLD), on_reaped_(std::move(on_reaped)) {
  wait_for_sigchld();
}

void ChildSet::wait_for_sigchld() {
  sigchld_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    reap();
    wait_for_sigchld();
  });
}

void ChildSet::reap() {
  // WNOWAIT: the status now, the zombie for later (release_ended). Only our own children are
  // asked for, so a zombie already seen is not seen again.
  std::vector<std::pair<pid_t, ExitReason>> ended;
  for (const auto& [pid, rank] : children_) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid != pid)
      continue;
    if (info.si_code == CLD_EXITED)
      ended.emplace_back(pid, Exited{info.si_status});
    else
      ended.emplace_back(pid, Signaled{info.si_status, info.si_code == CLD_DUMPED});
  }
  for (auto& [pid, reason] : ended) {
    children_.erase(pid);
    ended_.push_back(pid);
    on_reaped_(pid, reason);
  }
}

bool ChildSet::exiting(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may hold spaces and
  // parentheses, so fields are counted from the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return false;
  char state = 0;
  unsigned long flags = 0;
  if (std::sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2) return false;
  constexpr unsigned long kPfExiting = 0x4;
  return state == 'Z' || state == 'X' || (flags & kPfExiting) != 0;
}

void ChildSet::release_ended() {
  for (const pid_t pid : ended_) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);  // a zombie: returns at once
  }
  ended_.clear();
}

Result<SpawnedChild> ChildSet::spawn(const SpawnRequest& request) {
  if (!request.wdir.empty()) {
    // Each check says its own reason: errno only where the call that failed set it.
    struct stat st {};
    std::string why;
    if (::stat(request.wdir.c_str(), &st) != 0)
      why = std::strerror(errno);
    else if (!S_ISDIR(st.st_mode))
      why = "not a directory";
    else if (::access(request.wdir.c_str(), X_OK) != 0)
      why = std::strerror(errno);
    if (!why.empty())
      return Error{.kind = ErrorKind::WdirError,
                   .detail = mpilaunch::format("{}: {}", request.wdir, why)};
  }
  // Executed by the name mpirun 4.1.4 uses (`./pbin/prog` for --path pbin: a script's $0),
  // from the working directory the child changes into first.
  auto found = find_executable(request.argv.at(0), request.env, request.wdir, request.exec_path);
  if (!found) return found.error();
  const std::string& exec_name =
      request.wdir.empty() ? found.value().path : found.value().exec_name;
  CpuMask cpus;
  if (!request.cpus.empty() && !read_cpu_list(request.cpus, cpus))
    return Error{
        .kind = ErrorKind::BadOption,
        .rank = static_cast<int>(request.rank),
        .detail = mpilaunch::format("cannot bind to CPUs '{}': not a CPU list", request.cpus)};

  // Everything the child touches is prepared before fork: it only calls async-signal-safe code.
  std::vector<char*> argv, envp;
  for (const auto& a : request.argv) argv.push_back(const_cast<char*>(a.c_str()));
  if (!request.argv0.empty()) argv.front() = const_cast<char*>(request.argv0.c_str());
  argv.push_back(nullptr);
  for (const auto& e : request.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int out[2], err[2], status_pipe[2];
  std::string pty_refusal;
  bool out_is_pty = false;
  if (request.stdout_pty) {
    if (auto pty = open_rank_pty()) {
      out[0] = pty.value().first, out[1] = pty.value().second;
      out_is_pty = true;
    } else {
      pty_refusal = pty.error().detail;
    }
  }
  if (!out_is_pty) {
    if (::pipe2(out, O_CLOEXEC) != 0)
      return Error{.kind = ErrorKind::OutOfResources, .detail = "pipe"};
    // A bigger stdout pipe lets a rank keep writing while the agent forwards the previous chunk
    // (the default 64 KiB makes the two take turns). Best effort: the per-user pipe budget may
    // refuse, and then the default size stays.
    (void)::fcntl(out[1], F_SETPIPE_SZ, kRankStdoutPipeBytes);
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    return Error{.kind = ErrorKind::OutOfResources, .detail = "pipe"};
  }
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]), ::close(err[0]), ::close(err[1]);
    return Error{.kind = ErrorKind::OutOfResources, .detail = "pipe"};
  }
  int in[2] = {-1, -1};
  if (request.stdin_pipe && ::pipe2(in, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]), ::close(err[0]), ::close(err[1]);
    ::close(status_pipe[0]), ::close(status_pipe[1]);
    return Error{.kind = ErrorKind::OutOfResources, .detail = "pipe"};
  }
  const int devnull = in[0] >= 0 ? in[0] : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const ChildStart start{::getpid(),
                         devnull,
                         out[1],
                         request.stderr_to_stdout ? out[1] : err[1],
                         status_pipe[1],
                         request.inherit_fd,
                         request.cgroup_procs_fd,
                         highest_descriptor(),
                         request.wdir.empty() ? nullptr : request.wdir.c_str(),
                         exec_name.c_str(),
                         argv.data(),
                         envp.data(),
                         cpus.set,
                         cpus.size};
  // clone(CLONE_VM | CLONE_VFORK), as posix_spawn does, rather than fork: no copy of the
  // agent's page tables for a process that only calls execve (a fork cost about 0.35 ms per rank
  // here), and the call returns once the rank has exec'd or failed to. posix_spawn itself
  // cannot set PR_SET_PDEATHSIG. All signals stay blocked in between, so that no handler of the
  // agent runs in the child.
  constexpr std::size_t kChildStack = 64 * 1024;
  const auto stack = std::make_unique_for_overwrite<std::byte[]>(kChildStack);
  sigset_t all, saved_mask;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &saved_mask);
  const pid_t pid = ::clone(start_child, stack.get() + kChildStack,
                            CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<ChildStart*>(&start));
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
  if (devnull >= 0) ::close(devnull);
  ::close(out[1]);
  ::close(err[1]);
  ::close(status_pipe[1]);
  if (pid < 0) {
    ::close(out[0]), ::close(err[0]), ::close(status_pipe[0]);
    if (in[1] >= 0) ::close(in[1]);
    return Error{.kind = ErrorKind::OutOfResources,
                 .rank = static_cast<int>(request.rank),
                 .detail = mpilaunch::format("clone: {}", std::strerror(fork_errno))};
  }
  ::setpgid(pid, pid);  // also here, so the group exists before we may signal it
  children_[pid] = request.rank;
  return SpawnedChild{pid,          out[0],         err[0],
                      in[1],        status_pipe[0], request.argv[0],
                      request.wdir, out_is_pty,     std::move(pty_refusal)};
}

Status ChildSet::confirm_exec(SpawnedChild& child) {
  // The status pipe closes on a successful exec; a failure report arrives first otherwise.
  ExecFailure failure{};
  ssize_t n;
  do {
    n = ::read(child.exec_status_fd, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  ::close(child.exec_status_fd);
  child.exec_status_fd = -1;
  if (n != static_cast<ssize_t>(sizeof failure)) return {};
  ::close(child.stdout_fd);
  ::close(child.stderr_fd);
  if (child.stdin_fd >= 0) ::close(child.stdin_fd);
  child.stdout_fd = child.stderr_fd = child.stdin_fd = -1;
  if (failure.stage == 'B')
    return Error{
        .kind = ErrorKind::BadOption,
        .phase = "bind",  // not "spawn": that would read as a refused MPI_Comm_spawn
        .detail = mpilaunch::format("binding {} to its CPUs failed: {}; choose CPUs this node "
                                    "allows, or --bind-to none",
                                    child.program, std::strerror(failure.err))};
  Error e =
      failure.stage == 'W'
          ? Error{.kind = ErrorKind::WdirError,
                  .detail = mpilaunch::format("{}: {}", child.wdir, std::strerror(failure.err))}
          : executable_error(failure.err, child.program);
  return e;
}

void ChildSet::signal_all(int signal) {
  for (const auto& [pid, rank] : children_) ::kill(-pid, signal);
  for (const pid_t pid : ended_) ::kill(-pid, signal);  // ESRCH when nothing is left: fine
}

}  // namespace mpilaunch::agent
