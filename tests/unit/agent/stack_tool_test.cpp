#include <doctest/doctest.h>

#include <algorithm>

#include "agent/stack_tool.hpp"

using namespace mpilaunch::agent;

TEST_CASE("one gdb for every rank of the node: an inferior, a marker and a backtrace each") {
  const std::vector<std::string> argv = gdb_stack_argv("/usr/bin/gdb", {11, 22});
  REQUIRE(argv.size() > 4);
  CHECK(argv[0] == "/usr/bin/gdb");
  CHECK(argv[2] == "--batch");
  const auto at = [&](const std::string& s) {
    return std::find(argv.begin(), argv.end(), s) - argv.begin();
  };
  CHECK(at("echo \\n@@mpilaunch-stack 11\\n") < at("attach 11"));
  CHECK(at("attach 11") < at("add-inferior"));
  CHECK(at("add-inferior") < at("inferior 2"));
  CHECK(at("inferior 2") < at("attach 22"));
  CHECK(std::count(argv.begin(), argv.end(), "thread apply all bt") == 2);
  CHECK(std::count(argv.begin(), argv.end(), "detach") == 2);
  CHECK(eu_stack_argv("eu-stack", 7) == std::vector<std::string>{"eu-stack", "-p", "7"});
}

TEST_CASE("gdb's output is cut at the markers, an unfinished section left out") {
  const std::string out =
      "\n@@mpilaunch-stack 11\n"
      "Thread 1 (LWP 11):\n#0  0x1 in pause ()\n"
      "[Inferior 1 (process 11) detached]\n"
      "\n@@mpilaunch-stack 999\n"
      "ptrace: No such process.\n"
      "\n@@mpilaunch-stack 22\n"
      "Thread 2.1 (LWP 22):\n#0  0x1 in poll ()\n";
  std::map<long, std::string> texts = split_gdb_output(out, false);
  REQUIRE(texts.size() == 2);
  CHECK(texts[11] ==
        "Thread 1 (LWP 11):\n#0  0x1 in pause ()\n[Inferior 1 (process 11) detached]\n\n");
  CHECK(texts[999] == "ptrace: No such process.\n\n");
  texts = split_gdb_output(out, true);
  REQUIRE(texts.size() == 3);
  CHECK(texts[22] == "Thread 2.1 (LWP 22):\n#0  0x1 in poll ()\n");
  CHECK(split_gdb_output("gdb: unrecognized option\n", true).empty());
  CHECK(split_gdb_output("@@mpilaunch-stack 5", true).empty());  // no end of line yet
}

TEST_CASE("a section is cut to the per-rank limit") {
  const std::string out = "@@mpilaunch-stack 3\n" + std::string(kMaxStackText * 2, 'x');
  CHECK(split_gdb_output(out, true).at(3).size() == kMaxStackText);
}

TEST_CASE("the notes say what to install and how long was waited") {
  CHECK(no_stack_tool_note("node2").find("on node2 (Debian/Ubuntu: apt install gdb") !=
        std::string::npos);
  CHECK(no_answer_note(5) == "did not answer within 5 s");
  CHECK(no_answer_note(2.5) == "did not answer within 2.5 s");
}

TEST_CASE("py-bt that reads no Python frame is told apart from one that does") {
  // gdb 16 + Python 3.13.5 (Debian 13), a release interpreter in time.sleep called from f().
  const char* unreadable =
      "Traceback (most recent call first):\n"
      "  <built-in method sleep of module object at remote 0x7fd8f0680540>\n"
      "  (unable to read python frame information)\n";
  CHECK(python_frames_unreadable(unreadable));
  // The same under python3.13d: the frames are there.
  const char* readable =
      "Traceback (most recent call first):\n"
      "  <built-in method sleep of module object at remote 0x7f920a00b470>\n"
      "  File \"<string>\", line 2, in f\n"
      "  File \"<string>\", line 3, in <module>\n";
  CHECK_FALSE(python_frames_unreadable(readable));
  // Some frames read, one not: the frames that were read are kept.
  CHECK_FALSE(python_frames_unreadable(std::string(readable) +
                                       "  (unable to read python frame information)\n"));
  CHECK_FALSE(python_frames_unreadable(""));
  CHECK(unreadable_python_frames_note("node2", "/usr/bin/python3.13") ==
        "no Python frames: gdb cannot read /usr/bin/python3.13's frames on node2 (optimized out "
        "in this release build; its debug build, e.g. python3-dbg's python3.13d, keeps them)");
}
