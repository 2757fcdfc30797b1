// The reader of the launcher's stdout (issue 23, items 4 and 5). A reader that stalls (`| less`
// left alone, a stuck log collector) never blocks the launcher's loop: SIGINT and --timeout still
// end the job at once, and what the reader never took is counted (output-lost). A reader that
// goes away (`| head -c 10`) ends the job as SIGPIPE ends a Unix tool: output-error, 141. Either
// way every rank and agent is gone. The same holds in wrap mode (--engine=ompi: the real mpirun
// under mpilaunch). The launcher's stdout is a pipe the test holds the read end of.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/support/background.hpp"
#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {

namespace {

// `command` in its own process group, stdin /dev/null, stdout the write end of a pipe whose
// read end the test holds, stderr a file. Destruction SIGKILLs the group if it still runs.
class PipedLauncher {
 public:
  PipedLauncher(const Command& command, const std::string& err_path) {
    std::vector<char*> argv, envp;
    for (const auto& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : command.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // first: fd 0 may be closed
    int ends[2] = {-1, -1};
    REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      install_standard_descriptors(in, ends[1], err);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(in);
    ::close(ends[1]);
    ::close(err);
    read_end_ = ends[0];
  }
  ~PipedLauncher() {
    close_reader();
    if (pid_ > 0 && !reaped_) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  PipedLauncher(const PipedLauncher&) = delete;
  PipedLauncher& operator=(const PipedLauncher&) = delete;

  pid_t pid() const { return pid_; }
  /// Reads until `bytes` arrived (or EOF); what was read.
  std::string read(std::size_t bytes) {
    std::string got;
    char buf[4096];
    while (got.size() < bytes) {
      const ssize_t n = ::read(read_end_, buf, std::min(sizeof buf, bytes - got.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }
  /// Whether the pipe is full: the launcher's writes to it cannot go on. The pipe's own answer
  /// (no room for a write), asked through a write end of our own: a byte count cannot tell, as
  /// writes of a few KiB each (a rank's pty gives such pieces) leave every page short.
  bool full() const {
    const int probe = ::open(("/proc/self/fd/" + std::to_string(read_end_)).c_str(),
                             O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (probe < 0) return false;
    pollfd p{.fd = probe, .events = POLLOUT, .revents = 0};
    const bool room = ::poll(&p, 1, 0) != 0;
    ::close(probe);
    return !room;
  }
  void close_reader() {
    if (read_end_ >= 0) ::close(read_end_);
    read_end_ = -1;
  }
  /// The exit status (shell view) within `deadline`, or nullopt.
  std::optional<int> wait(Millis deadline) {
    int status = 0;
    if (!eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, deadline))
      return std::nullopt;
    reaped_ = true;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  }

 private:
  pid_t pid_ = -1;
  int read_end_ = -1;
  bool reaped_ = false;
};

}  // namespace

namespace {

// The ranks' program: `yes LINE`, writing forever. Under prterun 5.0.7 (wrap mode on Open MPI 5)
// at most 64 MiB a rank: prterun reads its ranks' output whether or not it can pass it on, and
// holds all of it in memory (in the Debian 13 chroot at load 12, an unbounded case's prterun
// reached 24 GiB and the kernel's OOM killer ended it). 64 MiB is far more than the launcher
// queues (4 MiB) and its pipe holds, so every case below still runs into a full pipe.
std::vector<std::string> writer(const std::vector<std::string>& engine, const std::string& line) {
  if (engine.empty() || MPILAUNCH_E2E_OMPI_MAJOR < 5) return {"/usr/bin/yes", line};
  return {"/bin/sh", "-c", "yes '" + line + "' | head -c 67108864"};
}

// Ranks that write forever: only the reader going away can end this job. `engine` comes first
// on the command line (nothing, or wrap mode's --engine=ompi).
void check_reader_gone_ends(const std::vector<std::string>& engine) {
  Job job;
  const std::string err_path = job.dir().file("stderr");
  std::vector<std::string> all = engine;
  all.insert(all.end(), {"--events", job.events_path(), "-n", "2"});
  for (const std::string& a : writer(engine, "rank output")) all.push_back(a);
  PipedLauncher launcher(job.command(all), err_path);
  CHECK(launcher.read(10).size() == 10);
  launcher.close_reader();
  const std::optional<int> status = launcher.wait(Millis{60'000});
  REQUIRE_MESSAGE(status.has_value(), "the job ran on after its reader went away");
  const Outcome o{.err = read_file(err_path), .exit_code = *status};
  check_error_block(o, "output-error", 141);
  const Json error = check_job_failed(job, "output-error", 141);
  CHECK_MESSAGE(error.value("signal", Json()) == Json(SIGPIPE), error.dump());
  check_nothing_left(job, o);
}

}  // namespace

TEST_CASE("reader gone: | head -c 10 ends the job with 141 (output-error), nothing left") {
  check_reader_gone_ends({});
}

TEST_CASE("wrap mode, reader gone: | head -c 10 ends mpirun's job with 141, nothing left") {
  check_reader_gone_ends({"--engine=ompi", "--oversubscribe"});
}

namespace {

// The ranks' line in the stalled-reader cases: short ("rank output"), or `long_lines` of 4000
// bytes. prterun 5.0.7 forwards output at a cost per line: measured in the Debian 13 chroot, a
// bare `mpirun --oversubscribe -n 2 yes 'rank output'` writing to a file gave 36853 bytes in its
// first 15 s and nothing more, and ran on over 60 s after SIGINT (its ranks dead, writing out
// what it had read from them); with 4000-byte lines it gave 600 MB in 15 s and ended 2 s after
// SIGINT. Open MPI 4.1's mpirun forwards both at once.
std::string rank_line(bool long_lines) {
  return long_lines ? std::string(4000, 'x') : std::string("rank output");
}

// What must hold before the stalled-reader case sends its signal.
enum class Before {
  Full,   // the launcher's stdout pipe is full (the launcher cannot write on)
  Output  // the launcher wrote something (mpirun's own forwarding may be what is stuck)
};

// A job of ranks that write forever behind a reader that reads nothing: once the pipe is full
// (or, with Before::Output, once the first bytes came), `end` (a signal, or nothing when
// --timeout is among `args`) must end it within a minute with `status`, nothing left, and the
// bytes the reader never took in output-lost events.
void check_stalled_reader_ends(const std::vector<std::string>& engine,
                               const std::vector<std::string>& args, int signal, int status,
                               const std::string& kind, bool long_lines = false,
                               Before before = Before::Full) {
  Job job;
  const std::string err_path = job.dir().file("stderr");
  std::vector<std::string> all = engine;
  all.insert(all.end(), {"--events", job.events_path()});
  all.insert(all.end(), args.begin(), args.end());
  all.insert(all.end(), {"-n", "2"});
  for (const std::string& a : writer(engine, rank_line(long_lines))) all.push_back(a);
  PipedLauncher launcher(job.command(all, Millis{120'000}), err_path);
  if (before == Before::Output)
    REQUIRE_MESSAGE(launcher.read(10).size() == 10, "the launcher wrote nothing; stderr:\n",
                    read_file(err_path));
  // With --timeout, the job may end before a slow machine fills the pipe: the signal case
  // needs it full first.
  const bool filled =
      eventually([&] { return launcher.full(); }, Millis{before == Before::Full ? 60'000 : 0});
  if (signal != 0) {
    REQUIRE_MESSAGE((filled || before == Before::Output), "the launcher's stdout never filled");
    ::kill(launcher.pid(), signal);
  }
  const std::optional<int> got = launcher.wait(Millis{60'000});
  REQUIRE_MESSAGE(got.has_value(), "the job did not end behind a stalled reader; stderr:\n",
                  read_file(err_path));
  const Outcome o{.err = read_file(err_path), .exit_code = *got};
  check_error_block(o, kind, status);
  check_job_failed(job, kind, status);
  // What the reader never took is not dropped without a word.
  const std::vector<Json> lost = events_named(read_events(job.events_path()).events, "output-lost");
  if (filled) CHECK_MESSAGE(!lost.empty(), read_file(job.events_path()));
  for (const Json& e : lost) {
    CHECK_MESSAGE(e.value("destination", Json()) == Json("stdout"), e.dump());
    CHECK_MESSAGE(e.value("lost_bytes", Json(0)).get<std::uint64_t>() > 0, e.dump());
  }
  check_nothing_left(job, o);
}

}  // namespace

TEST_CASE("stalled reader: SIGINT still ends the job at once (130), nothing left") {
  check_stalled_reader_ends({}, {}, SIGINT, 130, "interrupted");
}

TEST_CASE("wrap mode, stalled reader: SIGINT still ends mpirun's job at once (130)") {
  // Open MPI 5: lines prterun forwards at once (see rank_line), so that the pipe fills.
  check_stalled_reader_ends({"--engine=ompi", "--oversubscribe"}, {}, SIGINT, 130, "interrupted",
                            MPILAUNCH_E2E_OMPI_MAJOR >= 5);
}

TEST_CASE("wrap mode, mpirun's own forwarding stuck: SIGINT still ends the job at once (130)") {
  // Short lines: on Open MPI 5 prterun's own forwarding is what stalls (see rank_line), and the
  // signal comes once the first bytes went through. Open MPI 4.1: the same as the case above.
  check_stalled_reader_ends({"--engine=ompi", "--oversubscribe"}, {}, SIGINT, 130, "interrupted",
                            false, Before::Output);
}

TEST_CASE("stalled reader: --timeout still ends the job at once (124), nothing left") {
  check_stalled_reader_ends({}, {"--timeout", "20"}, 0, 124, "timeout");
}

}  // namespace mpilaunch::e2e
