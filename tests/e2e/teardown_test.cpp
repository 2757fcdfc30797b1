// Teardown and signals: timeouts, SIGINT/SIGTERM/SIGUSR1 to the launcher, the launcher or an
// agent killed with SIGKILL, and mpilaunch as PID 1. Nothing of a job may survive any of them.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/e2e/support/background.hpp"
#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/marked_processes.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {
namespace {

// Whether this process's / is a mount point: a line of /proc/self/mountinfo whose mount point
// (the fifth field) is "/".
bool root_is_mount_point() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount_point;
    if (fields >> id >> parent >> dev >> root >> mount_point && mount_point == "/") return true;
  }
  return false;
}

std::size_t events_count(const Job& job, const std::string& name) {
  return events_named(read_events(job.events_path()).events, name).size();
}

// Starts the job in the background and waits until `ranks` ranks have started.
std::unique_ptr<Background> start_running(Job& job, const std::vector<std::string>& args,
                                          int ranks) {
  std::vector<std::string> argv = {"--events", job.events_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto bg =
      std::make_unique<Background>(job.command(argv), job.dir().file("out"), job.dir().file("err"));
  REQUIRE_MESSAGE(
      eventually([&] { return events_count(job, "rank-start") == static_cast<std::size_t>(ranks); },
                 Millis{20'000}),
      "the ranks never started");
  return bg;
}

void check_gone_within(const Job& job, Millis deadline) {
  const bool gone = eventually([&] { return marked_processes(job.mark()).empty(); }, deadline);
  CHECK_MESSAGE(gone, "left behind:\n", describe(marked_processes(job.mark())));
  CHECK(eventually([&] { return list_dir(job.tmpdir()).empty(); }, deadline));
}

}  // namespace

TEST_CASE("timeout: a hanging program is stopped at --timeout with the timeout kind") {
  Job job;
  const Outcome o =
      job.launch({"-n", "2", "--timeout", "1", "--report-state-on-timeout", app("hang")});
  check_error_block(o, "timeout", 124);
  CHECK(o.err.find("rank 1 on") != std::string::npos);  // the state report
  const Json error = check_job_failed(job, "timeout", 124);
  CHECK(error.value("phase", "") == "job");
  check_nothing_left(job, o);
}

TEST_CASE("timeout: MPIEXEC_TIMEOUT bounds the run as --timeout does") {
  Job job;
  job.extra_env = {"MPIEXEC_TIMEOUT=1"};
  const Outcome o = job.launch({"-n", "1", app("hang")});
  check_error_block(o, "timeout", 124);
  check_nothing_left(job, o);
}

TEST_CASE("timeout: a rank that never reaches MPI_Init is named within the wire-up limit") {
  Job job;
  const Outcome o = job.launch(
      {"-n", "3", "--oversubscribe", "--wireup-timeout", "1", app("stall"), "before-init", "2"});
  check_error_block(o, "timeout", 124);
  const Json error = check_job_failed(job, "timeout", 124);
  CHECK(error.value("phase", "") == "wire-up");
  CHECK(error.value("rank", -1) == 2);
  check_nothing_left(job, o);
}

TEST_CASE("timeout: an MPI program none of whose ranks reaches MPI_Init fails within the limit") {
  // No rank ever connects, so no "first rank" starts the clock: the program links MPI (as
  // --pmi=auto reads it), so the limit runs from the ranks' start instead of never.
  Job job;
  const Outcome o =
      job.launch({"-n", "1", "--wireup-timeout", "1", app("stall"), "before-init", "0"});
  check_error_block(o, "timeout", 124);
  const Json error = check_job_failed(job, "timeout", 124);
  CHECK(error.value("phase", "") == "wire-up");
  CHECK(error.value("rank", -1) == 0);
  CHECK_MESSAGE(error.value("message", "").find("of its start") != std::string::npos, error.dump());
  check_nothing_left(job, o);
}

TEST_CASE("timeout: a program without MPI is not held to the wire-up limit") {
  Job job;
  const Outcome o = job.launch({"-n", "1", "--wireup-timeout", "1", "sh", "-c", "sleep 2"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  check_nothing_left(job, o);
}

TEST_CASE("signals: SIGINT and SIGTERM to the launcher end the job with 128+N") {
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    Job job;
    auto bg = start_running(job, {"-n", "2", app("hang")}, 2);
    ::kill(bg->pid(), sig);
    const auto status = bg->wait(Millis{20'000});
    REQUIRE(status.has_value());
    CHECK(*status == 128 + sig);
    const Json error = check_job_failed(job, "interrupted", 128 + sig);
    CHECK(error.value("signal", 0) == sig);
    check_gone_within(job, Millis{1'000});
  }
}

// GNU timeout, a shell's job control and container runtimes signal the launcher's whole process
// group: local agents are in it, and used to die of it, their ranks SIGKILLed with them (no
// grace) and the job racing into agent-lost. The agents leave the teardown to the launcher.
TEST_CASE("signals: SIGTERM to the launcher's process group: 143, every rank gets SIGTERM") {
  const std::vector<std::vector<std::string>> layouts = {{"-n", "2"},
                                                         {"--launcher=local", "-H", "n1:1,n2:1"}};
  for (const auto& layout : layouts) {
    CAPTURE(layout.size());
    Job job;
    std::vector<std::string> args = layout;
    args.push_back(app("hang"));
    auto bg = start_running(job, args, 2);
    ::kill(-bg->pid(), SIGTERM);  // Background puts the launcher in a group of its own
    const auto status = bg->wait(Millis{20'000});
    REQUIRE(status.has_value());
    CHECK(*status == 128 + SIGTERM);
    check_job_failed(job, "interrupted", 128 + SIGTERM);
    const auto exits = events_named(read_events(job.events_path()).events, "rank-exit");
    CHECK_MESSAGE(exits.size() == 2, read_file(job.events_path()));
    for (const Json& e : exits) CHECK_MESSAGE(e.value("signal", 0) == SIGTERM, e.dump());
    CHECK(events_count(job, "secondary-error") == 0);
    check_gone_within(job, Millis{1'000});
  }
}

TEST_CASE("signals: ranks deaf to SIGTERM get SIGKILL at once on a second SIGINT") {
  Job job;
  // A kill grace far beyond the wait below: only the second interrupt can end the job in time.
  auto bg = start_running(job, {"--kill-grace", "120", "-n", "2", app("stall"), "deaf", "0"}, 2);
  REQUIRE(eventually([&] { return count_of(read_file(job.dir().file("out")), "ready") == 2; },
                     Millis{20'000}));
  ::kill(bg->pid(), SIGINT);
  // The first interrupt is taken (the job is failing, SIGTERM went out) but the ranks live on.
  REQUIRE(eventually([&] { return events_count(job, "job-failed") == 1; }, Millis{10'000}));
  ::kill(bg->pid(), SIGINT);
  const auto status = bg->wait(Millis{20'000});
  REQUIRE_MESSAGE(status.has_value(), "the second SIGINT did not end the job");
  CHECK(*status == 128 + SIGINT);
  check_job_failed(job, "interrupted", 128 + SIGINT);
  check_gone_within(job, Millis{1'000});
}

// mpirun 4.1.4 ends a job whose rank failed with SIGCONT at once and SIGTERM a second later
// (odls_base_sigkill_timeout): a peer about to write its last line still writes it. Rank 0 sets
// its SIGCONT trap, then opens the fifo rank 1 reads, which lets rank 1 fail (no sleeps): the
// SIGCONT must come before any SIGTERM, which rank 0 does not trap. With SIGTERM first, its
// line never came (killed before it wrote; 4 runs of 300 lost it under load, mpirun none).
TEST_CASE("signals: a rank's failure sends its peers SIGCONT, SIGTERM 1 s later, as mpirun 4.1.4") {
  Job job;
  const std::string fifo = job.dir().file("ready");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string script =
      "if [ $OMPI_COMM_WORLD_RANK = 1 ]; then cat '" + fifo +
      "' >/dev/null; exit 1; fi; "
      "trap 'echo last words; exit 0' CONT; sleep 300 </dev/null >/dev/null 2>&1 & "
      ": >'" +
      fifo + "'; wait";
  const Outcome o = job.launch({"-n", "2", "sh", "-c", script}, Millis{30'000});
  check_error_block(o, "rank-exit-nonzero", 1);
  CHECK_MESSAGE(count_of(o.out, "last words\n") == 1, o.out, o.err);
  const std::vector<Json> exits = events_named(read_events(job.events_path()).events, "rank-exit");
  for (const Json& e : exits)
    if (e.value("rank", -1) == 0)
      CHECK_MESSAGE(e.value("exit_code", -1) == 0, e.dump());  // not signal 15
  check_nothing_left(job, o);
}

TEST_CASE("root: one warning line names the switches; --refuse-root is run-as-root-refused") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: the root policy needs the tests to run as root (CI does)");
    return;
  }
  {
    Job job;
    job.extra_env = {"OMPI_ALLOW_RUN_AS_ROOT=0", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=0"};
    const Outcome o = job.launch({"-n", "1", app("hello")});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK(count_of(o.err, "running the ranks as root") == 1);
    CHECK(o.err.find("--allow-run-as-root") != std::string::npos);
    CHECK(o.err.find("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1") != std::string::npos);
    const Outcome quiet = job.launch({"--allow-run-as-root", "-n", "1", app("hello")});
    CHECK_MESSAGE(quiet.status() == 0, quiet.summary());
    CHECK(quiet.err.find("running the ranks as root") == std::string::npos);
  }
  {
    Job job;
    const Outcome o = job.launch({"--refuse-root", "-n", "1", app("hello")});
    check_error_block(o, "run-as-root-refused", 77);
    check_job_failed(job, "run-as-root-refused", 77);
    CHECK(o.out.empty());  // nothing ran
  }
}

TEST_CASE("signals: SIGUSR1 is forwarded to every rank") {
  Job job;
  auto bg = start_running(job, {"-n", "2", app("stall"), "sigusr1", "0"}, 2);
  REQUIRE(eventually([&] { return count_of(read_file(job.dir().file("out")), "ready") == 2; },
                     Millis{20'000}));
  ::kill(bg->pid(), SIGUSR1);
  const auto status = bg->wait(Millis{20'000});
  REQUIRE(status.has_value());
  CHECK(*status == 0);
  CHECK(count_of(read_file(job.dir().file("out")), "got SIGUSR1") == 2);
  check_gone_within(job, Millis{1'000});
}

TEST_CASE("kill -9 of the launcher: agents notice and nothing of the job survives 1 s later") {
  Job job;
  auto bg = start_running(job, {"--launcher=local", "-H", "n1:1,n2:1", app("hang")}, 2);
  ::kill(bg->pid(), SIGKILL);
  REQUIRE(bg->wait(Millis{5'000}).has_value());
  check_gone_within(job, Millis{1'000});
}

TEST_CASE("kill -9 of an agent: its ranks die with it and the launcher reports agent-lost") {
  Job job;
  auto bg = start_running(job, {"--launcher=local", "-H", "n1:1,n2:1", app("hang")}, 2);
  const auto agents = events_named(read_events(job.events_path()).events, "agent-up");
  REQUIRE(agents.size() == 2);
  CHECK(!agents[0].contains("login_ms"));  // no login shell before a local agent
  const pid_t agent = agents[1].value("pid", 0);
  REQUIRE(agent > 0);
  ::kill(agent, SIGKILL);
  const auto status = bg->wait(Millis{10'000});
  REQUIRE(status.has_value());
  CHECK(*status == 75);
  const Json error = check_job_failed(job, "agent-lost", 75);
  CHECK(error.value("host", "") == agents[1].value("host", ""));
  // The status is read even when a SIGCHLD interrupts the launcher's wait for it; a kill from
  // outside is no crash of the agent's own: no signal field, the general hint.
  CHECK_MESSAGE(error.value("message", "").find("killed by SIGKILL") != std::string::npos, error);
  CHECK_FALSE(error.contains("signal"));
  CHECK(error.value("hint", "").find("out of memory") != std::string::npos);
  check_gone_within(job, Millis{1'000});
}

// A host without ranks has an agent too (it waits for spawned processes, as mpirun's daemon
// there): losing it ends the job as losing any agent does, as mpirun ends a job whose daemon
// died, with a typed error naming that host and nothing left behind.
TEST_CASE("kill -9 of an idle agent (a host without ranks): agent-lost naming its host") {
  Job job;
  auto bg = start_running(job, {"--launcher=local", "-H", "n1:1,n2:1", "-n", "1", app("hang")}, 1);
  const auto agents = events_named(read_events(job.events_path()).events, "agent-up");
  REQUIRE(agents.size() == 2);
  pid_t agent = 0;
  for (const Json& a : agents)
    if (a.value("host", "") == "n2") agent = a.value("pid", 0);
  REQUIRE(agent > 0);
  ::kill(agent, SIGKILL);
  const auto status = bg->wait(Millis{10'000});
  REQUIRE(status.has_value());
  CHECK(*status == 75);
  const Json error = check_job_failed(job, "agent-lost", 75);
  CHECK(error.value("host", "") == "n2");
  check_gone_within(job, Millis{1'000});
}

// A stopped process's state in /proc/PID/stat is 'T' (or 't' when traced).
bool is_stopped(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         (stat[paren + 2] == 'T' || stat[paren + 2] == 't');
}

// An agent that cannot answer (SIGSTOP here; a frozen host over ssh) used to hold the teardown
// until it resumed: SIGTERM, a second SIGINT and --timeout all waited for its ranks' ends.
TEST_CASE("a stopped agent: the teardown closes its link after --kill-grace + 5 s, naming it") {
  Job job;
  auto bg = start_running(
      job, {"--kill-grace", "1", "--launcher=local", "-H", "n1:1,n2:1", app("hang")}, 2);
  const auto agents = events_named(read_events(job.events_path()).events, "agent-up");
  REQUIRE(agents.size() == 2);
  const pid_t agent = agents[1].value("pid", 0);
  const std::string host = agents[1].value("host", "");
  REQUIRE(agent > 0);
  // Whatever happens below, the agent is not left stopped (the job's cleanup kills it).
  struct Resume {
    pid_t pid;
    ~Resume() { ::kill(pid, SIGCONT); }
  } resume{agent};
  REQUIRE(::kill(agent, SIGSTOP) == 0);
  REQUIRE(eventually([&] { return is_stopped(agent); }, Millis{10'000}));
  ::kill(bg->pid(), SIGTERM);
  const auto status = bg->wait(Millis{40'000});
  REQUIRE_MESSAGE(status.has_value(), "the launcher waited for the stopped agent");
  CHECK(*status == 128 + SIGTERM);
  check_job_failed(job, "interrupted", 128 + SIGTERM);
  bool named = false;
  for (const Json& e : events_named(read_events(job.events_path()).events, "secondary-error")) {
    const Json& error = e["error"];
    if (error.value("kind", "") == "agent-lost" && error.value("phase", "") == "teardown" &&
        error.value("host", "") == host)
      named = true;
  }
  CHECK_MESSAGE(named, read_file(job.events_path()));
  const std::string err = read_file(job.dir().file("err"));
  CHECK_MESSAGE(
      err.find("the connection to the agent on " + host + " was lost") != std::string::npos, err);
  check_gone_within(job, Millis{3'000});
}

// One rank's PMIx data larger than a data segment of the shared store makes libpmix fail inside
// the agent's PMIx server (it prints "PLEASE set NS_DATA_SEG_SIZE ...", then the process dies of
// SIGSEGV or SIGABRT). The job ends as agent-lost with the signal, and a hint that names the
// two ways out; libpmix's own lines reach the user's stderr.
// PMIx 5 has no such store (the agent uses hash, which has no data segments): there the same
// job runs to its end.
TEST_CASE("an agent that crashes inside libpmix: agent-lost with the signal and the store's fix") {
  Job job;
  job.extra_env = {"PMIX_MCA_gds=ds21,hash", "NS_DATA_SEG_SIZE=4096"};
  const Outcome o = job.launch(
      {"--launcher=local", "-H", "a:2,b:2", "-n", "4", app("pmix_put"), "8192"}, Millis{60'000});
  if (MPILAUNCH_E2E_PMIX_MAJOR >= 5) {
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(count_of(o.out, "8192 bytes, PMIX_SUCCESS\n") == 4, o.out);  // PMIx 5's name
    CHECK_MESSAGE(o.err.find("NS_DATA_SEG_SIZE") == std::string::npos, o.err);
    check_nothing_left(job, o);
    return;
  }
  CHECK_MESSAGE(o.status() == 75, o.summary());
  CHECK_MESSAGE(o.err.find("PLEASE set NS_DATA_SEG_SIZE") != std::string::npos, o.err);
  const Json error = check_job_failed(job, "agent-lost", 75);
  const int signal = error.value("signal", 0);
  CHECK_MESSAGE((signal == SIGSEGV || signal == SIGABRT || signal == SIGBUS), error);
  const std::string hint = error.value("hint", "");
  CHECK_MESSAGE(hint.find("NS_DATA_SEG_SIZE") != std::string::npos, hint);
  CHECK(hint.find("PMIX_MCA_gds=hash") != std::string::npos);
  check_nothing_left(job, o);
}

TEST_CASE("PID 1: as a container entrypoint mpilaunch reaps orphans and returns the job's code") {
  if (::access("/usr/bin/unshare", X_OK) != 0 || ::geteuid() != 0) {
    MESSAGE("needs root and unshare(1): skipped");
    return;
  }
  if (!root_is_mount_point()) {
    // unshare --mount-proc makes / private first, which fails when / is no mount point.
    MESSAGE(
        "/ is not a mount point here (a chroot that is not bind-mounted onto itself): "
        "unshare --mount-proc cannot run, skipped");
    return;
  }
  Job job;
  Command c = job.command({"-n", "2", "/bin/sh", "-c", "sleep 0.2 & exit 3"});
  c.argv.insert(c.argv.begin(), {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc"});
  const Outcome o = run(c);
  check_error_block(o, "rank-exit-nonzero", 3);
  check_nothing_left(job, o);
}

// A rank that does not see the directory its agent made for shared memory (a chroot or
// container without the agent's /dev/shm), or sees it too small: with only the shared-memory
// BTL, MPI_Init fails, and the error names /dev/shm. Each rank runs in its own mount namespace
// (private propagation: nothing it mounts reaches this machine) with a tmpfs over the agent's
// node directory, or a 1 MiB one over the shared-memory directory itself.
TEST_CASE("a rank without its agent's /dev/shm: mpi-init-failed names shared memory") {
  if (::access("/usr/bin/unshare", X_OK) != 0 || ::geteuid() != 0) {
    MESSAGE("needs root and unshare(1): skipped");
    return;
  }
  if (!root_is_mount_point()) {
    MESSAGE("/ is not a mount point here: unshare -m cannot make it private, skipped");
    return;
  }
  const std::string btl = MPILAUNCH_E2E_OMPI_MAJOR >= 5 ? "self,sm" : "self,vader";
  struct Case {
    std::string hide;  // what the tmpfs covers, from the rank's environment
    std::string phase;
  };
  const Case cases[] = {
      {"\"$(dirname \"$OMPI_MCA_btl_vader_backing_directory\")\"", "shared-memory"},
      {"\"$OMPI_MCA_btl_vader_backing_directory\"", "shared-memory-full"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.phase);
    Job job;
    const std::string script =
        "mount -t tmpfs -o size=1m mpilaunch-shm-test " + c.hide + " && exec \"$0\"";
    // Without the tmpfs mount the job would run: the mount failing is a setup failure, not
    // this test's subject.
    const Outcome o = job.launch({"--mca", "btl", btl, "-n", "2", "/usr/bin/unshare", "-m",
                                  "/bin/sh", "-c", script, app("hello")},
                                 Millis{60'000});
    REQUIRE_MESSAGE(o.err.find("mount:") == std::string::npos, o.err);
    CHECK_MESSAGE(o.status() != 0, o.summary());
    CHECK_MESSAGE(o.out.find("hello rank") == std::string::npos, o.out);
    const Json error = check_job_failed(job, "mpi-init-failed", o.status());
    CHECK_MESSAGE(error.value("phase", "") == c.phase, error);
    const std::string hint = error.value("hint", "");
    CHECK_MESSAGE(hint.find("/dev/shm") != std::string::npos, hint);
    check_nothing_left(job, o);
  }
}

// A rank that ends while something it started still holds its output: the agent reports the
// rank after a short drain, and the leftover, in the rank's process group, goes with the job.
TEST_CASE("leftovers: what an ended rank left running does not outlive the job") {
  Job job;
  const Outcome o = job.launch({"-n", "2", "sh", "-c", "sleep 300 & echo started"}, Millis{30'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(count_of(o.out, "started") == 2);
  check_nothing_left(job, o);
}

// Only rank 0 fails: both ranks are started back to back, so which of two failing ranks ends
// first is up to the scheduler.
TEST_CASE("leftovers: a failed rank's background child is torn down with the job") {
  Job job;
  const Outcome o =
      job.launch({"-n", "2", "sh", "-c", "sleep 300 & exit $((OMPI_COMM_WORLD_RANK == 0 ? 3 : 0))"},
                 Millis{30'000});
  check_error_block(o, "rank-exit-nonzero", 3);
  check_nothing_left(job, o);
}

// A daemon leaves the rank's process group and session (setsid) and its parent (a double
// fork): the agent, a child subreaper, adopts it, and the job's cgroup holds it where the agent
// could make one; either way it ends with the job. MPILAUNCH_CGROUP=off: the subreaper alone.
TEST_CASE("leftovers: a daemon started with setsid and a double fork does not outlive the job") {
  for (const std::string cgroup : {"", "off"}) {
    CAPTURE(cgroup);
    Job job;
    if (!cgroup.empty()) job.extra_env = {"MPILAUNCH_CGROUP=" + cgroup};
    const Outcome o = job.launch(
        {"-n", "2", "sh", "-c",
         "setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 &' </dev/null; echo started"},
        Millis{30'000});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK(count_of(o.out, "started") == 2);
    check_nothing_left(job, o);
  }
}

// Each attempt's files (Open MPI's session directory, shared-memory segments) go when it ends,
// not when the job does: a job restarting for hours does not fill /dev/shm.
TEST_CASE("leftovers: an attempt's files are removed when the next attempt starts") {
  Job job;
  const Outcome o =
      job.launch({"-n", "1", "--max-restarts", "2", "--restart-backoff", "0", "sh", "-c",
                  "echo \"attempt $MPILAUNCH_ATTEMPT sees: $(ls "
                  "\"$OMPI_MCA_orte_tmpdir_base\" | tr '\\n' ' ')\"; exit "
                  "$((MPILAUNCH_ATTEMPT < 3 ? 3 : 0))"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const std::vector<std::string> lines = lines_of(o.out);
  REQUIRE_MESSAGE(lines.size() == 3, o.out);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const std::string& line = lines[static_cast<std::size_t>(attempt - 1)];
    CAPTURE(line);
    CHECK(line.starts_with("attempt " + std::to_string(attempt) + " sees: mpilaunch-"));
    CHECK(count_of(line, "mpilaunch-") == 1);  // its own namespace's directory only
  }
  check_nothing_left(job, o);
}

// Security, issue 23 item 11: a process that is no rank of the job (another local user's, here
// one the test starts) takes a running rank's PMIx environment, connects to the agent's PMIx
// server as that rank and would call PMIx_Abort(42). libpmix alone lets it in (its TCP
// credential is the client's own claim); the agent refuses it, and the job's result is its own.
TEST_CASE("security: a process that is no rank is refused by the agent's PMIx server") {
  Job job;
  auto bg = start_running(job, {"-n", "2", app("stall"), "sigusr1", "0"}, 2);
  REQUIRE(eventually([&] { return count_of(read_file(job.dir().file("out")), "ready") == 2; },
                     Millis{20'000}));
  pid_t rank1 = -1;
  for (const Json& e : events_named(read_events(job.events_path()).events, "rank-start"))
    if (e.value("rank", -1) == 1) rank1 = e.value("pid", -1);
  REQUIRE(rank1 > 0);
  const std::string environ = read_file("/proc/" + std::to_string(rank1) + "/environ");
  Command intruder;
  intruder.argv = {app("pmix_intruder")};
  intruder.env = clean_environment({});
  std::size_t start = 0;
  while (start < environ.size()) {
    const std::size_t end = environ.find('\0', start);
    const std::string var =
        environ.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (var.starts_with("PMIX_")) intruder.env.push_back(var);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  intruder.deadline = Millis{30'000};
  const Outcome o = run(intruder);
  CHECK_MESSAGE(o.status() == 0, o.summary(), "\n", o.out);
  CHECK_MESSAGE(o.out.find("refused") != std::string::npos, o.out);
  ::kill(bg->pid(), SIGUSR1);  // the ranks finish
  const auto status = bg->wait(Millis{20'000});
  REQUIRE(status.has_value());
  CHECK_MESSAGE(*status == 0, read_file(job.dir().file("err")));
  CHECK(events_count(job, "job-failed") == 0);
  // Said on stderr (once per attempt libpmix's client makes to connect).
  CHECK(count_of(read_file(job.dir().file("err")), "refused a PMIx connection claiming rank 1") >=
        1);
  check_gone_within(job, Millis{1'000});
}

// The same check must not refuse the rank itself when it leaves and connects again: Open MPI 5
// finalizes PMIx and initialises it once more in one process (MPI sessions; the report of a
// failed MPI_Init, seen in the Debian 13 chroot as a lost help text). The check counted every
// admission ever made, so a rank's second PMIx_Init was refused as an intruder.
TEST_CASE("security: a rank that leaves its PMIx server and connects again is admitted again") {
  Job job;
  const Outcome o = job.launch({"-n", "2", app("pmix_reconnect"), "3"});
  CHECK_MESSAGE(o.status() == 0, o.summary(), "\n", o.out);
  for (int round = 0; round < 3; ++round)
    for (int rank = 0; rank < 2; ++rank)
      CHECK_MESSAGE(count_of(o.out, "round " + std::to_string(round) + " of rank " +
                                        std::to_string(rank) + ": size 2\n") == 1,
                    o.out);
  CHECK(count_of(o.err, "refused a PMIx connection") == 0);
  check_nothing_left(job, o);
}

// A job SIGKILLed with everything it started leaves its directory behind; the next job of the
// user on the machine removes it, but never one whose lock a live process holds.
TEST_CASE("leftovers: a SIGKILLed job's directory is removed at the next start; a held one stays") {
  Job job;
  auto bg = start_running(job, {"--launcher=local", "-H", "n1:1,n2:1", app("hang")}, 2);
  const std::vector<std::string> dirs = list_dir(job.tmpdir());
  REQUIRE(dirs.size() == 1);
  const std::filesystem::path killed = job.tmpdir() / dirs[0];
  struct stat st {};
  REQUIRE(::stat(killed.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);  // no other user can look inside
  ::kill(-bg->pid(), SIGKILL);
  REQUIRE(bg->wait(Millis{10'000}).has_value());
  REQUIRE(eventually([&] { return marked_processes(job.mark()).empty(); }, Millis{10'000}));
  REQUIRE(std::filesystem::exists(killed / "owner.lock"));
  // A lock file only seconds old may be a job's that is still taking it: backdate it.
  const timespec an_hour_ago[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (killed / "owner.lock").c_str(), an_hour_ago, 0) == 0);
  // A directory whose lock is held by a live process (this one) is in use.
  const std::filesystem::path held =
      job.tmpdir() / (dirs[0].substr(0, dirs[0].rfind('-')) + "-held");
  std::filesystem::create_directories(held / "node0");
  const int lock = ::open((held / "owner.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(lock >= 0);
  REQUIRE(::flock(lock, LOCK_SH) == 0);
  REQUIRE(::utimensat(AT_FDCWD, (held / "owner.lock").c_str(), an_hour_ago, 0) == 0);

  const Outcome o = job.launch({"-n", "1", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_FALSE(std::filesystem::exists(killed));
  CHECK(std::filesystem::exists(held / "node0"));
  ::close(lock);
  std::filesystem::remove_all(held);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
