#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "agent/stack_tool.hpp"
#include "common/stack_sections.hpp"
#include "launcher/stacks/stack_text.hpp"

#ifndef MPILAUNCH_TEST_DATA_DIR
#error "tests/meson.build passes MPILAUNCH_TEST_DATA_DIR"
#endif

using namespace mpilaunch::agent;

namespace {
// Text saved from a real run (tests/data/stacks/README.md says how).
std::string saved(const char* name) {
  std::ifstream in(std::filesystem::path(MPILAUNCH_TEST_DATA_DIR) / "stacks" / name,
                   std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A debugger command line: where `word` first stands (past the end when it is not there), and
// how often.
struct Argv {
  std::vector<std::string> words;
  std::ptrdiff_t at(const std::string& word) const {
    return std::find(words.begin(), words.end(), word) - words.begin();
  }
  std::ptrdiff_t count(const std::string& word) const {
    return std::count(words.begin(), words.end(), word);
  }
};
}  // namespace

TEST_CASE("one gdb for every rank of the node: an inferior, a marker and a backtrace each") {
  const Argv argv{gdb_stack_argv("/usr/bin/gdb", {{.pid = 11}, {.pid = 22}})};
  REQUIRE(argv.words.size() > 4);
  CHECK(argv.words[0] == "/usr/bin/gdb");
  CHECK(argv.words[2] == "--batch");
  CHECK(argv.at("echo \\n@@mpilaunch-stack 11\\n") < argv.at("attach 11"));
  CHECK(argv.at("attach 11") < argv.at("add-inferior"));
  CHECK(argv.at("add-inferior") < argv.at("inferior 2"));
  CHECK(argv.at("inferior 2") < argv.at("attach 22"));
  CHECK(argv.count("thread apply all bt") == 2);
  CHECK(argv.count("detach") == 2);
  // gdb finds the program by its file name: no `file` command for a program still on disk.
  CHECK(argv.count("file /proc/11/exe") == 0);
  CHECK(argv.count("file /proc/22/exe") == 0);
  CHECK(eu_stack_argv("eu-stack", 7) == std::vector<std::string>{"eu-stack", "-p", "7"});
}

TEST_CASE("a program replaced on disk while it runs: gdb reads the running one from /proc") {
  // What /proc/PID/exe names once the file was removed or replaced (an upgrade, a rebuild).
  const RunningProgram upgraded = running_program("/usr/bin/python3.11 (deleted)");
  CHECK(upgraded.path == "/usr/bin/python3.11");
  CHECK(upgraded.replaced);
  const RunningProgram rebuilt = running_program("/home/u/my app/solver (deleted)");
  CHECK(rebuilt.path == "/home/u/my app/solver");
  CHECK(rebuilt.replaced);
  // Still on disk, including names that only contain the words.
  for (const char* link : {"/usr/bin/python3.11", "/opt/(deleted)/app", "/opt/app (deleted)x",
                           "/opt/app(deleted)", ""}) {
    CAPTURE(link);
    CHECK(running_program(link).path == link);
    CHECK_FALSE(running_program(link).replaced);
  }
  // gdb 13 finds no executable for such a process (no symbols, not even libc's): it is given
  // the running file before the attach, in that rank's own inferior only.
  const Argv argv{gdb_stack_argv("/usr/bin/gdb", {{.pid = 11}, {.pid = 22, .replaced = true}})};
  CHECK(argv.count("file /proc/11/exe") == 0);
  CHECK(argv.count("file /proc/22/exe") == 1);
  CHECK(argv.at("inferior 2") < argv.at("file /proc/22/exe"));
  CHECK(argv.at("file /proc/22/exe") < argv.at("attach 22"));
  CHECK(argv.count("thread apply all bt") == 2);
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
  // The pid is the number that starts the marker's line; no number (or one too large) ends
  // the cutting there, sections before it kept.
  CHECK(split_gdb_output("@@mpilaunch-stack 7 (rank 0)\nbody\n", true) ==
        std::map<long, std::string>{{7, "body\n"}});
  CHECK(split_gdb_output("@@mpilaunch-stack 7\na\n@@mpilaunch-stack x\nb\n", true) ==
        std::map<long, std::string>{{7, "a\n"}});
  CHECK(split_gdb_output("@@mpilaunch-stack 99999999999999999999\nb\n", true).empty());
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
  // Replaced on disk since the rank started: that is the likelier reason, and is said.
  CHECK(unreadable_python_frames_note("node2", "/usr/bin/python3.11", true) ==
        "no Python frames: gdb cannot read the frames on node2 of /usr/bin/python3.11, which was "
        "replaced on disk since the rank started (an upgrade?): the running interpreter's debug "
        "symbols may have gone with it; ranks started since have them");
}

TEST_CASE("Python ranks: an interpreter is recognised from its /proc/PID/exe") {
  // Upgraded while the rank runs: still an interpreter, under the name it had (issue 25).
  CHECK(is_python_interpreter(running_program("/usr/bin/python3.11 (deleted)").path));
  CHECK_FALSE(is_python_interpreter("/usr/bin/python3.11 (deleted)"));
  // What /proc/PID/exe names (links resolved): Debian's python3 and python3-dbg
  // (python3-dbg -> python3.11-dbg -> python3.11d), pyenv's, conda's, a bare name.
  for (const char* exe :
       {"/usr/bin/python3.11", "/usr/bin/python3.11d", "/usr/bin/python3", "/usr/bin/python",
        "/root/.pyenv/versions/3.12.1/bin/python3.12", "/opt/conda/bin/python3.10", "python3.13"}) {
    CAPTURE(exe);
    CHECK(is_python_interpreter(exe));
  }
  // Other programs, and names that only start like one: PyPy (no py-bt), the -config
  // scripts, a program in a folder named python, a program called pythonic.
  for (const char* exe : {"/usr/bin/pypy3", "/usr/bin/python3.11-config", "/usr/lib/python3/app",
                          "/opt/bin/pythonic", "/usr/bin/bash", "./hello", ""}) {
    CAPTURE(exe);
    CHECK_FALSE(is_python_interpreter(exe));
  }
}

TEST_CASE("Python ranks: the gdb extension Debian's -dbg package installs for the interpreter") {
  // Both exist on Debian 12 with python3.11-dbg installed.
  CHECK(python_gdb_extension("/usr/bin/python3.11") ==
        "/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py");
  CHECK(python_gdb_extension("/usr/bin/python3.11d") ==
        "/usr/share/gdb/auto-load/usr/bin/python3.11d-gdb.py");
  // pyenv's interpreter has none there: the rank gets the note instead.
  CHECK(python_gdb_extension("/root/.pyenv/versions/3.11.7/bin/python3.11") ==
        "/usr/share/gdb/auto-load/root/.pyenv/versions/3.11.7/bin/python3.11-gdb.py");
}

TEST_CASE("Python ranks: one gdb runs py-bt in each, with the extensions' directory trusted") {
  const Argv argv{gdb_python_argv("/usr/bin/gdb", {{.pid = 11}, {.pid = 22}})};
  REQUIRE(argv.words.size() > 4);
  CHECK(argv.words[0] == "/usr/bin/gdb");
  CHECK(argv.words[2] == "--batch");
  // The native run turns auto-load off; this one loads the extensions from Debian's directory
  // only, before any process is attached.
  CHECK(argv.count("set auto-load off") == 0);
  CHECK(argv.at("set auto-load safe-path /usr/share/gdb/auto-load") < argv.at("attach 11"));
  CHECK(argv.at("add-auto-load-scripts-directory /usr/share/gdb/auto-load") < argv.at("attach 11"));
  CHECK(argv.at("echo \\n@@mpilaunch-stack 11\\n") < argv.at("attach 11"));
  CHECK(argv.at("attach 11") < argv.at("inferior 2"));
  CHECK(argv.at("inferior 2") < argv.at("attach 22"));
  CHECK(argv.count("py-bt") == 2);
  CHECK(argv.count("thread apply all bt") == 0);
  CHECK(argv.count("detach") == 2);
  CHECK(argv.count("file /proc/22/exe") == 0);
  // An interpreter upgraded while the rank runs: the running file from /proc, and its
  // extension loaded by hand after the attach (auto-load goes by the file's name, which
  // /proc/PID/exe is not), before py-bt.
  const std::string extension = "/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py";
  const Argv upgraded{gdb_python_argv(
      "/usr/bin/gdb", {{.pid = 11}, {.pid = 22, .replaced = true, .extension = extension}})};
  CHECK(upgraded.count("file /proc/11/exe") == 0);
  CHECK(upgraded.count("source " + extension) == 1);
  CHECK(upgraded.at("inferior 2") < upgraded.at("file /proc/22/exe"));
  CHECK(upgraded.at("file /proc/22/exe") < upgraded.at("attach 22"));
  CHECK(upgraded.at("attach 22") < upgraded.at("source " + extension));
  CHECK(upgraded.count("py-bt") == 2);
  CHECK(upgraded.words.back() == "detach");
  CHECK(upgraded.words[upgraded.words.size() - 3] == "py-bt");
}

TEST_CASE("Python ranks: the notes say why there are no Python frames, and what to install") {
  CHECK(no_python_frames_note("node2", false, "/usr/bin/python3.11") ==
        "no Python frames: gdb is not installed on node2 (Debian/Ubuntu: apt install gdb "
        "python3-dbg)");
  CHECK(no_python_frames_note("node2", true, "/root/.pyenv/versions/3.11.7/bin/python3.11") ==
        "no Python frames: gdb's extension for /root/.pyenv/versions/3.11.7/bin/python3.11 is "
        "not installed on node2 (Debian/Ubuntu: apt install python3-dbg)");
}

TEST_CASE("Python ranks: gdb's py-bt output from a real run, cut per rank and read back") {
  const std::string out = saved("gdb_py_bt.txt");
  // Cut as the agent cuts it: the last section only once gdb has finished.
  CHECK(split_gdb_output(out, false).size() == 2);
  const std::map<long, std::string> texts = split_gdb_output(out, true);
  REQUIRE(texts.size() == 3);
  CHECK(texts.at(13894).starts_with("[Thread debugging using libthread_db enabled]\n"));
  CHECK(texts.at(13894).find("[Inferior 1 (process 13894) detached]") != std::string::npos);
  CHECK(texts.at(13894).find("13895") == std::string::npos);
  CHECK(texts.at(999999).starts_with("ptrace: No such process.\n"));
  CHECK(texts.at(13895).find("[Inferior 3 (process 13895) detached]") != std::string::npos);
  // Real frames, read: not taken for Debian 13's unreadable ones.
  CHECK_FALSE(python_frames_unreadable(texts.at(13894)));
  CHECK_FALSE(python_frames_unreadable(texts.at(13895)));

  // What the launcher makes of each rank's text (the native text, then the Python section).
  using mpilaunch::launcher::process_stack;
  using mpilaunch::launcher::ProcessStack;
  const auto python_rank = [&](int rank, long pid) {
    return process_stack(rank, "n1", pid, "gdb",
                         "Thread 1 (LWP " + std::to_string(pid) + "):\n#0  0x1 in pause ()\n\n" +
                             std::string(mpilaunch::kPythonSection) + "\n" + texts.at(pid),
                         "");
  };
  const ProcessStack sleeper = python_rank(0, 13894);
  CHECK(sleeper.python);
  CHECK(sleeper.python_frames ==
        std::vector<std::string>{"sleep", "read_input", "main", "<module>"});
  CHECK(sleeper.python_note.empty());
  const ProcessStack poller = python_rank(1, 13895);
  CHECK(poller.python_frames ==
        std::vector<std::string>{"select", "poll_peers", "run", "<module>"});
  // A process gone before gdb reached it: no frames, and the launcher says so.
  const ProcessStack gone = python_rank(2, 999999);
  CHECK(gone.python);
  CHECK(gone.python_frames.empty());
  CHECK(gone.python_note == "no Python frames: gdb's py-bt found none");
}
