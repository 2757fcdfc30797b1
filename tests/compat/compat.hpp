#pragma once
/// The mpirun comparison suite: one table of command lines (cases.cpp), each run through the real
/// `mpirun` 4.1.4 and through mpilaunch with the probe program (tests/apps/probe.c), and what
/// the ranks saw, the output and the exit status compared (compare.cpp).

#include <map>
#include <string>
#include <vector>

namespace mpilaunch::compat {

/// Where the ranks run. Virtual: mpirun starts one orted per host of the case's `-H`, each in
/// its own UTS namespace (hostname = the host's name) with its own TMPDIR, through a
/// plm_rsh_agent script; mpilaunch gets `--launcher=local`, one agent per virtual node.
enum class Nodes { Local, Virtual };

/// What a case compares (bits). The exit status is always compared, exactly or, with
/// ExitNonzero, only as "both failed".
enum Check : unsigned {
  Report = 1,         // each rank's probe report (size, rank, appnum, universe, node, stdin, ...)
  Stdout = 2,         // stdout lines, as a sorted list (ranks interleave in any order)
  Stderr = 4,         // stderr lines, likewise (only where both print only the ranks' lines)
  Files = 8,          // every file the run left in its working directory (--output-filename)
  ExitNonzero = 16,   // both must fail; the codes may differ (refusals, documented codes)
  Exit = 32,          // (a difference's kind only) the exit status or a deadline
  Framed = 64,        // an error on stderr is framed by a line of dashes under both (Open MPI's
                      // help blocks, which scrapers such as ipyparallel look for)
  FileLines = 128,    // with Files: each file's lines as a sorted list (a file holding two
                      // streams, --merge-stderr-to-stdout, has them in arrival order)
  StdoutOrder = 256,  // with Stdout: the lines in the order printed too (only where the launcher
                      // alone prints, e.g. --display-map --do-not-launch: the JOB MAP's order)
};

struct Case {
  std::string name;
  Nodes nodes = Nodes::Local;
  /// The command line after the launcher's name; "@probe" is the probe program's path, "@W/x"
  /// the path of x in the run's working directory, "@app:NAME" the test program NAME (listed in
  /// tests/compat/meson.build's depends).
  std::vector<std::string> args;
  unsigned checks = Report | Stdout | Stderr;
  /// Empty: the two must agree, and the case fails otherwise. Else the issue item that owns a
  /// known difference: differences of the kinds in `pending_on` are reported, not failed
  /// ("pending"); others still fail the case.
  std::string pending;
  unsigned pending_on = Report | Stdout | Stderr | Files | Exit | Framed;
  std::string stdin_text;  // written to both launchers' stdin, then closed
  /// "NAME=value" for both launchers; "@apps": the apps dir, "@W": the run's working directory,
  /// "@data": tests/data (saved topologies: HWLOC_XMLFILE=@data/topologies/NAME.xml).
  std::vector<std::string> env;
  /// Written into the working directory first ("@probe" in a text becomes the probe's path; a
  /// text starting with "#!" is made executable: a script).
  std::map<std::string, std::string> files;
  std::string source;  // where the line comes from (mpirun(1), a project)
  /// mpirun 4.1.4 itself sometimes dies of SIGSEGV at its end after forwarding stdin (1 run in
  /// 8 here, after the ranks got every byte and exited; its output can be lost with it). When
  /// it does, only the ranks' reports are compared, and the run says so.
  bool mpirun_may_crash = false;
};

/// The table.
const std::vector<Case>& cases();

/// Whole command lines of public projects' job scripts, CI files and docs (cases_projects.cpp),
/// appended to the table.
std::vector<Case> project_cases();

/// Report keys whose difference is known in every case (binding, say), each with the issue
/// item that owns it: a difference there is pending wherever it shows.
const std::map<std::string, std::string>& known_key_differences();

/// The key of a difference in the ranks sharing an object (the probe's sharing.* sizes) of a
/// rank whose binding differs too: it follows from that one.
inline constexpr const char* kSharingOfBinding = "sharing.* (binding differs)";

/// The bytes a case pipes to stdin when it wants a large, binary input: `size` deterministic
/// pseudo-random bytes.
std::string binary_input(std::size_t size);

/// What one launcher's run left behind, normalised so that the two can be compared.
struct Side {
  int status = -1;  // exit code, or 128 + signal
  bool timed_out = false;
  std::map<int, std::map<std::string, std::string>> reports;  // rank -> key -> value
  std::vector<std::string> out_lines, err_lines;              // sorted
  std::vector<std::string> out_in_order;                      // stdout lines as printed
  std::map<std::string, std::string> files;                   // relative path -> content
  std::string raw_out, raw_err;                               // as printed, for -v
};

/// Reads a run's results from its working directory `dir` (probe reports in dir/report) and
/// its captured output; replaces `dir` in paths by "@W", host names by "node<i>" in the order
/// of the ranks, ctime() timestamps by "<ctime>" and "[host:pid]" prefixes by "[host:PID]".
Side collect(const std::string& dir, int status, bool timed_out, const std::string& out,
             const std::string& err, const std::vector<std::string>& inputs);

struct Difference {
  unsigned kind = 0;  // Report, Stdout, Stderr, Files or Exit
  std::string key;    // for Report: the report's key ("cpus", "env.NAME")
  std::string text;   // one line for people
};

/// Every difference `checks` asks about; empty when the runs agree.
std::vector<Difference> differences(const Side& mpirun, const Side& mpilaunch, unsigned checks);

}  // namespace mpilaunch::compat
