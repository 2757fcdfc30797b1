#pragma once
/// `mpilaunch doctor`, the pure part: what one host's probe found (the ssh bring-up, the
/// agent's `--self-check` lines, the local send/receive times) turned into one row of checks,
/// and the rows rendered as a table or JSON. Every failing check is an Error, worded by the
/// error catalog; I/O lives in doctor_command.cpp.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace mpilaunch::launcher {

/// The checks, in the order they run on a host (a failing check skips the ones after it up to
/// "agent"; the agent's own checks are all reported).
inline constexpr std::string_view kDoctorChecks[] = {"resolve", "connect", "hostkey", "auth",
                                                     "agent",   "version", "pmix",    "slots",
                                                     "tmpdir",  "clock",   "login"};

/// Skew of a host's clock that still passes, and the one that fails.
inline constexpr double kClockWarnSeconds = 0.5;
inline constexpr double kClockFailSeconds = 5.0;
/// The login shell's start-up before the agent ran (the agent's `login_ms`) that still passes
/// without a warning: a bare shell and the agent's loading take about 10 ms; start-up files
/// that run tools (`pyenv init`, `conda`, `module load`) take hundreds, on every job.
inline constexpr long kLoginWarnMs = 100;

/// What the I/O side found for one host.
struct DoctorProbe {
  std::string host;
  int slots = 1;
  bool local = false;                   // checked on this machine, without ssh
  std::optional<Error> bring_up;        // resolve/connect/hostkey/auth/exec failure
  std::string output;                   // the agent's stdout for --self-check
  std::optional<int> exit_status;       // the agent's exit status, when known
  std::string stderr_tail;              // the agent's (or the remote shell's) stderr
  std::string agent_command;            // what was run, for messages
  bool timed_out = false;               // stopped at doctor's deadline for this host
  double sent_at = 0, received_at = 0;  // local wall clock, seconds since the epoch
};

enum class CheckState { Ok, Warn, Fail, Skipped };

struct DoctorCheck {
  std::string name;  // one of kDoctorChecks
  CheckState state = CheckState::Skipped;
  std::string value;           // what was found ("0.3.0", "2 cpus", "+0.002 s"), may be empty
  std::optional<Error> error;  // set when state is Fail
};

struct DoctorRow {
  std::string host;
  std::vector<DoctorCheck> checks;  // one per kDoctorChecks entry, same order
  bool ok() const;
};

/// "key=value" lines after the "mpilaunch-self-check=1" marker line; nullopt without it (not
/// our agent, or another program's output). Lines before the marker (shell banners) are skipped.
std::optional<std::map<std::string, std::string>> parse_self_check(std::string_view text);

/// The row for one probe. `version`/`protocol` are this launcher's.
DoctorRow assess_probe(const DoctorProbe& probe, std::string_view version, unsigned protocol);

/// A fixed-width table, one line per host, then what failed and how to fix it, per host.
std::string render_doctor_table(const std::vector<DoctorRow>& rows);
/// {"ok": bool, "hosts": [{"host", "ok", "checks": [{"name", "state", "value", "error"?}]}]}.
std::string render_doctor_json(const std::vector<DoctorRow>& rows);

}  // namespace mpilaunch::launcher
