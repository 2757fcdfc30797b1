#pragma once
/// How a rank's stack text (NodeStacks' `text`, docs/protocol.md) carries a Python rank's
/// Python frames after the native tool's text: a line holding kPythonSection, then gdb's py-bt
/// text; or one line kPythonSection + "-none " + why there are none (no gdb, no interpreter
/// extension, no answer in time). Shared by the agent, which writes it, and the launcher.

#include <string_view>

namespace mpilaunch {

inline constexpr std::string_view kPythonSection = "@@mpilaunch-python";
inline constexpr std::string_view kPythonSectionNone = "@@mpilaunch-python-none ";

}  // namespace mpilaunch
