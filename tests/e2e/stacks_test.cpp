// --get-stack-traces: a timed-out job's ranks' stacks, collected by their agents, merged into
// rank groups on stderr and in a stacks event, the straggler named in the timeout error.
// deadlock.c hangs in a known place; each rank prints "ready" just before it blocks, and the
// timeout leaves the ranks ample time to get there. eu-stack (MPILAUNCH_STACK_TOOL) keeps the
// collection to milliseconds on a loaded machine, where gdb's attach takes seconds.
// `mpilaunch stacks`: the same for a job that runs, asked from another process.
#include <signal.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "tests/e2e/support/background.hpp"
#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/events.hpp"
#include "tests/e2e/support/marked_processes.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {
namespace {

// True, with the reason said, when the kernel refused the tool's attach for some rank (a
// container without CAP_SYS_PTRACE, Yama's ptrace_scope, a seccomp filter): the only case in
// which a stacks test may end without its checks. The stacks event must say so as a type.
bool attach_denied(const Json& stacks) {
  for (const Json& r : stacks["ranks"]) {
    if (r.value("reason", "") != "attach-denied") continue;
    MESSAGE("skipped: this machine does not let the stack tool attach to the ranks: ",
            r.value("note", ""));
    return true;
  }
  return false;
}

// Runs `PROGRAM MODE 3` (deadlock.c, built as `program`) on four ranks with
// --get-stack-traces, and checks what every such run must show; returns the stacks event, or
// nothing when the attach was refused.
std::optional<Json> run_deadlock(Job& job, const std::vector<std::string>& placement,
                                 const std::string& mode, const std::string& program = "deadlock") {
  job.extra_env = {"MPILAUNCH_STACK_TOOL=eu-stack"};
  std::vector<std::string> args = placement;
  args.insert(args.end(), {"--oversubscribe", "-n", "4", "--timeout", "15", "--get-stack-traces",
                           app(program), mode, "3"});
  const Outcome o = job.launch(args, Millis{120'000});
  CAPTURE(o.err);
  check_error_block(o, "timeout", 124);
  // Every rank says ready before it blocks, but in init mode only rank 3 gets that far.
  CHECK(count_of(o.out, "ready\n") == (mode == "init" ? 1 : 4));
  CHECK(o.err.find("stacks of 4 ranks (eu-stack;") != std::string::npos);
  check_nothing_left(job, o);
  const Json error = check_job_failed(job, "timeout", 124);
  const auto events = read_events(job.events_path()).events;
  const auto stacks = first_event(events, "stacks");
  REQUIRE(stacks.has_value());
  CHECK((*stacks)["ranks"].size() == 4);
  if (attach_denied(*stacks)) return std::nullopt;
  CHECK(error.value("rank", -1) == 3);
  for (const Json& r : (*stacks)["ranks"]) {
    CHECK(r.value("tool", "") == "eu-stack");
    CHECK(!r.value("raw", "").empty());
  }
  CHECK((*stacks)["groups"].size() == 2);
  CHECK((*stacks)["groups"][0]["ranks"] == Json::array({3}));
  return *stacks;
}

}  // namespace

// A spawned process is one of the job's: a timed-out job's stacks show it as job 2's rank 0,
// next to the parent (both wait in MPI_Recv for the other).
TEST_CASE("stacks: a spawned process's stack is shown as job 2's") {
  Job job;
  job.extra_env = {"MPILAUNCH_STACK_TOOL=eu-stack"};
  const Outcome o = job.launch({"--oversubscribe", "-n", "1", "--timeout", "20",
                                "--get-stack-traces", app("dynamic"), "spawn-hang"},
                               Millis{120'000});
  CAPTURE(o.err);
  check_error_block(o, "timeout", 124);
  CHECK_MESSAGE(count_of(o.out, "ready\n") == 2, o.out);
  CHECK(o.err.find("stacks of 2 ranks (eu-stack;") != std::string::npos);
  check_nothing_left(job, o);
  const auto stacks = first_event(read_events(job.events_path()).events, "stacks");
  REQUIRE(stacks.has_value());
  REQUIRE((*stacks)["ranks"].size() == 2);
  if (attach_denied(*stacks)) return;
  int spawned = 0;
  for (const Json& r : (*stacks)["ranks"])
    if (r.value("job", 1) == 2) {
      ++spawned;
      CHECK(r.value("rank", -1) == 0);
    }
  CHECK(spawned == 1);
  REQUIRE((*stacks)["groups"].size() == 2);
  for (const Json& g : (*stacks)["groups"]) {
    CHECK(g["ranks"] == Json::array({0}));
    CHECK(g["path"].back() == "MPI_Recv");
  }
  CHECK(o.err.find("  job 2 rank 0 (1): main > ") != std::string::npos);
  CHECK(o.err.find("  rank 0 (1): main > ") != std::string::npos);
}

TEST_CASE("stacks: a deadlock on virtual nodes names rank 3 in MPI_Recv, the others in a barrier") {
  Job job;
  const auto found = run_deadlock(job, {"--launcher=local", "-H", "node1:2,node2:2"}, "recv");
  if (!found) return;
  const Json& stacks = *found;
  CHECK(stacks["groups"][0]["path"] == Json::array({"main", "wait_for_message", "MPI_Recv"}));
  CHECK(stacks["groups"][0]["hosts"] == Json::array({"node2"}));
  CHECK(stacks["groups"][1]["path"] == Json::array({"main", "MPI_Barrier"}));
  CHECK(stacks["groups"][1]["ranks_text"] == "0-2");
  const Json error = check_job_failed(job, "timeout", 124);
  CHECK(error.value("detail", "")
            .find("straggler: rank 3 on node2 in main > wait_for_message > MPI_Recv") !=
        std::string::npos);
  CHECK(error.value("host", "") == "node2");
}

TEST_CASE("stacks: a rank stuck in read outside MPI while the others wait in MPI_Allreduce") {
  Job job;
  const auto found = run_deadlock(job, {}, "read");
  if (!found) return;
  const Json& stacks = *found;
  CHECK(stacks["groups"][0]["path"] == Json::array({"main", "read_input", "read"}));
  CHECK(stacks["groups"][1]["path"] == Json::array({"main", "solve", "MPI_Allreduce"}));
}

TEST_CASE("stacks: a rank that never calls MPI_Init while the others wait in it") {
  Job job;
  const auto found = run_deadlock(job, {"--launcher=local", "-H", "node1:2,node2:2"}, "init");
  if (!found) return;
  const Json& stacks = *found;
  CHECK(stacks["groups"][0]["path"] == Json::array({"main", "pause"}));
  CHECK(stacks["groups"][1]["path"] == Json::array({"main", "MPI_Init"}));
}

TEST_CASE("stacks: a program without debug information still groups by its function names") {
  Job job;
  const auto found =
      run_deadlock(job, {"--launcher=local", "-H", "node1:2,node2:2"}, "recv", "deadlock_nodebug");
  if (!found) return;
  const Json& stacks = *found;
  // Its symbol table names even the static functions.
  CHECK(stacks["groups"][0]["path"] == Json::array({"main", "wait_for_message", "MPI_Recv"}));
  CHECK(stacks["groups"][1]["path"] == Json::array({"main", "MPI_Barrier"}));
}

TEST_CASE("stacks: a stripped program's ranks are grouped by the MPI call they are in") {
  Job job;
  const auto found =
      run_deadlock(job, {"--launcher=local", "-H", "node1:2,node2:2"}, "recv", "deadlock_stripped");
  if (!found) return;
  const Json& stacks = *found;
  // No symbol table: the program's own frames have no name and are left out; the MPI
  // library's dynamic symbols still name the call.
  CHECK(stacks["groups"][0]["path"] == Json::array({"MPI_Recv"}));
  CHECK(stacks["groups"][1]["path"] == Json::array({"MPI_Barrier"}));
  CHECK(stacks["groups"][1]["ranks_text"] == "0-2");
  const Json error = check_job_failed(job, "timeout", 124);
  CHECK(error.value("detail", "").find("straggler: rank 3 on node2 in MPI_Recv") !=
        std::string::npos);
}

}  // namespace mpilaunch::e2e

namespace mpilaunch::e2e {
namespace {

// A deadlock on virtual nodes that runs until it is stopped, with its events and status files;
// returns once every rank said ready. The last of the `ranks` waits in MPI_Recv, the others in
// a barrier.
// The agents pick their stack tool themselves: eu-stack, the default (tools/bootstrap installs
// elfutils and gdb).
std::unique_ptr<Background> start_deadlock(Job& job, const std::vector<std::string>& placement,
                                           const std::string& program = app("deadlock"),
                                           int ranks = 4) {
  std::vector<std::string> args = {"--events", job.events_path(), "--status",
                                   job.dir().file("status.json")};
  args.insert(args.end(), placement.begin(), placement.end());
  // --timeout only as a bound should the test die; it is stopped long before.
  args.insert(args.end(), {"--oversubscribe", "-n", std::to_string(ranks), "--timeout", "300",
                           program, "recv", std::to_string(ranks - 1)});
  auto bg = std::make_unique<Background>(job.command(args, Millis{300'000}), job.dir().file("out"),
                                         job.dir().file("err"));
  REQUIRE_MESSAGE(eventually(
                      [&] {
                        return count_of(read_file(job.dir().file("out")), "ready\n") ==
                               static_cast<std::size_t>(ranks);
                      },
                      Millis{60'000}),
                  "the ranks never became ready: ", read_file(job.dir().file("err")));
  return bg;
}

// Stops the job with SIGTERM, as a user would, and checks it left nothing.
void stop_job(Job& job, Background& bg) {
  ::kill(-bg.pid(), SIGTERM);  // Background puts the launcher in a group of its own
  const auto status = bg.wait(Millis{60'000});
  REQUIRE_MESSAGE(status.has_value(), "the job did not end after SIGTERM");
  CHECK(*status == 128 + SIGTERM);
  CHECK(eventually([&] { return marked_processes(job.mark()).empty(); }, Millis{10'000}));
  CHECK(eventually([&] { return list_dir(job.tmpdir()).empty(); }, Millis{10'000}));
}

}  // namespace

TEST_CASE(
    "stacks: mpilaunch stacks shows a running job's merged stacks, found by id, status "
    "file, events file or as the only job, and nothing once it ended") {
  Job job;
  auto bg = start_deadlock(job, {"--launcher=local", "-H", "node1:2,node2:2"});
  const Json status = Json::parse(read_file(job.dir().file("status.json")));
  const std::string id = status.value("job", "");
  REQUIRE(id.size() == 8);

  const Outcome by_id = job.launch_plain({"stacks", "--json", id});
  CAPTURE(by_id.err);
  REQUIRE(by_id.status() == 0);
  const Json reply = Json::parse(by_id.out);
  CHECK(reply.value("job", "") == id);
  CHECK(reply["stacks"]["ranks"].size() == 4);
  if (attach_denied(reply["stacks"])) return stop_job(job, *bg);
  REQUIRE(reply["stacks"]["groups"].size() == 2);
  CHECK(reply["stacks"]["groups"][0]["ranks"] == Json::array({3}));
  CHECK(reply["stacks"]["groups"][0]["path"] ==
        Json::array({"main", "wait_for_message", "MPI_Recv"}));

  const std::string tree =
      "job " + id +
      ": stacks of 4 ranks (eu-stack; main threads, calls into MPI shown as the MPI call, the "
      "odd ones first):\n"
      "  rank 3 (1) on node2: main > wait_for_message > MPI_Recv\n"
      "  ranks 0-2 (3) on node1,node2: main > MPI_Barrier\n";
  for (const std::vector<std::string>& how :
       {std::vector<std::string>{"stacks", job.dir().file("status.json")},
        std::vector<std::string>{"stacks", job.events_path()},
        std::vector<std::string>{"stacks"}}) {
    const Outcome o = job.launch_plain(how);
    CAPTURE(o.err);
    CHECK(o.status() == 0);
    CHECK(o.out == tree);
  }
  const auto requests = events_named(read_events(job.events_path()).events, "stacks");
  CHECK(requests.size() == 4);
  for (const Json& e : requests) CHECK(e.value("reason", "") == "request");
  CHECK(job.launch_plain({"stacks", "--bogus"}).status() == 64);
  CHECK(job.launch_plain({"stacks", "0123abcd"}).status() == 66);

  stop_job(job, *bg);
  const Outcome after = job.launch_plain({"stacks"});
  CHECK(after.status() == 66);
  CHECK(after.err.find("no running job of yours") != std::string::npos);
}

// A program rebuilt (or an interpreter upgraded) while its ranks run: /proc/PID/exe ends
// " (deleted)", and gdb 13 then loads no executable at all (every frame '??'). The agent gives
// it the running file from /proc (issue 25).
TEST_CASE("stacks: a program replaced on disk while its ranks run keeps its function names") {
  Job job;
  job.extra_env = {"MPILAUNCH_STACK_TOOL=gdb"};
  const std::string program = job.dir().file("deadlock_copy");
  std::filesystem::copy_file(app("deadlock"), program);
  auto bg = start_deadlock(job, {"--launcher=local"}, program, 2);
  std::filesystem::remove(program);  // as a linker's new output does: the running file stays
  const Outcome o = job.launch_plain({"stacks", "--json"}, Millis{60'000});
  CAPTURE(o.err);
  REQUIRE(o.status() == 0);
  const Json stacks = Json::parse(o.out)["stacks"];
  CAPTURE(stacks.dump(1));
  if (attach_denied(stacks)) return stop_job(job, *bg);
  for (const Json& r : stacks["ranks"]) {
    CHECK(r.value("tool", "") == "gdb");
    // gdb's attach can take seconds each on a loaded machine: a miss of the agents' deadline,
    // said as such, is no failure.
    const std::string note = r.value("note", "");
    if (note.find("did not answer") == std::string::npos) continue;
    MESSAGE("skipped: gdb missed the agents' deadline on this loaded machine: ", note);
    return stop_job(job, *bg);
  }
  // Two groups of one rank each, in either order.
  REQUIRE(stacks["groups"].size() == 2);
  std::map<int, Json> path_of;
  for (const Json& g : stacks["groups"]) path_of[g["ranks"][0].get<int>()] = g["path"];
  CHECK(path_of[0] == Json::array({"main", "MPI_Barrier"}));
  CHECK(path_of[1] == Json::array({"main", "wait_for_message", "MPI_Recv"}));
  stop_job(job, *bg);
}

}  // namespace mpilaunch::e2e

namespace mpilaunch::e2e {
namespace {

// An mpi4py program: the last rank waits in read_input() (time.sleep), outside MPI, while the
// others wait in comm.barrier() for it. Each says ready just before it blocks.
constexpr const char* kPythonHang = R"(import time
from mpi4py import MPI


def read_input():
    time.sleep(3600)


def main():
    comm = MPI.COMM_WORLD
    print("ready", flush=True)
    if comm.Get_rank() == comm.Get_size() - 1:
        read_input()
    comm.barrier()


main()
)";

// What gdb itself says, without mpilaunch, of /usr/bin/python3's Python frames: it runs the
// interpreter to a breakpoint in time.sleep called from a function and asks py-bt there. True
// when py-bt prints the function's frame, false when it says it cannot read the frames (Python
// 3.13's release build, Debian 13: the frame is optimized out), nothing when gdb gave neither.
std::optional<bool> gdb_reads_python_frames() {
  Command gdb;
  gdb.argv = {"/usr/bin/gdb", "--nx",
              "--batch",      "-q",
              "-iex",         "set auto-load safe-path /usr/share/gdb/auto-load",
              "-iex",         "add-auto-load-scripts-directory /usr/share/gdb/auto-load",
              "-ex",          "set breakpoint pending on",
              "-ex",          "break time_sleep",
              "-ex",          "run",
              "-ex",          "py-bt",
              "-ex",          "kill",
              "--args",       "/usr/bin/python3",
              "-c",           "import time\ndef waits(): time.sleep(0)\nwaits()\n"};
  gdb.env = clean_environment({});
  gdb.deadline = Millis{120'000};
  const Outcome o = run(gdb);
  CAPTURE(o.summary());
  if (o.out.find("line 2, in waits") != std::string::npos) return true;
  if (o.out.find("unable to read python frame information") != std::string::npos) return false;
  MESSAGE("gdb's own py-bt gave no answer: ", o.out);
  return std::nullopt;
}

// The group of `stacks` that holds rank `rank` (an empty object when none does).
Json group_of(const Json& stacks, int rank) {
  for (const Json& g : stacks["groups"])
    if (g["ranks"] == Json::array({rank})) return g;
  return Json::object();
}

// Whether every rank of `stacks` has Python frames: gdb's py-bt may miss the agents' deadline
// on a loaded machine, with its symbols not yet in the page cache.
bool all_python(const Json& stacks) {
  for (const Json& r : stacks["ranks"])
    if (!r.contains("python_frames")) return false;
  return true;
}

}  // namespace

TEST_CASE("stacks: Python ranks (mpi4py) show their Python frames next to the native ones") {
  Job job;
  const std::string program = job.dir().file("hang.py");
  write_file(program, kPythonHang);
  // Debian's interpreter: its gdb extension comes with python3-dbg (tools/bootstrap).
  const std::vector<std::string> args = {"--events",
                                         job.events_path(),
                                         "--launcher=local",
                                         "-H",
                                         "node1:1,node2:1",
                                         "-n",
                                         "2",
                                         "--timeout",
                                         "300",
                                         "/usr/bin/python3",
                                         program};
  auto bg = std::make_unique<Background>(job.command(args, Millis{300'000}), job.dir().file("out"),
                                         job.dir().file("err"));
  REQUIRE_MESSAGE(
      eventually([&] { return count_of(read_file(job.dir().file("out")), "ready\n") == 2; },
                 Millis{60'000}),
      "the ranks never became ready: ", read_file(job.dir().file("err")));
  // A rank says ready just before it blocks, and py-bt may miss the deadline the first time:
  // asked again until both ranks are where they block (a few times at most).
  Json stacks;
  bool found = false;
  for (int ask = 0; ask < 6 && !found; ++ask) {
    const Outcome o = job.launch_plain({"stacks", "--json"}, Millis{60'000});
    CAPTURE(o.err);
    REQUIRE(o.status() == 0);
    stacks = Json::parse(o.out)["stacks"];
    if (attach_denied(stacks)) return stop_job(job, *bg);
    found = all_python(stacks) && stacks["groups"].size() == 2 &&
            group_of(stacks, 1).value("python_path", Json::array()).size() == 4;
  }
  CAPTURE(stacks.dump(1));
  if (!found) {
    // gdb is slow to read the interpreter's and Open MPI's symbols (about 1.3 s of CPU per
    // rank): on a machine loaded with other work it can miss the agents' 10 s every time. That
    // alone, said as such by the note, is no failure; any other outcome is.
    for (const Json& r : stacks["ranks"]) {
      const std::string note = r.value("python_note", "");
      if (note.find("did not answer") == std::string::npos) continue;
      MESSAGE("skipped: gdb's py-bt missed the agents' deadline on this loaded machine: ", note);
      return stop_job(job, *bg);
    }
    // The agents say that gdb cannot read the interpreter's frames: accepted only when gdb,
    // asked directly, cannot either (Debian 13's Python 3.13); never where it can (Debian 12).
    for (const Json& r : stacks["ranks"]) {
      const std::string note = r.value("python_note", "");
      if (note.find("gdb cannot read /usr/bin/python3") == std::string::npos) continue;
      if (gdb_reads_python_frames() != false) break;
      CHECK(r.value("python_frames", Json::array()).empty());
      MESSAGE("skipped: gdb reads no Python frame of this interpreter: ", note);
      return stop_job(job, *bg);
    }
  }
  REQUIRE(found);
  // Rank 1 in read_input's sleep, rank 0 in the barrier (main's line, the native MPI call).
  const Json sleeper = group_of(stacks, 1), waiter = group_of(stacks, 0);
  CHECK(sleeper["python_path"] == Json::array({"<module>", "main", "read_input", "sleep"}));
  CHECK(waiter["python_path"] == Json::array({"<module>", "main"}));
  CHECK(waiter["path"].back() == "MPI_Barrier");
  // The tree names the tool and prints the Python frames after the native ones.
  const Outcome o = job.launch_plain({"stacks"}, Millis{60'000});
  CHECK(o.status() == 0);
  CHECK(o.out.find("gdb py-bt") != std::string::npos);
  if (o.out.find("[python: <module> > main > read_input > sleep]") == std::string::npos)
    MESSAGE("the tree (py-bt may have missed the deadline this time):\n", o.out);
  stop_job(job, *bg);
}

}  // namespace mpilaunch::e2e
