#pragma once
/// A process's stack as a debugger printed it: gdb's `thread apply all bt` in batch mode and
/// elfutils' `eu-stack -p PID`, parsed into threads of function names (innermost first).
/// Pure: text in, values out; addresses, arguments and source positions are dropped here.

#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch::launcher {

/// One thread: gdb's thread number and its kernel id when the text gave them (0 otherwise) and
/// the function of each frame, innermost first, as printed ("??" or "" where no name was known).
struct ThreadStack {
  int number = 0;
  long lwp = 0;
  std::vector<std::string> frames;
};

/// Why a rank has no stack, as a type (the note says it in words): no tool on its node, the
/// tool did not finish in time, the kernel refused the attach (ptrace: another user's process,
/// Yama's ptrace_scope, a container without CAP_SYS_PTRACE or with a seccomp filter), the
/// process was gone, the tool printed no frames, or its agent never answered.
enum class StackReason { None, NoTool, NoAnswer, AttachDenied, ProcessGone, NoFrames, AgentSilent };

/// "no-tool", "no-answer", "attach-denied", "process-gone", "no-frames", "agent-silent"; "" for
/// None.
std::string_view reason_name(StackReason reason);

/// One rank's stack as collected on its node.
struct ProcessStack {
  int rank = -1;  // in its job
  int job = 1;    // mpirun's job number: 1 the initial ranks, 2, 3, ... each MPI_Comm_spawn
  std::string host;
  long pid = 0;
  std::string tool;  // "gdb", "eu-stack", or empty when nothing was collected
  std::vector<ThreadStack> threads;
  std::string note;  // why there is no stack ("did not answer within 5 s"), empty when there is
  StackReason reason = StackReason::None;  // the note's type
  std::string raw;                         // the tool's text for this process
  bool python = false;                     // a Python interpreter: Python frames were asked for
  std::vector<std::string> python_frames;  // gdb's py-bt functions, innermost first
  std::string python_note;                 // why a Python rank has no Python frames
};

/// At most this many threads per process and frames per thread are kept (a runaway recursion
/// or a text that is not a stack must not grow without bound).
inline constexpr std::size_t kMaxThreads = 256;
inline constexpr std::size_t kMaxFrames = 256;

/// gdb's `bt` / `thread apply all bt` text ("Thread 2 (Thread 0x7f.. (LWP 17671) ...):" then
/// "#0  0x00.. in poll (...) at f.c:29" lines). Frames before any thread header form one thread.
std::vector<ThreadStack> parse_gdb_stack(std::string_view text);

/// eu-stack's text ("TID 17667:" then "#0  0x00.. __poll" lines).
std::vector<ThreadStack> parse_eu_stack(std::string_view text);

/// gdb's py-bt text ("Traceback (most recent call first):", then `  File "f.py", line 4, in
/// read_input` and `  <built-in method sleep of module object at remote 0x..>` lines): the
/// Python functions, innermost first ("read_input", "sleep").
std::vector<std::string> parse_py_bt(std::string_view text);

/// One rank's stack from its node's tool: `text` parsed by the grammar of `tool` ("gdb",
/// "eu-stack"); a text without frames gets the tool's own complaint as its note ("ptrace:
/// Operation not permitted.") unless `note` already says why. The agent notes a rank only when
/// no tool ran (NoTool) or the tool did not finish (NoAnswer); the tool's complaint gives
/// AttachDenied or ProcessGone, and a text with neither frames nor a complaint NoFrames. A Python
/// rank's Python section (common/stack_sections.hpp) gives python_frames or python_note.
ProcessStack process_stack(int rank, std::string host, long pid, std::string tool, std::string text,
                           std::string note);

/// The thread whose id is `pid` (the main thread), else gdb's "Thread 1", else the first;
/// nullptr when there is none.
const ThreadStack* main_thread(const std::vector<ThreadStack>& threads, long pid);

}  // namespace mpilaunch::launcher
