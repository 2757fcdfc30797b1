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

/// gdb --batch attaching to each of `pids` in turn (a fresh inferior each, so ranks of
/// different programs get their own symbols), printing every thread's backtrace, detaching.
std::vector<std::string> gdb_stack_argv(const std::string& gdb, const std::vector<long>& pids);

/// eu-stack -p PID.
std::vector<std::string> eu_stack_argv(const std::string& eu_stack, long pid);

/// gdb's output cut at the markers: pid -> its text (each cut to kMaxStackText). A section is
/// complete when another marker follows it or `tool_finished`; incomplete ones are left out.
std::map<long, std::string> split_gdb_output(std::string_view out, bool tool_finished);

/// Why a rank has no stack when no tool is installed on `host`, with the packages to install.
std::string no_stack_tool_note(const std::string& host);

/// Why a rank has no stack when the tool did not finish with it in time.
std::string no_answer_note(double seconds);

}  // namespace mpilaunch::agent
