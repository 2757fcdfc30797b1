// mpirun(1) 4.1 options that mpilaunch accepts without effect (with the reason) or refuses by
// name (with the reason), so that no mpirun command line is read wrongly. docs/mpirun-compat.md
// lists every option with its answer.
#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {

void add_compat_options(std::vector<OptionSpec>& t) {
  // Accepted without effect.
  t.push_back(ignored({"-v", "--verbose", "-verbose"}, 0,
                      "mpirun's verbose flag has no output of its own; --events records the job"));
  t.push_back(ignored({"--noprefix", "-noprefix"}, 0,
                      "mpilaunch adds an install prefix only when --prefix gives one (which "
                      "--noprefix does not cancel, as in mpirun 4.1.4)"));
  // The ranks still get the MCA parameter mpirun 4.1.4 gives them for each (measured).
  t.push_back(passes("orte_no_vm", ignored({"--novm", "-novm"}, 0,
                                           "agents start only on hosts that run ranks, which "
                                           "is what --novm asks")));
  t.push_back(passes("orte_use_regexp",
                     ignored({"--use-regexp", "-use-regexp"}, 0,
                             "the agents' launch never passes node lists on a command line")));
  t.push_back(passes("opal_if_do_not_resolve",
                     ignored({"--do-not-resolve", "-do-not-resolve"}, 0,
                             "hosts are resolved by the ssh session that reaches them")));
  t.push_back(ignored({"--fwd-mpirun-port", "-fwd-mpirun-port"}, 0,
                      "agents talk to mpilaunch over their own start channel, not a port"));
  t.push_back(ignored({"--enable-instant-on-support", "-enable-instant-on-support"}, 0,
                      "experimental in mpirun; mpilaunch's agents always serve PMIx"));
  t.push_back(passes("orte_report_launch_progress",
                     ignored({"--show-progress", "-show-progress"}, 0,
                             "mpilaunch shows its start-up progress whenever stderr is a "
                             "terminal")));
  t.push_back(passes("orte_report_child_jobs_separately",
                     ignored({"--report-child-jobs-separately", "-report-child-jobs-separately"}, 0,
                             "a spawned child's failure ends the job with that child's status, "
                             "with or without it, as under mpirun 4.1.4")));
  constexpr std::string_view kDaemonDebug =
      "ORTE daemon debugging; MPILAUNCH_DEBUG=1 prints the launcher's transitions and --events "
      "records the job";
  t.push_back(
      passes("orte_debug", ignored({"-d", "--debug-devel", "-debug-devel"}, 0, kDaemonDebug)));
  t.push_back(passes("orte_debug_daemons",
                     ignored({"--debug-daemons", "-debug-daemons"}, 0, kDaemonDebug)));
  t.push_back(passes("orte_debug_daemons_file",
                     ignored({"--debug-daemons-file", "-debug-daemons-file"}, 0, kDaemonDebug)));
  t.push_back(
      passes("orte_leave_session_attached",
             ignored({"--leave-session-attached", "-leave-session-attached"}, 0, kDaemonDebug)));
  t.push_back(ignored({"--personality", "-personality"}, 1,
                      "the only personality of Open MPI 4.1 is 'ompi'"));
  // Refused by name.
  t.push_back(refused({"--launch-agent", "-launch-agent"}, 1,
                      "mpilaunch starts its own agent; --agent-path says where it is"));
  t.push_back(refused({"-s", "--preload-binary", "-preload-binary"}, 0,
                      "programs are not copied to the nodes; install them there (or share the "
                      "file system)"));
  t.push_back(refused({"--preload-files", "-preload-files"}, 1,
                      "files are not copied to the nodes; install them there (or share the "
                      "file system)"));
  t.push_back(refused({"--set-cwd-to-session-dir", "-set-cwd-to-session-dir"}, 0,
                      "there is no ORTE session directory; use --wdir"));
  constexpr std::string_view kNoXml =
      "there is no XML output; --events writes a JSON Lines timeline";
  t.push_back(refused({"--xml", "-xml"}, 0, kNoXml));
  t.push_back(refused({"--xml-file", "-xml-file"}, 1, kNoXml));
  t.push_back(refused({"--xterm", "-xterm"}, 1, "ranks are not started in xterm windows"));
  t.push_back(refused({"--output-proctable", "-output-proctable"}, 0,
                      "there is no debugger proctable; --events lists every rank's pid"));
  constexpr std::string_view kNoDebugger =
      "no parallel debugger is started; attach one to the ranks' pids (--events lists them)";
  t.push_back(refused({"--debug", "-debug", "--tv", "-tv"}, 0, kNoDebugger));
  t.push_back(refused({"--debugger", "-debugger"}, 1, kNoDebugger));
  constexpr std::string_view kNoDvm = "mpilaunch has no persistent virtual machine (DVM)";
  t.push_back(refused({"--dvm", "-dvm", "--terminate", "-terminate"}, 0, kNoDvm));
  t.push_back(refused({"--hnp", "-hnp", "--max-vm-size", "-max-vm-size"}, 1, kNoDvm));
  t.push_back(refused({"--ompi-server", "-ompi-server", "--report-uri", "-report-uri",
                       "--report-events", "-report-events"},
                      1,
                      "mpilaunch serves no publish/lookup server or tool URI (dynamic processes "
                      "are not served)"));
  t.push_back(refused({"--continuous", "-continuous"}, 0,
                      "jobs end when their ranks end; use --max-restarts to run again after "
                      "failures"));
  t.push_back(refused({"-cf", "--cartofile", "-cartofile"}, 1, "cartography files are not read"));
}

}  // namespace mpilaunch::launcher
