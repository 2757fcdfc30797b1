#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/compat/compat.hpp"

namespace mpilaunch::compat {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// What differs between runs of the same line by the same launcher: paths, times, pids.
std::string normalise(std::string text, const std::string& dir) {
  replace_all(text, dir, "@W");
  static const std::regex ctime(
      "(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
      "[ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}");
  static const std::regex host_pid("\\[[A-Za-z0-9._-]+:[0-9]+\\]");
  // --display-map's " Data for JOB [12212,1] offset 0 ...": mpirun's job family differs per run.
  static const std::regex job_id("(Data for JOB |OMPI jobid: )\\[[0-9]+,");
  text = std::regex_replace(text, job_id, "$1[JOB,");
  text = std::regex_replace(text, ctime, "<ctime>");
  return std::regex_replace(text, host_pid, "[host:PID]");
}

// Lines, sorted; an unterminated last line is kept and marked.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start) + "<no newline>");
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::map<std::string, std::string> parse_report(const std::string& text) {
  std::map<std::string, std::string> keys;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t eq = line.find('=');
    const std::size_t space = line.find(' ');
    if (eq != std::string::npos && (space == std::string::npos || eq < space))
      keys[line.substr(0, eq)] = line.substr(eq + 1);
    else if (space != std::string::npos)
      keys[line.substr(0, space)] = "(" + line.substr(space + 1) + ")";  // "NAME unset"
  }
  return keys;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// A line of at least five dashes and nothing else: how Open MPI frames its help messages.
bool has_frame(const std::vector<std::string>& lines) {
  return std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.size() >= 5 && line.find_first_not_of('-') == std::string::npos;
  });
}

// Lines in `a` but not in `b` (both sorted), as a multiset difference.
std::vector<std::string> only_in(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

void compare_lines(unsigned kind, const std::vector<std::string>& mpirun,
                   const std::vector<std::string>& mpilaunch, std::vector<Difference>& diffs) {
  const std::string stream = kind == Stdout ? "stdout" : "stderr";
  if (mpirun == mpilaunch) return;
  const std::size_t shown = 6;
  auto list = [&](const char* who, const std::vector<std::string>& lines) {
    for (std::size_t i = 0; i < lines.size() && i < shown; ++i)
      diffs.push_back({kind, "", stream + " only under " + who + ": " + quoted(lines[i])});
    if (lines.size() > shown)
      diffs.push_back({kind, "",
                       stream + " only under " + who + ": ... " +
                           std::to_string(lines.size() - shown) + " more lines"});
  };
  list("mpirun", only_in(mpirun, mpilaunch));
  list("mpilaunch", only_in(mpilaunch, mpirun));
}

}  // namespace

Side collect(const std::string& dir, int status, bool timed_out, const std::string& out,
             const std::string& err, const std::vector<std::string>& inputs) {
  Side side;
  side.status = status;
  side.timed_out = timed_out;
  side.raw_out = out;
  side.raw_err = err;
  side.out_in_order = lines_of(normalise(out, dir));
  side.out_lines = sorted_lines(normalise(out, dir));
  side.err_lines = sorted_lines(normalise(err, dir));
  // mpirun's rsh launcher warns when its child (our plm_rsh_agent script) has exec'd before
  // the parent's setpgid(): a race of the test's virtual nodes, not something users see.
  std::erase_if(side.err_lines, [](const std::string& line) {
    return line.find("plm:rsh: Warning: setpgid(") != std::string::npos;
  });

  const fs::path report_dir = fs::path(dir) / "report";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(report_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("rank.")) continue;
    auto keys = parse_report(normalise(slurp(entry.path()), dir));
    side.reports[std::stoi(name.substr(5))] = std::move(keys);
  }
  // Host names as node0, node1, ... in the order of the ranks: mpirun's virtual nodes are
  // named by their UTS namespace, mpilaunch's ranks see the machine's name.
  std::map<std::string, std::string> node_names;
  for (auto& [rank, keys] : side.reports) {
    auto host = keys.find("host");
    if (host == keys.end()) continue;
    auto [it, added] = node_names.emplace(host->second, "node" + std::to_string(node_names.size()));
    host->second = it->second;
  }

  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), dir).string();
    const bool skipped = rel == "report" || rel == "vnodes" ||
                         std::find(inputs.begin(), inputs.end(), rel) != inputs.end();
    if (skipped) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) side.files[rel] = normalise(slurp(it->path()), dir);
  }
  return side;
}

std::vector<Difference> differences(const Side& mpirun, const Side& mpilaunch, unsigned checks) {
  std::vector<Difference> diffs;
  if (mpirun.timed_out) diffs.push_back({Exit, "", "mpirun did not end before the deadline"});
  if (mpilaunch.timed_out) diffs.push_back({Exit, "", "mpilaunch did not end before the deadline"});
  const std::string statuses = "exit status: mpirun " + std::to_string(mpirun.status) +
                               ", mpilaunch " + std::to_string(mpilaunch.status);
  if ((checks & ExitNonzero) != 0) {
    if (mpirun.status == 0 || mpilaunch.status == 0)
      diffs.push_back({Exit, "", statuses + " (both should fail)"});
  } else if (mpirun.status != mpilaunch.status) {
    diffs.push_back({Exit, "", statuses});
  }

  if ((checks & Report) != 0) {
    std::set<int> ranks;
    for (const auto& [rank, keys] : mpirun.reports) ranks.insert(rank);
    for (const auto& [rank, keys] : mpilaunch.reports) ranks.insert(rank);
    for (int rank : ranks) {
      const std::string who = "rank " + std::to_string(rank);
      auto a = mpirun.reports.find(rank);
      auto b = mpilaunch.reports.find(rank);
      if (a == mpirun.reports.end() || b == mpilaunch.reports.end()) {
        diffs.push_back(
            {Report, "",
             who + " reported only under " + (a == mpirun.reports.end() ? "mpilaunch" : "mpirun")});
        continue;
      }
      std::set<std::string> keys;
      for (const auto& [k, v] : a->second) keys.insert(k);
      for (const auto& [k, v] : b->second) keys.insert(k);
      const auto value = [](const std::map<std::string, std::string>& report,
                            const std::string& k) {
        auto v = report.find(k);
        return v == report.end() ? std::string("(absent)") : quoted(v->second);
      };
      // Which ranks share an object follows from the binding: where the rank is bound
      // differently, a sharing.* difference is that one's (kSharingOfBinding).
      const bool binding_differs = value(a->second, "cpus") != value(b->second, "cpus") ||
                                   value(a->second, "env.OMPI_MCA_orte_bound_at_launch") !=
                                       value(b->second, "env.OMPI_MCA_orte_bound_at_launch");
      for (const std::string& k : keys) {
        const std::string sa = value(a->second, k);
        const std::string sb = value(b->second, k);
        if (sa == sb) continue;
        const std::string key =
            binding_differs && k.starts_with("sharing.") ? kSharingOfBinding : k;
        diffs.push_back({Report, key, who + " " + k + ": mpirun " + sa + ", mpilaunch " + sb});
      }
    }
  }
  if ((checks & Stdout) != 0) compare_lines(Stdout, mpirun.out_lines, mpilaunch.out_lines, diffs);
  if ((checks & StdoutOrder) != 0 && mpirun.out_lines == mpilaunch.out_lines &&
      mpirun.out_in_order != mpilaunch.out_in_order) {
    // The same lines in another order: the first place they part.
    std::size_t i = 0;
    while (mpirun.out_in_order[i] == mpilaunch.out_in_order[i]) ++i;
    diffs.push_back({Stdout, "",
                     "stdout line " + std::to_string(i + 1) +
                         " (same lines, another order): mpirun " + quoted(mpirun.out_in_order[i]) +
                         ", mpilaunch " + quoted(mpilaunch.out_in_order[i])});
  }
  if ((checks & Stderr) != 0) compare_lines(Stderr, mpirun.err_lines, mpilaunch.err_lines, diffs);
  if ((checks & Framed) != 0 && has_frame(mpirun.err_lines) != has_frame(mpilaunch.err_lines))
    diffs.push_back({Framed, "",
                     std::string("error framed by a line of dashes: under mpirun ") +
                         (has_frame(mpirun.err_lines) ? "yes" : "no") + ", under mpilaunch " +
                         (has_frame(mpilaunch.err_lines) ? "yes" : "no")});
  if ((checks & Files) != 0) {
    std::set<std::string> paths;
    for (const auto& [p, c] : mpirun.files) paths.insert(p);
    for (const auto& [p, c] : mpilaunch.files) paths.insert(p);
    for (const std::string& p : paths) {
      auto a = mpirun.files.find(p);
      auto b = mpilaunch.files.find(p);
      if (a == mpirun.files.end())
        diffs.push_back({Files, "", "file " + p + " written only by mpilaunch"});
      else if (b == mpilaunch.files.end())
        diffs.push_back({Files, "", "file " + p + " written only by mpirun"});
      else if ((checks & FileLines) != 0 ? sorted_lines(a->second) != sorted_lines(b->second)
                                         : a->second != b->second)
        diffs.push_back(
            {Files, "",
             "file " + p + ": mpirun " + quoted(a->second) + ", mpilaunch " + quoted(b->second)});
    }
  }
  return diffs;
}

}  // namespace mpilaunch::compat
