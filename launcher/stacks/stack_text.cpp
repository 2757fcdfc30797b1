#include "launcher/stacks/stack_text.hpp"

#include <cctype>

#include "common/stack_sections.hpp"
#include "common/text.hpp"

namespace mpilaunch::launcher {
namespace {

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The number at the start of `s`; 0 when there is none.
long number_at(std::string_view s) {
  return leading_int<long>(s).value_or(0);
}

long number_after(std::string_view s, std::string_view key) {
  const std::size_t at = s.find(key);
  return at == std::string_view::npos ? 0 : number_at(s.substr(at + key.size()));
}

// "#12  rest" -> "rest"; nullopt-like empty when the line is not a frame line.
bool strip_frame_number(std::string_view& line) {
  line = trim_left(line);
  if (line.size() < 2 || line[0] != '#' || std::isdigit(static_cast<unsigned char>(line[1])) == 0)
    return false;
  line.remove_prefix(1);
  while (!line.empty() && std::isdigit(static_cast<unsigned char>(line.front())) != 0)
    line.remove_prefix(1);
  line = trim_left(line);
  return true;
}

bool starts_with_address(std::string_view s) {
  return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

void skip_address(std::string_view& s) {
  while (!s.empty() && s.front() != ' ') s.remove_prefix(1);
  s = trim_left(s);
}

// gdb: the name ends at the first " (" outside template brackets ("f<a (b)> (x=1) at ...").
std::string gdb_function(std::string_view s) {
  if (starts_with_address(s)) {
    skip_address(s);
    if (s.starts_with("in ")) s.remove_prefix(3);
  }
  int angle = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++angle;
    if (s[i] == '>' && angle > 0) --angle;
    if (angle == 0 && s[i] == ' ' && (i + 1 == s.size() || s[i + 1] == '(')) {
      return std::string(s.substr(0, i));
    }
  }
  return std::string(s);
}

template <typename Each>
void for_each_line(std::string_view text, Each each) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    each(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void add_frame(std::vector<ThreadStack>& threads, std::string name) {
  if (threads.empty()) threads.emplace_back();
  if (threads.back().frames.size() < kMaxFrames) threads.back().frames.push_back(std::move(name));
}

void add_thread(std::vector<ThreadStack>& threads, ThreadStack t) {
  if (threads.size() < kMaxThreads) {
    threads.push_back(std::move(t));
  } else {
    threads.back().frames.clear();  // later frames must not land on the last kept thread
    threads.back().number = -1;
  }
}

}  // namespace

std::vector<ThreadStack> parse_gdb_stack(std::string_view text) {
  std::vector<ThreadStack> threads;
  for_each_line(text, [&](std::string_view line) {
    if (line.starts_with("Thread ") && line.ends_with(":")) {
      ThreadStack t;
      // "Thread 3 (...)", or "Thread 2.1 (...)" once gdb has several inferiors.
      std::string_view number = line.substr(7, line.find(' ', 7) - 7);
      if (const std::size_t dot = number.find('.'); dot != std::string_view::npos)
        number.remove_prefix(dot + 1);
      t.number = static_cast<int>(number_at(number));
      t.lwp = number_after(line, "(LWP ");
      if (t.lwp == 0) t.lwp = number_after(line, "(process ");
      add_thread(threads, std::move(t));
      return;
    }
    if (strip_frame_number(line)) add_frame(threads, gdb_function(line));
  });
  std::erase_if(threads, [](const ThreadStack& t) { return t.number == -1; });
  return threads;
}

std::vector<ThreadStack> parse_eu_stack(std::string_view text) {
  std::vector<ThreadStack> threads;
  for_each_line(text, [&](std::string_view line) {
    if (line.starts_with("TID ")) {
      ThreadStack t;
      t.lwp = number_at(line.substr(4));
      add_thread(threads, std::move(t));
      return;
    }
    if (!strip_frame_number(line)) return;
    if (starts_with_address(line)) skip_address(line);
    const std::size_t end = line.find(' ');  // eu-stack -m/-s append " - module" and more
    add_frame(threads, std::string(line.substr(0, end)));
  });
  std::erase_if(threads, [](const ThreadStack& t) { return t.number == -1; });
  return threads;
}

std::string_view reason_name(StackReason reason) {
  switch (reason) {
    case StackReason::None:
      return "";
    case StackReason::NoTool:
      return "no-tool";
    case StackReason::NoAnswer:
      return "no-answer";
    case StackReason::AttachDenied:
      return "attach-denied";
    case StackReason::ProcessGone:
      return "process-gone";
    case StackReason::NoFrames:
      return "no-frames";
    case StackReason::AgentSilent:
      return "agent-silent";
  }
  return "";
}

std::vector<std::string> parse_py_bt(std::string_view text) {
  std::vector<std::string> frames;
  for_each_line(text, [&](std::string_view line) {
    line = trim_left(line);
    if (frames.size() >= kMaxFrames) return;
    if (line.starts_with("File \"")) {
      const std::size_t in = line.rfind(", in ");
      if (in != std::string_view::npos) frames.emplace_back(trim_right(line.substr(in + 5)));
    } else if (line.starts_with("<built-in method ") || line.starts_with("<built-in function ")) {
      line.remove_prefix(line.find(' ', 10) + 1);
      const std::size_t end = std::min(line.find(' '), line.find('>'));
      frames.emplace_back(line.substr(0, end));
    }
  });
  return frames;
}

ProcessStack process_stack(int rank, std::string host, long pid, std::string tool, std::string text,
                           std::string note) {
  ProcessStack p;
  p.rank = rank;
  p.host = std::move(host);
  p.pid = pid;
  std::string_view native = text;
  if (const std::size_t at = native.find(kPythonSection); at != std::string_view::npos) {
    const std::string_view python = native.substr(at);
    native = native.substr(0, at);
    p.python = true;
    if (python.starts_with(kPythonSectionNone)) {
      p.python_note = std::string(trim_right(
          python.substr(kPythonSectionNone.size(), python.find('\n') - kPythonSectionNone.size())));
    } else {
      p.python_frames = parse_py_bt(python);
      if (p.python_frames.empty()) p.python_note = "no Python frames: gdb's py-bt found none";
    }
  }
  p.threads = tool == "eu-stack" ? parse_eu_stack(native) : parse_gdb_stack(native);
  p.note = std::move(note);
  if (!p.note.empty()) p.reason = tool.empty() ? StackReason::NoTool : StackReason::NoAnswer;
  if (p.threads.empty() && p.note.empty()) {
    // gdb: "ptrace: Operation not permitted." (with Yama: "Could not attach to process. ..."),
    // "ptrace: No such process."; eu-stack: "eu-stack: dwfl_linux_proc_attach pid N:
    // Operation not permitted", "...: Permission denied", "...: No such file or directory".
    for_each_line(native, [&](std::string_view line) {
      line = trim_left(line);
      if (!p.note.empty()) return;
      const bool complaint = line.starts_with("ptrace:") || line.starts_with("eu-stack:") ||
                             line.starts_with("Could not attach");
      const bool denied = line.find("not permitted") != std::string_view::npos ||
                          line.find("Permission denied") != std::string_view::npos ||
                          line.starts_with("Could not attach");
      const bool gone = line.find("No such process") != std::string_view::npos ||
                        line.find("No such file or directory") != std::string_view::npos;
      if (!complaint && !denied) return;
      p.note = std::string(line.substr(0, 200));
      p.reason = denied ? StackReason::AttachDenied
                 : gone ? StackReason::ProcessGone
                        : StackReason::NoFrames;
    });
    if (p.note.empty()) {
      p.note = tool.empty() ? "no stack tool ran" : tool + " printed no stack";
      p.reason = tool.empty() ? StackReason::NoTool : StackReason::NoFrames;
    }
  }
  p.tool = std::move(tool);
  p.raw = std::move(text);
  return p;
}

const ThreadStack* main_thread(const std::vector<ThreadStack>& threads, long pid) {
  for (const ThreadStack& t : threads) {
    if (pid != 0 && t.lwp == pid) return &t;
  }
  for (const ThreadStack& t : threads) {
    if (t.number == 1) return &t;
  }
  return threads.empty() ? nullptr : &threads.front();
}

}  // namespace mpilaunch::launcher
