// compat_tests: runs each case of the table (cases.cpp) through the real mpirun and through
// mpilaunch, compares, and prints one verdict per case: "same", "pending" (a known difference,
// owned by the issue item named in the table: reported, not failed), "now same" (a pending
// case that agrees now: take the mark out of the table) or "DIFFERS" (fails the suite).
//
// Usage: compat_tests [--list] [-v] [--case NAME]...
// MPILAUNCH_COMPAT_CASES=NAME,PREFIX*,... selects cases too. MPILAUNCH_TEST_BUILD names another
// build's launcher, agent and apps (tests/e2e/support/test_build.hpp); MPIRUN names the mpirun.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "tests/compat/compat.hpp"
#include "tests/e2e/support/job.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::compat {
namespace {

namespace fs = std::filesystem;
using e2e::Millis;

// mpirun's plm_rsh_agent for virtual nodes: called as `agent HOST WORD...` (the orted command
// line, words for a shell, as ssh would pass them), it runs the command in a new UTS namespace
// named HOST, with TMPDIR (and so Open MPI's session directory and shared-memory files) of
// its own under COMPAT_VNODE_DIR.
constexpr const char* kRshAgent = R"(#!/bin/sh
host=$1
shift
dir=$COMPAT_VNODE_DIR/$host
mkdir -p "$dir" || exit 1
exec unshare --uts /bin/sh -c 'hostname "$0" && TMPDIR=$1 && export TMPDIR && shift && exec /bin/sh -c "$*"' "$host" "$dir" "$@"
)";

// Each launcher's run of a case (a run takes 0.2-3 s here, also under load). A run that hits it
// is killed with its process group and fails the case; after kMaxTimeouts such runs the suite
// stops, so that a launcher hanging on every line costs minutes, not meson's timeout.
constexpr Millis kDeadline{60'000};
constexpr int kMaxTimeouts = 2;

std::string mpirun_path() {
  if (const char* m = std::getenv("MPIRUN"); m != nullptr && *m != '\0') return m;
  return "mpirun";
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    const bool plain = !w.empty() && w.find_first_of(" \t'\"$\\*?") == std::string::npos;
    out += plain ? w : "'" + w + "'";
  }
  return out;
}

Side with_status(Side side, int status) {
  side.status = status;
  return side;
}

struct Options {
  bool list = false, verbose = false;
  std::vector<std::string> selected;  // names, or prefixes ending in '*'
};

bool selected(const Options& o, const std::string& name) {
  if (o.selected.empty()) return true;
  for (const std::string& s : o.selected) {
    if (s == name) return true;
    if (s.ends_with('*') && name.starts_with(s.substr(0, s.size() - 1))) return true;
  }
  return false;
}

struct Ran {
  Side side;
  std::vector<std::string> argv;
  Millis elapsed{0};
};

Ran run_side(const Case& c, bool under_mpirun, const fs::path& case_dir,
             const std::string& rsh_agent) {
  const fs::path dir = case_dir / (under_mpirun ? "mpirun" : "mpilaunch");
  fs::create_directories(dir / "report");
  std::vector<std::string> inputs;
  for (const auto& [name, text] : c.files) {
    fs::create_directories((dir / name).parent_path());
    std::string content = text;
    for (std::size_t at = content.find("@probe"); at != std::string::npos;
         at = content.find("@probe", at))
      content.replace(at, 6, e2e::app("probe"));
    e2e::write_file((dir / name).string(), content);
    if (content.starts_with("#!")) ::chmod((dir / name).c_str(), 0755);
    inputs.push_back(name);
  }
  std::vector<std::string> args;
  if (c.nodes == Nodes::Virtual) {
    if (under_mpirun)
      args = {"--mca", "plm_rsh_agent",      rsh_agent, "--mca", "plm_rsh_no_tree_spawn", "1",
              "--mca", "btl_tcp_if_include", "lo",      "--mca", "oob_tcp_if_include",    "lo"};
    else
      args = {"--launcher=local"};
  }
  for (std::string a : c.args) {
    if (a == "@probe") a = e2e::app("probe");
    if (a.starts_with("@W/")) a = (dir / a.substr(3)).string();
    if (a.starts_with("@app:")) a = e2e::app(a.substr(5));
    args.push_back(a);
  }

  e2e::Job job;
  job.cwd = dir.string();
  job.extra_env = c.env;
  const std::string apps_dir = fs::path(e2e::app("probe")).parent_path().string();
  for (std::string& e : job.extra_env) {
    if (const std::size_t at = e.find("@apps"); at != std::string::npos) e.replace(at, 5, apps_dir);
    if (const std::size_t at = e.find("@data"); at != std::string::npos)
      e.replace(at, 5, MPILAUNCH_TEST_DATA_DIR);
    for (std::size_t at = e.find("@W"); at != std::string::npos; at = e.find("@W", at))
      e.replace(at, 2, dir.string());
  }
  job.extra_env.push_back("PROBE_OUT=" + (dir / "report").string());
  if (c.nodes == Nodes::Virtual)
    job.extra_env.push_back("COMPAT_VNODE_DIR=" + (dir / "vnodes").string());
  e2e::Command command = job.command(args, kDeadline);
  if (under_mpirun) {
    // By name, as people run it: mpirun started by its absolute path acts as if given
    // --prefix (mpirun(1)), which puts <prefix>/lib in front of the ranks' LD_LIBRARY_PATH.
    command.argv[0] = mpirun_path();
    if (std::getenv("MPIRUN") == nullptr) command.argv.insert(command.argv.begin(), "/usr/bin/env");
  }
  command.stdin_text = c.stdin_text;
  const e2e::Outcome o = e2e::run(command);
  Ran ran;
  ran.argv = command.argv;
  ran.elapsed = o.elapsed;
  ran.side = collect(dir.string(), o.status(), o.timed_out, o.out, o.err, inputs);
  // mpilaunch's virtual nodes share the machine's name (no UTS namespace of their own);
  // which ranks share a node is still compared (node_leader, local_size).
  if (c.nodes == Nodes::Virtual)
    for (auto& [rank, keys] : ran.side.reports) keys.erase("host");
  return ran;
}

void show(const char* who, const Ran& ran) {
  std::cout << "  " << who << ": " << join(ran.argv) << "\n    status " << ran.side.status
            << (ran.side.timed_out ? " (timed out)" : "") << " after " << ran.elapsed.count()
            << " ms\n";
  auto indent = [](const std::string& label, const std::string& text) {
    if (text.empty()) return;
    std::cout << "    " << label << ":\n";
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) std::cout << "      | " << line << "\n";
  };
  indent("stdout", ran.side.raw_out);
  indent("stderr", ran.side.raw_err);
  for (const auto& [rank, keys] : ran.side.reports) {
    std::cout << "    rank " << rank << ":";
    for (const auto& [k, v] : keys)
      if (!k.starts_with("env.")) std::cout << " " << k << "=" << v;
    std::cout << "\n";
  }
  for (const auto& [path, text] : ran.side.files)
    std::cout << "    file " << path << ": " << text.size() << " bytes\n";
}

int main_impl(int argc, char** argv) {
  Options o;
  if (const char* env = std::getenv("MPILAUNCH_COMPAT_CASES"); env != nullptr) {
    std::istringstream in(env);
    for (std::string name; std::getline(in, name, ',');)
      if (!name.empty()) o.selected.push_back(name);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") {
      o.list = true;
    } else if (a == "-v" || a == "--verbose") {
      o.verbose = true;
    } else if (a == "--case" && i + 1 < argc) {
      o.selected.push_back(argv[++i]);
    } else {
      std::cerr << "usage: compat_tests [--list] [-v] [--case NAME]...\n";
      return 2;
    }
  }

  if (o.list) {
    for (const Case& c : cases()) {
      if (!selected(o, c.name)) continue;
      std::cout << c.name << (c.nodes == Nodes::Virtual ? " [virtual nodes]" : "")
                << (c.pending.empty() ? "" : " [pending: " + c.pending + "]") << "\n  "
                << join(c.args) << "\n";
    }
    return 0;
  }

  if (::access(std::getenv("MPIRUN") != nullptr ? mpirun_path().c_str() : "/usr/bin/mpirun",
               X_OK) != 0) {
    std::cerr << "compat: no mpirun (/usr/bin/mpirun or $MPIRUN)"
              << " (tools/bootstrap installs openmpi-bin; MPIRUN names another)\n";
    return 1;
  }
  // CI may start us with no stdin: descriptors 0-2 must be taken before any pipe is made, or
  // a pipe could land on 0 and keep its close-on-exec flag through dup2 (e2e::run).
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  // mpirun's virtual nodes are UTS namespaces (root, unshare(1)); without them those cases
  // are skipped, and say so.
  e2e::Command check;
  check.argv = {"/usr/bin/unshare", "--uts", "/bin/true"};
  check.env = e2e::clean_environment({});
  check.deadline = Millis{30'000};
  const bool namespaces = ::access("/usr/bin/unshare", X_OK) == 0 && e2e::run(check).status() == 0;
  e2e::TempDir top("mpilaunch-compat");
  const std::string rsh_agent = top.file("rsh-agent");
  e2e::write_file(rsh_agent, kRshAgent);
  ::chmod(rsh_agent.c_str(), 0755);

  int same = 0, pending = 0, now_same = 0, failed = 0, run = 0, timeouts = 0;
  std::set<std::string> seen_keys;
  std::vector<std::string> failures;
  for (const Case& c : cases()) {
    if (!selected(o, c.name)) continue;
    if (c.nodes == Nodes::Virtual && !namespaces) {
      std::cout << "skipped  " << c.name
                << "  (mpirun's virtual nodes need `unshare --uts`, which failed here)\n";
      continue;
    }
    ++run;
    const fs::path case_dir = top.path() / c.name;
    const Ran a = run_side(c, true, case_dir, rsh_agent);
    const Ran b = run_side(c, false, case_dir, rsh_agent);
    // mpirun's own crash at its end (Case::mpirun_may_crash): what the ranks saw still counts.
    const bool mpirun_crashed = c.mpirun_may_crash && a.side.status == 128 + SIGSEGV;
    const unsigned checks = mpirun_crashed ? (c.checks & Report) | ExitNonzero : c.checks;
    if (mpirun_crashed)
      std::cout << "note     " << c.name
                << ": mpirun died of SIGSEGV at its end (a 4.1.4 bug with stdin); only the "
                   "ranks' reports are compared\n";
    const std::vector<Difference> diffs =
        differences(a.side, mpirun_crashed ? with_status(b.side, 1) : b.side, checks);
    // Each difference is pending (owned by an issue item: a known key, or the case's mark
    // covering its kind) or not; one that is not fails the case.
    std::vector<std::string> failing, known;
    std::set<std::string> owners;
    bool case_mark_used = false;
    for (const Difference& d : diffs) {
      // The known keys' reasons (CPUs shared by virtual nodes, the universe mpirun's orted counts
      // on the node the hosts leave out) hold on virtual nodes only: one node must agree.
      auto key = d.kind == Report && c.nodes == Nodes::Virtual ? known_key_differences().find(d.key)
                                                               : known_key_differences().end();
      if (key != known_key_differences().end()) {
        known.push_back(d.text);
        owners.insert(key->second);
        seen_keys.insert(key->first);
      } else if (!c.pending.empty() && (c.pending_on & d.kind) != 0) {
        known.push_back(d.text);
        owners.insert(c.pending);
        case_mark_used = true;
      } else {
        failing.push_back(d.text);
      }
    }
    std::string verdict;
    if (!failing.empty()) {
      verdict = "DIFFERS  ";
      ++failed;
      failures.push_back(c.name);
    } else if (!c.pending.empty() && !case_mark_used) {
      verdict = "now same ";
      ++now_same;
    } else if (!known.empty()) {
      verdict = "pending  ";
      ++pending;
    } else {
      verdict = "same     ";
      ++same;
    }
    std::cout << verdict << c.name << "  (" << a.elapsed.count() << " + " << b.elapsed.count()
              << " ms)";
    for (const std::string& owner : owners) std::cout << "  [" << owner << "]";
    std::cout << "\n";
    if (!c.pending.empty() && !case_mark_used)
      std::cout << "  its own mark no longer covers a difference: take `pending` out of "
                   "tests/compat/cases.cpp\n";
    for (const std::string& text : failing) std::cout << "  - " << text << "\n";
    const std::size_t shown = o.verbose ? known.size() : 3;
    for (std::size_t i = 0; i < known.size() && i < shown; ++i)
      std::cout << "  - (pending) " << known[i] << "\n";
    if (known.size() > shown)
      std::cout << "  - (pending) ... " << known.size() - shown << " more (-v shows all)\n";
    if (o.verbose || !failing.empty()) {
      std::cout << "  " << c.source << "\n";
      show("mpirun", a);
      show("mpilaunch", b);
    }
    std::cout.flush();
    timeouts += (a.side.timed_out ? 1 : 0) + (b.side.timed_out ? 1 : 0);
    if (timeouts >= kMaxTimeouts) {
      std::cout << "compat: " << timeouts
                << " runs did not end within their deadline: the remaining cases are not run\n";
      ++failed;
      failures.push_back("(the remaining cases)");
      break;
    }
    std::error_code ec;
    fs::remove_all(case_dir, ec);
  }
  std::cout << "\ncompat: " << run << " cases: " << same << " same, " << pending
            << " pending (known differences, owned by an issue item), " << now_same
            << " pending that agree now, " << failed << " differ\n";
  for (const std::string& name : failures) std::cout << "  differs: " << name << "\n";
  if (o.selected.empty())
    for (const auto& [key, owner] : known_key_differences())
      if (seen_keys.count(key) == 0)
        std::cout << "  known difference '" << key << "' (" << owner
                  << ") showed in no case: take it out of known_key_differences()\n";
  if (run == 0) {
    std::cerr << "compat: no case selected\n";
    return 1;
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace mpilaunch::compat

int main(int argc, char** argv) {
  try {
    return mpilaunch::compat::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "compat: " << e.what() << "\n";
    return 1;
  }
}
