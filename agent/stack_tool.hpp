#pragma once
/// How the agent asks a debugger for its ranks' stacks: eu-stack once per rank, or one gdb in
/// batch mode for every local rank (one inferior each, a marker line before each); and how
/// gdb's one output is cut back into one text per rank. Pure.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch::agent {

/// The line gdb echoes before each process's stack: the marker, then the pid.
inline constexpr std::string_view kStackMarker = "@@mpilaunch-stack ";
/// At most this much of a tool's text is kept per rank.
inline constexpr std::size_t kMaxStackText = 64 * 1024;

/// A process's program, as its /proc/PID/exe link names it.
struct RunningProgram {
  std::string path;  // the link, without the suffix below
  /// The link ends " (deleted)": the file was removed or replaced on disk since the process
  /// started (an upgrade of the interpreter, a rebuild of the program); `path` is its old name.
  bool replaced = false;
};
RunningProgram running_program(std::string_view exe_link);

/// A process for gdb to attach to.
struct GdbTarget {
  long pid = 0;
  /// Its program was replaced on disk (RunningProgram::replaced). gdb 13 then finds no
  /// executable at all (no symbols, not even libc's): it is given /proc/PID/exe, the running
  /// file, before the attach.
  bool replaced = false;
  /// py-bt only: a replaced interpreter's gdb extension, loaded by hand after the attach
  /// (auto-load goes by the program's file name, which /proc/PID/exe is not).
  std::string extension;
};

/// gdb --batch attaching to each target in turn (a fresh inferior each, so ranks of different
/// programs get their own symbols), printing every thread's backtrace, detaching.
std::vector<std::string> gdb_stack_argv(const std::string& gdb,
                                        const std::vector<GdbTarget>& targets);

/// eu-stack -p PID.
std::vector<std::string> eu_stack_argv(const std::string& eu_stack, long pid);

/// gdb's output cut at the markers: pid -> its text (each cut to kMaxStackText). A section is
/// complete when another marker follows it or `tool_finished`; incomplete ones are left out.
std::map<long, std::string> split_gdb_output(std::string_view out, bool tool_finished);

/// gdb --batch with the interpreters' gdb extensions (pythonX.Y-dbg's auto-load scripts under
/// /usr/share/gdb/auto-load) loaded, attaching to each target in turn for py-bt: the Python
/// traceback of the main thread.
std::vector<std::string> gdb_python_argv(const std::string& gdb,
                                         const std::vector<GdbTarget>& targets);

/// Whether `exe` (a rank's /proc/PID/exe) is a Python interpreter: python, python3, python3.11.
bool is_python_interpreter(std::string_view exe);

/// The gdb extension Debian's pythonX.Y-dbg installs for the interpreter `exe`
/// (/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py).
std::string python_gdb_extension(std::string_view exe);

/// Why a Python rank has no Python frames, in one line: no gdb, or no extension for `exe`.
std::string no_python_frames_note(const std::string& host, bool gdb_found, std::string_view exe);

/// Whether gdb's py-bt text shows that gdb found the interpreter but could read none of its
/// Python frames: no `File "..."` line, and libpython's "unable to read python frame
/// information". Python 3.13's release interpreter (Debian 13) does this: its debug symbols
/// are installed, but _PyEval_EvalFrameDefault's frame is optimized out where it waits.
bool python_frames_unreadable(std::string_view py_bt);

/// Why such a rank has no Python frames, in one line, with what gives them. `replaced`: the
/// interpreter was replaced on disk since the rank started (RunningProgram::replaced).
std::string unreadable_python_frames_note(const std::string& host, std::string_view exe,
                                          bool replaced = false);

/// Why a rank has no stack when no tool is installed on `host`, with the packages to install.
std::string no_stack_tool_note(const std::string& host);

/// Why a rank has no stack when the tool did not finish with it in time.
std::string no_answer_note(double seconds);

}  // namespace mpilaunch::agent
