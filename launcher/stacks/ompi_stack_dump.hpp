#pragma once
/// Open MPI 4's `--get-stack-traces` dump, read line by line from mpirun's console text:
/// "STACK TRACE FOR PROC [[11544,1],0] (vm, PID 16880)" then the node's gstack text, each line
/// indented by a tab (gdb's `thread apply all bt`), or one line saying why there is none
/// ("Failed to find "gstack" on vm to obtain stack traces"). Pure; memory is bounded.

#include <string>
#include <string_view>
#include <vector>

#include "launcher/stacks/stack_text.hpp"

namespace mpilaunch::launcher {

class OmpiStackDump {
 public:
  /// At most this many bytes of stack text per process, and this many processes, are kept.
  static constexpr std::size_t kMaxRawBytes = 256 * 1024;
  static constexpr std::size_t kMaxProcesses = 65536;

  /// One line of console text, without its newline.
  void feed(std::string_view line);
  /// Every process's stack seen so far, in the order printed.
  std::vector<ProcessStack> finish() const;

 private:
  struct Entry {
    int rank = -1;
    std::string host;
    long pid = 0;
    std::string raw;
  };
  std::vector<Entry> entries_;
  bool in_block_ = false;
};

}  // namespace mpilaunch::launcher
