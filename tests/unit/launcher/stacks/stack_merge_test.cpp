// Stack parsing and the merge, on gdb, eu-stack and Open MPI 4 dump text saved from real runs
// of a deadlocking Open MPI 4.1 program (tests/data/stacks/, README there says how).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "launcher/stacks/call_path.hpp"
#include "launcher/stacks/ompi_stack_dump.hpp"
#include "launcher/stacks/stack_merge.hpp"
#include "launcher/stacks/stack_text.hpp"
#include "launcher/stacks/straggler.hpp"

#ifndef MPILAUNCH_TEST_DATA_DIR
#error "tests/meson.build passes MPILAUNCH_TEST_DATA_DIR"
#endif

using namespace mpilaunch::launcher;
using Path = std::vector<std::string>;

namespace {

std::string data(const char* name) {
  std::ifstream in(std::filesystem::path(MPILAUNCH_TEST_DATA_DIR) / "stacks" / name,
                   std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Path main_path(const std::vector<ThreadStack>& threads, long pid) {
  const ThreadStack* t = main_thread(threads, pid);
  REQUIRE(t != nullptr);
  return call_path(t->frames);
}

ProcessStack rank_on(int rank, const char* host, const std::string& gdb_text) {
  ProcessStack p;
  p.rank = rank;
  p.host = host;
  p.tool = "gdb";
  p.threads = parse_gdb_stack(gdb_text);
  return p;
}

}  // namespace

TEST_CASE("function names are normalised as a person reads them") {
  const std::pair<const char*, const char*> cases[] = {
      {"__GI___poll", "poll"},
      {"__GI___libc_read", "read"},
      {"__libc_pause", "pause"},
      {"__GI_sched_yield", "sched_yield"},
      {"__sched_yield", "sched_yield"},
      {"__GI___clock_nanosleep", "clock_nanosleep"},
      {"__libc_start_main@@GLIBC_2.34", "__libc_start_main"},
      {"PMPI_Allreduce", "MPI_Allreduce"},
      {"MPI_Barrier", "MPI_Barrier"},
      {"mpi_allreduce_", "MPI_Allreduce"},
      {"pmpi_comm_rank__", "MPI_Comm_rank"},
      {"mpi_send_f08_", "MPI_Send"},
      {"MPI_ALLREDUCE", "MPI_Allreduce"},
      {"solve.constprop.0", "solve"},
      {"kernel.cold", "kernel"},
      {"step [clone .isra.0]", "step"},
      {"ns::Solver::run(int, double*) const", "ns::Solver::run"},
      {"Functor::operator()(int)", "Functor::operator()"},
      {"std::vector<int, std::allocator<int> >::push_back(int const&)",
       "std::vector<int, std::allocator<int> >::push_back"},
      {"??", ""},
      {"", ""},
      {"MPIR_Allreduce_impl", "MPIR_Allreduce_impl"},
      {"__interceptor_read", "read"},
      {"___interceptor_read", "read"},
      {"__interceptor_trampoline_read", "read"},
      {"interceptor_", "interceptor_"},
  };
  for (const auto& [raw, want] : cases) {
    CAPTURE(raw);
    CHECK(normalise_function(raw) == want);
  }
  CHECK(is_mpi_call("MPI_Recv"));
  CHECK(is_mpi_call("MPI_Comm_rank"));
  CHECK_FALSE(is_mpi_call("MPIR_Allreduce_impl"));
  CHECK_FALSE(is_mpi_call("MPID_Progress_wait"));
  CHECK_FALSE(is_mpi_call("main"));
}

TEST_CASE("a call path drops start-up, unknown and inlined frames and stops at the MPI call") {
  CHECK(call_path({"__GI_sched_yield", "mca_pml_ob1_recv", "ompi_coll_base_allreduce_intra",
                   "PMPI_Allreduce", "solve", "main", "__libc_start_call_main",
                   "__libc_start_main@@GLIBC_2.34", "_start"}) ==
        Path{"main", "solve", "MPI_Allreduce"});
  CHECK(call_path({"__GI___libc_read", "__GI___libc_read", "read_input", "main"}) ==
        Path{"main", "read_input", "read"});
  // The same program built with AddressSanitizer: its read goes through the interceptor.
  CHECK(call_path({"__GI___libc_read", "__interceptor_read", "read_input", "main"}) ==
        Path{"main", "read_input", "read"});
  CHECK(call_path({"epoll_wait", "??", "event_base_loop", "??", "start_thread", "clone3"}) ==
        Path{"event_base_loop", "epoll_wait"});
  CHECK(call_path({"??", "??"}).empty());
  CHECK(join_path({"main", "solve", "MPI_Allreduce"}) == "main > solve > MPI_Allreduce");
}

TEST_CASE("gdb's thread apply all bt: threads, their ids and the main thread") {
  const std::vector<ThreadStack> threads = parse_gdb_stack(data("gdb_recv.txt"));
  REQUIRE(threads.size() == 3);
  CHECK(threads[0].number == 3);
  CHECK(threads[0].lwp == 17673);
  CHECK(threads[2].number == 1);
  CHECK(threads[2].lwp == 17667);
  CHECK(threads[2].frames.front() == "__GI_sched_yield");
  CHECK(main_path(threads, 17667) == Path{"main", "wait_for_message", "MPI_Recv"});
  CHECK(main_path(threads, 0) == Path{"main", "wait_for_message", "MPI_Recv"});  // "Thread 1"
  CHECK(main_path(parse_gdb_stack(data("gdb_barrier.txt")), 17666) == Path{"main", "MPI_Barrier"});
}

TEST_CASE("gdb with several inferiors numbers threads inferior.thread") {
  const std::vector<ThreadStack> threads = parse_gdb_stack(
      "Thread 2.2 (Thread 0x7f (LWP 31) \"a\"):\n#0  0x1 in poll ()\n"
      "Thread 2.1 (Thread 0x7e (LWP 30) \"a\"):\n#0  0x1 in pause ()\n"
      "#1  0x2 in main ()\n");
  REQUIRE(threads.size() == 2);
  CHECK(threads[1].number == 1);
  CHECK(main_path(threads, 0) == Path{"main", "pause"});
}

TEST_CASE("a program without debug symbols groups by the names it has") {
  CHECK(main_path(parse_gdb_stack(data("gdb_init_waiter_nodebug.txt")), 17840) ==
        Path{"main", "MPI_Init"});
  CHECK(main_path(parse_eu_stack(data("eu_init_odd_nodebug.txt")), 17841) == Path{"main", "pause"});
}

TEST_CASE("eu-stack's text gives the same call paths as gdb's") {
  const std::vector<ThreadStack> threads = parse_eu_stack(data("eu_recv.txt"));
  REQUIRE(threads.size() == 3);
  CHECK(threads[0].lwp == 17667);
  CHECK(threads[1].frames[1].empty());  // a frame eu-stack could not name
  CHECK(main_path(threads, 17667) == main_path(parse_gdb_stack(data("gdb_recv.txt")), 17667));
  CHECK(main_path(parse_eu_stack(data("eu_barrier.txt")), 17666) ==
        main_path(parse_gdb_stack(data("gdb_barrier.txt")), 17666));
}

TEST_CASE("text that is not a stack gives no threads, and a huge one stays bounded") {
  CHECK(parse_gdb_stack("").empty());
  CHECK(parse_gdb_stack("No symbol table is loaded.\nptrace: Operation not permitted.\n").empty());
  CHECK(
      parse_eu_stack("eu-stack: dwfl_linux_proc_attach pid 1: Operation not permitted\n").empty());
  std::string deep = "Thread 1 (LWP 5):\n";
  for (int i = 0; i < 1000; ++i) deep += "#" + std::to_string(i) + "  0x1 in recurse () at r.c:1\n";
  CHECK(parse_gdb_stack(deep).front().frames.size() == kMaxFrames);
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "TID " + std::to_string(i + 1) + ":\n#0  0x1 f\n";
  CHECK(parse_eu_stack(many).size() <= kMaxThreads);
}

TEST_CASE(
    "a rank without a stack gets a typed reason from its node's note or its tool's complaint") {
  struct Case {
    std::string tool, text, note;
    StackReason reason;
    std::string_view name;
  };
  const std::vector<Case> cases = {
      {"", "", "neither gdb nor eu-stack is installed on n1", StackReason::NoTool, "no-tool"},
      {"gdb", "", "did not answer within 10 s", StackReason::NoAnswer, "no-answer"},
      {"gdb", "ptrace: Operation not permitted.\n", "", StackReason::AttachDenied, "attach-denied"},
      {"gdb",
       "Could not attach to process.  If your uid matches the uid of the target\n"
       "ptrace: Operation not permitted.\n",
       "", StackReason::AttachDenied, "attach-denied"},
      {"eu-stack", "eu-stack: dwfl_linux_proc_attach pid 12: Operation not permitted\n", "",
       StackReason::AttachDenied, "attach-denied"},
      {"eu-stack", "eu-stack: dwfl_linux_proc_report pid 12: Permission denied\n", "",
       StackReason::AttachDenied, "attach-denied"},
      {"gdb", "ptrace: No such process.\n", "", StackReason::ProcessGone, "process-gone"},
      {"eu-stack", "eu-stack: dwfl_linux_proc_report pid 12: No such file or directory\n", "",
       StackReason::ProcessGone, "process-gone"},
      {"gdb", "The program is not being run.\n", "", StackReason::NoFrames, "no-frames"},
      {"gdb", data("gdb_recv.txt"), "", StackReason::None, ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const ProcessStack p = process_stack(0, "n1", 12, c.tool, c.text, c.note);
    CHECK(p.reason == c.reason);
    CHECK(reason_name(p.reason) == c.name);
    CHECK(p.note.empty() == (c.reason == StackReason::None));
  }
  const nlohmann::json j =
      stacks_to_json({process_stack(0, "n1", 12, "gdb", "ptrace: Operation not permitted.\n", "")});
  CHECK(j["ranks"][0]["reason"] == "attach-denied");
  CHECK(j["groups"][0]["reason"] == "attach-denied");
  CHECK(j["groups"][0]["note"] == "ptrace: Operation not permitted.");
}

TEST_CASE("rank ranges") {
  CHECK(rank_ranges({0, 1, 2, 4, 5, 6, 7}) == "0-2,4-7");
  CHECK(rank_ranges({3}) == "3");
  CHECK(rank_ranges({0, 2, 4}) == "0,2,4");
  CHECK(rank_ranges({}).empty());
}

TEST_CASE("the merge groups equal stacks, the odd one out first, and names it") {
  const std::string barrier = data("gdb_barrier.txt");
  std::vector<ProcessStack> stacks;
  for (int r : {0, 2, 3}) stacks.push_back(rank_on(r, r < 2 ? "node1" : "node2", barrier));
  stacks.push_back(rank_on(1, "node1", data("gdb_recv.txt")));
  ProcessStack silent;
  silent.rank = 4;
  silent.host = "node2";
  silent.note = "did not answer within 5 s";
  stacks.push_back(silent);

  const std::vector<StackGroup> groups = merge_stacks(stacks);
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].ranks == std::vector<int>{1});
  CHECK(groups[0].path == Path{"main", "wait_for_message", "MPI_Recv"});
  CHECK(groups[1].ranks == std::vector<int>{4});
  CHECK(groups[2].ranks == std::vector<int>{0, 2, 3});
  CHECK(groups[2].hosts == std::vector<std::string>{"node1", "node2"});
  CHECK(render_stack_tree(stacks) ==
        "stacks of 5 ranks (gdb; main threads, calls into MPI shown as the MPI call, the odd "
        "ones first):\n"
        "  rank 1 (1) on node1: main > wait_for_message > MPI_Recv\n"
        "  rank 4 (1) on node2: (did not answer within 5 s)\n"
        "  ranks 0,2-3 (3) on node1,node2: main > MPI_Barrier\n");
  const std::vector<StackGroup> odd = stragglers(groups);
  REQUIRE(odd.size() == 2);
  CHECK(odd[0].ranks == std::vector<int>{1});

  const nlohmann::json j = stacks_to_json(stacks);
  CHECK(j["groups"][0]["ranks_text"] == "1");
  CHECK(j["groups"][0]["path"].back() == "MPI_Recv");
  CHECK(j["groups"][1]["note"] == "did not answer within 5 s");
  CHECK(j["groups"][1]["reason"] == "no-frames");  // a note set by hand has no type
  CHECK(j["ranks"].size() == 5);
  CHECK(j["ranks"][0]["raw"].get<std::string>().empty());  // built from parsed threads here
}

TEST_CASE("a spawned job's processes group apart from the initial ranks and are named by job") {
  const std::string barrier = data("gdb_barrier.txt");
  std::vector<ProcessStack> stacks;
  for (int r : {0, 1, 2}) stacks.push_back(rank_on(r, "n", barrier));
  for (int r : {0, 1}) {
    stacks.push_back(rank_on(r, "n", barrier));  // the same place, in job 2
    stacks.back().job = 2;
  }
  stacks.back().python_note = "no gdb";
  const std::vector<StackGroup> groups = merge_stacks(stacks);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].job == 2);
  CHECK(groups[0].ranks == std::vector<int>{0, 1});
  CHECK(groups[1].job == 1);
  CHECK(groups[1].ranks == std::vector<int>{0, 1, 2});
  CHECK(render_stack_tree(stacks) ==
        "stacks of 5 ranks (gdb; main threads, calls into MPI shown as the MPI call, the odd "
        "ones first):\n"
        "  job 2 ranks 0-1 (2): main > MPI_Barrier\n"
        "  ranks 0-2 (3): main > MPI_Barrier\n"
        "  job 2 rank 1: no gdb\n");
  CHECK(describe_stragglers(stacks) == "job 2 ranks 0-1 on n in main > MPI_Barrier");
  mpilaunch::Error timeout;
  name_stragglers(timeout, stacks);
  CHECK(!timeout.rank.has_value());  // Error::rank names an initial rank only
  const nlohmann::json j = stacks_to_json(stacks);
  CHECK(j["groups"][0]["job"] == 2);
  CHECK(!j["groups"][1].contains("job"));
  CHECK(j["ranks"][3]["job"] == 2);
  CHECK(!j["ranks"][0].contains("job"));
  CHECK(ranks_label(3, {4}) == "job 3 rank 4");
}

TEST_CASE("no straggler when the largest group is not alone") {
  std::vector<ProcessStack> stacks;
  stacks.push_back(rank_on(0, "n", data("gdb_barrier.txt")));
  stacks.push_back(rank_on(1, "n", data("gdb_recv.txt")));
  CHECK(stragglers(merge_stacks(stacks)).empty());
  CHECK(stragglers(merge_stacks({stacks[0]})).empty());
}

TEST_CASE("Open MPI 4's --get-stack-traces dump gives the same merged tree") {
  OmpiStackDump dump;
  const std::string text = data("ompi_dump.txt");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) dump.feed(line);
  const std::vector<ProcessStack> stacks = dump.finish();
  REQUIRE(stacks.size() == 3);
  CHECK(stacks[1].rank == 1);
  CHECK(stacks[1].host == "vm");
  CHECK(stacks[1].pid == 16881);
  CHECK(stacks[1].threads.size() == 3);
  CHECK(render_stack_tree(stacks) ==
        "stacks of 3 ranks (gstack; main threads, calls into MPI shown as the MPI call, the odd "
        "ones first):\n"
        "  rank 1 (1): main > read_input > read\n"
        "  ranks 0,2 (2): main > solve > MPI_Allreduce\n");
}

TEST_CASE("an Open MPI dump without gstack says why for each process") {
  OmpiStackDump dump;
  dump.feed("Waiting for stack traces (this may take a few moments)...");
  dump.feed("STACK TRACE FOR PROC [[11699,1],0] (vm, PID 16721)");
  dump.feed("\tFailed to find \"gstack\" on vm to obtain stack traces");
  dump.feed("STACK TRACE FOR PROC [[11699,1],1] (vm, PID 16722)");
  dump.feed("\tFailed to find \"gstack\" on vm to obtain stack traces");
  dump.feed("ready");
  dump.feed("\t#0  0x1 in not_a_stack_line () at x.c:1");
  dump.feed("STACK TRACE FOR PROC [[broken");
  const std::vector<ProcessStack> stacks = dump.finish();
  REQUIRE(stacks.size() == 2);
  CHECK(stacks[1].note == "Failed to find \"gstack\" on vm to obtain stack traces");
  CHECK(stacks[1].reason == StackReason::NoTool);
  CHECK(render_stack_tree(stacks) ==
        "stacks of 2 ranks (no tool; main threads, calls into MPI shown as the MPI call, the odd "
        "ones first):\n"
        "  ranks 0-1 (2): (Failed to find \"gstack\" on vm to obtain stack traces)\n");
}

TEST_CASE("the timeout error names the straggler rank and where it is") {
  const std::string barrier = data("gdb_barrier.txt");
  std::vector<ProcessStack> stacks;
  for (int r : {0, 1, 2}) stacks.push_back(rank_on(r, r < 2 ? "node1" : "node2", barrier));
  stacks.push_back(rank_on(3, "node2", data("gdb_recv.txt")));
  CHECK(describe_stragglers(stacks) == "rank 3 on node2 in main > wait_for_message > MPI_Recv");

  mpilaunch::Error e{
      .kind = mpilaunch::ErrorKind::Timeout, .phase = "job", .detail = "--timeout 3 s"};
  name_stragglers(e, stacks);
  CHECK(e.detail ==
        "--timeout 3 s; straggler: rank 3 on node2 in main > wait_for_message > MPI_Recv");
  CHECK(e.rank == 3);
  CHECK(e.host == "node2");

  mpilaunch::Error named{.kind = mpilaunch::ErrorKind::Timeout, .rank = 0};
  name_stragglers(named, stacks);
  CHECK(named.rank == 0);  // a rank the error already named stays
  CHECK(named.detail == "straggler: rank 3 on node2 in main > wait_for_message > MPI_Recv");

  stacks.pop_back();  // all alike: nobody stands out, the error is unchanged
  mpilaunch::Error same{.kind = mpilaunch::ErrorKind::Timeout, .detail = "x"};
  name_stragglers(same, stacks);
  CHECK(same.detail == "x");
  CHECK_FALSE(same.rank);
  CHECK(describe_stragglers(stacks).empty());
}

namespace mpilaunch::launcher {

TEST_CASE("Python ranks: py-bt's frames follow the native ones, grouped with them") {
  // The agent's text for a Python rank: the native tool's, then gdb's py-bt (see
  // common/stack_sections.hpp), as recorded from an mpi4py rank in time.sleep.
  const std::string py_bt =
      "[New LWP 16028]\n"
      "0x00007f7b7129d545 in __GI___clock_nanosleep (clock_id=clock_id@entry=1) at x.c:48\n"
      "Traceback (most recent call first):\n"
      "  <built-in method sleep of module object at remote 0x7f7b7111f6a0>\n"
      "  File \"/tmp/hang.py\", line 6, in read_input\n"
      "    time.sleep(3600)\n"
      "  File \"/tmp/hang.py\", line 13, in main\n"
      "    read_input()\n"
      "  File \"/tmp/hang.py\", line 17, in <module>\n"
      "    main()\n"
      "[Inferior 1 (process 16027) detached]\n";
  CHECK(parse_py_bt(py_bt) == std::vector<std::string>{"sleep", "read_input", "main", "<module>"});
  CHECK(parse_py_bt("Unable to locate python frame\n").empty());

  const std::string eu = "TID 7:\n#0  0x1 clock_nanosleep\n#1  0x2 main\n";
  const ProcessStack sleeper =
      process_stack(1, "n2", 7, "eu-stack", eu + "\n@@mpilaunch-python\n" + py_bt, "");
  CHECK(sleeper.python);
  CHECK(sleeper.python_frames.size() == 4);
  CHECK(sleeper.python_note.empty());
  REQUIRE(sleeper.threads.size() == 1);
  CHECK(sleeper.threads[0].frames == std::vector<std::string>{"clock_nanosleep", "main"});
  CHECK(sleeper.note.empty());

  const ProcessStack without = process_stack(
      0, "n1", 8, "eu-stack",
      eu + "\n@@mpilaunch-python-none no Python frames: gdb's extension for /usr/bin/python3.11 "
           "is not installed on n1 (Debian/Ubuntu: apt install python3-dbg)\n",
      "");
  CHECK(without.python);
  CHECK(without.python_frames.empty());
  CHECK(without.python_note ==
        "no Python frames: gdb's extension for /usr/bin/python3.11 is not installed on n1 "
        "(Debian/Ubuntu: apt install python3-dbg)");

  const std::string tree = render_stack_tree({sleeper, without});
  CHECK(tree.find("(eu-stack, gdb py-bt;") != std::string::npos);
  CHECK(tree.find("rank 1 (1) on n2: main > clock_nanosleep [python: <module> > main > "
                  "read_input > sleep]\n") != std::string::npos);
  CHECK(tree.find("  rank 0: no Python frames: gdb's extension") != std::string::npos);
  const nlohmann::json j = stacks_to_json({sleeper, without});
  CHECK(j["groups"].size() == 2);
  CHECK(j["ranks"][0]["python_frames"].size() == 4);
  CHECK(j["ranks"][1].contains("python_note"));
}

}  // namespace mpilaunch::launcher
