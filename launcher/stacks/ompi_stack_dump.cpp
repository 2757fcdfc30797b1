#include "launcher/stacks/ompi_stack_dump.hpp"

#include "common/text.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::string_view kHeader = "STACK TRACE FOR PROC [[";

// The number at the start of `s`; 0 when there is none.
long number_at(std::string_view s) {
  return leading_int<long>(s).value_or(0);
}

}  // namespace

void OmpiStackDump::feed(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t at = line.find(kHeader);
  if (at != std::string_view::npos) {
    in_block_ = false;
    if (entries_.size() >= kMaxProcesses) return;
    // "[[11544,1],0] (vm, PID 16880)": the rank after "],", the host after "(", the pid.
    std::string_view rest = line.substr(at + kHeader.size());
    const std::size_t close = rest.find("],");
    const std::size_t open = rest.find("] (");
    const std::size_t comma = open == std::string_view::npos ? open : rest.find(", PID ", open);
    if (close == std::string_view::npos || comma == std::string_view::npos) return;
    Entry e;
    e.rank = static_cast<int>(number_at(rest.substr(close + 2)));
    e.host = std::string(rest.substr(open + 3, comma - open - 3));
    e.pid = number_at(rest.substr(comma + 6));
    entries_.push_back(std::move(e));
    in_block_ = true;
    return;
  }
  if (!in_block_) return;
  if (line.empty() || line.front() != '\t') {
    in_block_ = false;
    return;
  }
  line.remove_prefix(1);
  std::string& raw = entries_.back().raw;
  if (raw.size() + line.size() + 1 > kMaxRawBytes) return;
  raw.append(line);
  raw += '\n';
}

std::vector<ProcessStack> OmpiStackDump::finish() const {
  std::vector<ProcessStack> out;
  for (const Entry& e : entries_) {
    ProcessStack p;
    p.rank = e.rank;
    p.host = e.host;
    p.pid = e.pid;
    p.raw = e.raw;
    p.threads = parse_gdb_stack(e.raw);
    if (p.threads.empty()) {
      std::string_view why = e.raw;
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.remove_suffix(1);
      p.note = why.empty() ? std::string("no stack in the dump") : std::string(why);
      p.reason = why.starts_with("Failed to find") ? StackReason::NoTool : StackReason::NoFrames;
    } else {
      p.tool = "gstack";
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace mpilaunch::launcher
