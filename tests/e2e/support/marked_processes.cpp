#include "tests/e2e/support/marked_processes.hpp"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

namespace mpilaunch::e2e {
namespace {

std::string read_proc_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool has_entry(const std::string& nul_separated, const std::string& entry) {
  std::size_t at = 0;
  while (at < nul_separated.size()) {
    std::size_t end = nul_separated.find('\0', at);
    if (end == std::string::npos) end = nul_separated.size();
    if (nul_separated.compare(at, end - at, entry) == 0) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

std::vector<MarkedProcess> marked_processes(const std::string& mark) {
  const std::string entry = std::string(kMarkVariable) + "=" + mark;
  std::vector<MarkedProcess> found;
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = dir.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == ::getpid()) continue;
    if (!has_entry(read_proc_file(dir.path() / "environ"), entry)) continue;
    std::string command = read_proc_file(dir.path() / "cmdline");
    for (char& c : command)
      if (c == '\0') c = ' ';
    found.push_back({pid, command});
  }
  return found;
}

std::string describe(const std::vector<MarkedProcess>& processes) {
  std::ostringstream s;
  for (const MarkedProcess& p : processes) s << "  " << p.pid << " " << p.command << "\n";
  return s.str();
}

void kill_marked(const std::string& mark) {
  for (const MarkedProcess& p : marked_processes(mark)) ::kill(p.pid, SIGKILL);
}

std::string random_mark() {
  std::random_device device;
  std::mt19937_64 gen(device());
  std::ostringstream s;
  s << std::hex << ::getpid() << "-" << gen();
  return s.str();
}

}  // namespace mpilaunch::e2e
