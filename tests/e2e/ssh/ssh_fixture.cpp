#include "tests/e2e/ssh/ssh_fixture.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tests/e2e/support/test_build.hpp"

namespace mpilaunch::e2e {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTick = std::chrono::milliseconds(10);

std::string make_temp_dir(const char* stem) {
  std::string pattern = std::string("/tmp/") + stem + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Waits on a condition by re-checking it every tick until the deadline.
template <class Done>
bool wait_until(Done done, std::chrono::milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  for (;;) {
    if (done()) return true;
    if (Clock::now() >= until) return false;
    ::poll(nullptr, 0, static_cast<int>(kTick.count()));
  }
}

}  // namespace

std::string env_path(const char* name) {
  // Where each program lies in a build directory, for MPILAUNCH_TEST_BUILD.
  static const std::map<std::string, std::string> in_build = {
      {"MPILAUNCH_BIN", "launcher/mpilaunch"},
      {"AGENT_BIN", "agent/mpilaunch-agent"},
      {"HELLO_BIN", "tests/apps/hello"},
      {"FLAKY_BIN", "tests/apps/flaky"},
      {"NODES_MPICH_BIN", "tests/apps/nodes_mpich"}};
  if (const auto it = in_build.find(name); it != in_build.end())
    if (auto path = in_test_build(it->second.c_str())) return *path;
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') throw std::runtime_error(std::string(name) + " is not set");
  return v;
}

Sshd::Sshd() : dir_(make_temp_dir("mpilaunch-sshd")) {
  const std::string cmd =
      env_path("SSHD_FIXTURE") + " " + dir_ + "/fx " + std::to_string(::getpid());
  dir_ += "/fx";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("cannot run the sshd fixture");
  int port = 0;
  const int got = std::fscanf(p, "%d %d", &port, &pid_);
  if (::pclose(p) != 0 || got != 2) throw std::runtime_error("the sshd fixture failed");
}

Sshd::~Sshd() {
  if (pid_ > 0 && ::kill(pid_, SIGTERM) == 0)
    wait_until([&] { return ::kill(pid_, 0) != 0; }, std::chrono::seconds(5));
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(dir_).parent_path(), ec);
}

Sshd& sshd() {
  static Sshd instance;
  return instance;
}

Launcher::Launcher(std::vector<std::string> args, bool with_events, const std::string& stdin_path)
    : dir_(make_temp_dir("mpilaunch-ssh-run")), events_(dir_ + "/events.jsonl") {
  if (with_events) args.insert(args.begin(), {"--events", events_});
  args.insert(args.begin(), env_path("MPILAUNCH_BIN"));
  pid_ = ::fork();
  if (pid_ == 0) {
    ::unsetenv("SSH_AUTH_SOCK");  // only the fixture's keys, never the caller's agent
    // stdin first: when the test's own descriptor 0 is closed (CI) it becomes 0, where it goes
    // anyway, instead of an output file that dup2 would then replace.
    const int in = ::open(stdin_path.c_str(), O_RDONLY);
    const int out = ::open((dir_ + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open((dir_ + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
}

Launcher::~Launcher() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Run Launcher::wait(std::chrono::milliseconds deadline) {
  Run run;
  int status = 0;
  if (!wait_until([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, deadline)) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = slurp(dir_ + "/out");
  run.err = slurp(dir_ + "/err");
  run.events = read_events(events_);
  for (const auto& e : run.events)
    if (e.value("event", "") == "job-failed") run.failure = e.at("error");
  return run;
}

Run run_launcher(std::vector<std::string> args) {
  return Launcher(std::move(args)).wait();
}

std::vector<pid_t> wait_until_no_cmdline(const std::string& needle,
                                         std::chrono::milliseconds deadline) {
  std::vector<pid_t> left;
  wait_until(
      [&] {
        left.clear();
        for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
          const std::string name = entry.path().filename();
          if (name.find_first_not_of("0123456789") != std::string::npos) continue;
          if (std::stoi(name) == ::getpid()) continue;
          std::string cmd = slurp(entry.path().string() + "/cmdline");
          std::replace(cmd.begin(), cmd.end(), '\0', ' ');
          if (cmd.find(needle) != std::string::npos) left.push_back(std::stoi(name));
        }
        return left.empty();
      },
      deadline);
  return left;
}

Run run_doctor(std::vector<std::string> args) {
  args.insert(args.begin(), "doctor");
  return Launcher(std::move(args), false).wait();
}

std::string read_text(const std::string& path) {
  return slurp(path);
}

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds deadline) {
  return wait_until(done, deadline);
}

bool wait_for_text(const std::string& path, const std::string& text,
                   std::chrono::milliseconds deadline) {
  return wait_until([&] { return slurp(path).find(text) != std::string::npos; }, deadline);
}

LateSshd::LateSshd() {
  const std::string config = sshd().dir() + "/sshd_config_late";
  const std::string log_path = sshd().dir() + "/sshd_late.log";
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    // Its own process group keeps it out of the test's signals; this keeps it from outliving
    // the test when the test is killed (a deadline, ^C) before stop() could run.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int null = ::open("/dev/null", O_RDWR);
    const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(log, 2);
    ::execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", config.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
}

namespace {

// Every process's children, from the parent field of /proc/PID/stat.
std::map<pid_t, std::vector<pid_t>> children_by_parent() {
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path().string() + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 > line.size()) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    children[ppid].push_back(std::stoi(name));
  }
  return children;
}

}  // namespace

void LateSshd::stop() {
  if (pid_ <= 0) return;
  // The listener and every sshd process under it (per-connection monitors and sessions:
  // sshd-session and sshd-auth on OpenSSH 10), but not the agents and ranks they started: those
  // must notice the dropped connection themselves. Each one found is stopped (SIGSTOP) at once
  // and the walk repeats until it finds none new, so that none forks a process unseen between
  // the walk and the SIGKILL (a connection accepted then left its sshd-session behind,
  // reparented, outliving the test).
  std::set<pid_t> victims = {pid_};
  ::kill(pid_, SIGSTOP);
  for (bool found = true; found;) {
    found = false;
    const std::map<pid_t, std::vector<pid_t>> children = children_by_parent();
    std::vector<pid_t> todo = {pid_};
    while (!todo.empty()) {
      const pid_t p = todo.back();
      todo.pop_back();
      if (!victims.contains(p) &&
          slurp("/proc/" + std::to_string(p) + "/comm").starts_with("sshd")) {
        ::kill(p, SIGSTOP);
        victims.insert(p);
        found = true;
      }
      if (const auto c = children.find(p); c != children.end())
        todo.insert(todo.end(), c->second.begin(), c->second.end());
    }
  }
  for (pid_t v : victims) ::kill(v, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::vector<nlohmann::json> read_events(const std::string& path) {
  std::vector<nlohmann::json> events;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto e = nlohmann::json::parse(line, nullptr, false);
    if (!e.is_discarded()) events.push_back(std::move(e));
  }
  return events;
}

bool wait_for_event(const std::string& path, const std::string& name, int count,
                    std::chrono::milliseconds deadline) {
  return wait_until(
      [&] {
        int seen = 0;
        for (const auto& e : read_events(path)) seen += e.value("event", "") == name ? 1 : 0;
        return seen >= count;
      },
      deadline);
}

std::vector<pid_t> processes_with_env(const std::string& needle) {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (pid == self) continue;
    std::string env = slurp(entry.path().string() + "/environ");
    std::replace(env.begin(), env.end(), '\0', '\n');
    if (("\n" + env).find("\n" + needle + "\n") != std::string::npos) found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> wait_until_gone(const std::string& needle, std::chrono::milliseconds deadline) {
  std::vector<pid_t> left;
  wait_until(
      [&] {
        left = processes_with_env(needle);
        return left.empty();
      },
      deadline);
  return left;
}

}  // namespace mpilaunch::e2e
