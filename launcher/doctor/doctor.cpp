#include "launcher/doctor/doctor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>
#include "common/text_format.hpp"

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "launcher/start/ssh_failure.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::string_view kMarker = "mpilaunch-self-check=1";

std::size_t index_of(std::string_view check) {
  const auto* it = std::find(std::begin(kDoctorChecks), std::end(kDoctorChecks), check);
  return static_cast<std::size_t>(it - std::begin(kDoctorChecks));
}

Error host_failure(const std::string& host, std::string phase, std::string detail) {
  return Error{.kind = ErrorKind::AgentStartFailed,
               .host = host,
               .phase = std::move(phase),
               .detail = std::move(detail)};
}

std::optional<double> to_double(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string value_or(const std::map<std::string, std::string>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

const char* state_word(CheckState s) {
  switch (s) {
    case CheckState::Ok:
      return "ok";
    case CheckState::Warn:
      return "warn";
    case CheckState::Fail:
      return "FAIL";
    case CheckState::Skipped:
      return "-";
  }
  return "?";
}

constexpr std::string_view kLoginFix =
    "make the shell's start-up files return early for non-interactive shells (bash reads "
    "~/.bashrc for ssh commands; put `[[ $- == *i* ]] || return` before tools such as pyenv, "
    "conda or module loads): docs/ssh.md";

// What a warning means, after its value, in the table.
std::string warning_note(const DoctorCheck& c) {
  if (c.name == "slots") return " (more slots than CPUs: ranks share cores)";
  if (c.name == "login")
    return mpilaunch::format(
        " of login shell start-up before the agent ran, which every job pays on this host"
        "\n  fix: {}",
        kLoginFix);
  return " (clock skew)";
}

// A check that fails with the reason the agent reported as "<name>_error", and passes
// without one.
void pass_unless_reported(DoctorCheck& check, const std::string& host,
                          const std::map<std::string, std::string>& found) {
  if (const std::string why = value_or(found, check.name + "_error"); why.empty()) {
    check.state = CheckState::Ok;
  } else {
    check.state = CheckState::Fail;
    check.error = host_failure(host, check.name, why);
  }
}

// The agent's checks, once its self-check output is known.
void assess_agent(const DoctorProbe& p, const std::map<std::string, std::string>& found,
                  std::string_view version, unsigned protocol, DoctorRow& row) {
  auto& c = row.checks;
  c[index_of("agent")] = {"agent", CheckState::Ok, value_or(found, "hostname"), std::nullopt};

  const std::string their_version = value_or(found, "version");
  const std::string their_protocol = value_or(found, "protocol");
  DoctorCheck& v = c[index_of("version")];
  v.name = "version";
  v.value = their_version;
  if (their_version == version && their_protocol == std::to_string(protocol)) {
    v.state = CheckState::Ok;
  } else {
    v.state = CheckState::Fail;
    v.error =
        Error{.kind = ErrorKind::ProtocolMismatch,
              .host = p.host,
              .phase = "version",
              .detail = mpilaunch::format("the agent there is {} (protocol {}), this launcher is "
                                          "{} (protocol {})",
                                          their_version, their_protocol, version, protocol)};
  }

  DoctorCheck& pmix = c[index_of("pmix")];
  pmix.name = "pmix";
  pmix.value = value_or(found, "pmix");
  pmix.value = pmix.value.substr(0, pmix.value.find(" ("));  // "OpenPMIx 4.2.2 (PMIx Standard..."
  pass_unless_reported(pmix, p.host, found);

  DoctorCheck& slots = c[index_of("slots")];
  slots.name = "slots";
  const auto cpus = to_double(value_or(found, "cpus"));
  slots.value = cpus ? mpilaunch::format("{}/{}", p.slots, static_cast<long>(*cpus))
                     : mpilaunch::format("{}/?", p.slots);
  // More slots than CPUs is allowed (oversubscription by choice) but worth a look.
  slots.state = cpus && *cpus >= p.slots ? CheckState::Ok : CheckState::Warn;

  DoctorCheck& tmp = c[index_of("tmpdir")];
  tmp.name = "tmpdir";
  tmp.value = value_or(found, "tmpdir");
  pass_unless_reported(tmp, p.host, found);

  // Only over ssh: the agent finds the process sshd forked for the command.
  DoctorCheck& login = c[index_of("login")];
  login.name = "login";
  if (const auto ms = to_double(value_or(found, "login_ms"))) {
    login.value = mpilaunch::format("{}ms", static_cast<long>(*ms));
    login.state = *ms < static_cast<double>(kLoginWarnMs) ? CheckState::Ok : CheckState::Warn;
  }

  DoctorCheck& clock = c[index_of("clock")];
  clock.name = "clock";
  const auto remote = to_double(value_or(found, "time"));
  if (!remote || p.received_at < p.sent_at) {
    clock.state = CheckState::Fail;
    clock.error = host_failure(p.host, "clock", "the agent reported no time");
    return;
  }
  // The remote clock was read between sending and receiving: only a reading outside that
  // interval proves skew, by at least its distance from the interval.
  const double skew = *remote < p.sent_at       ? *remote - p.sent_at
                      : *remote > p.received_at ? *remote - p.received_at
                                                : 0.0;
  const double beyond = std::abs(skew);
  clock.value = mpilaunch::format("{:+.3f}s", skew);
  clock.state = beyond > kClockFailSeconds   ? CheckState::Fail
                : beyond > kClockWarnSeconds ? CheckState::Warn
                                             : CheckState::Ok;
  if (clock.state == CheckState::Fail)
    clock.error = host_failure(
        p.host, "clock",
        mpilaunch::format("its clock is at least {:+.3f} s off this machine's (more than {} s)",
                          skew, kClockFailSeconds));
}

}  // namespace

bool DoctorRow::ok() const {
  return std::none_of(checks.begin(), checks.end(),
                      [](const DoctorCheck& c) { return c.state == CheckState::Fail; });
}

std::optional<std::map<std::string, std::string>> parse_self_check(std::string_view text) {
  std::map<std::string, std::string> out;
  bool seen = false;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!seen) {
      seen = line == kMarker;
      continue;
    }
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out.insert_or_assign(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  if (!seen) return std::nullopt;
  return out;
}

DoctorRow assess_probe(const DoctorProbe& p, std::string_view version, unsigned protocol) {
  DoctorRow row{.host = p.host, .checks = {}};
  for (std::string_view name : kDoctorChecks) row.checks.push_back({std::string(name)});
  auto& c = row.checks;
  const std::size_t agent = index_of("agent");

  if (p.bring_up) {
    // The phase that failed; every step before it passed, every step after it never ran.
    const std::string phase = p.bring_up->kind == ErrorKind::UnknownHost
                                  ? std::string("resolve")
                                  : (p.bring_up->phase.empty() ? "connect" : p.bring_up->phase);
    const std::size_t failed = std::min(index_of(phase == "exec" ? "agent" : phase), agent);
    for (std::size_t i = 0; i < failed; ++i) c[i].state = CheckState::Ok;
    c[failed].state = CheckState::Fail;
    c[failed].error = *p.bring_up;
    return row;
  }
  for (std::size_t i = 0; i < agent; ++i)
    c[i].state = p.local ? CheckState::Skipped : CheckState::Ok;
  if (p.local) c[index_of("resolve")].value = "local";

  const auto found = parse_self_check(p.output);
  if (!found) {
    // Not our agent's answer: a missing agent (the shell's 127), or a program that is not
    // mpilaunch-agent or predates --self-check.
    if (p.timed_out) {
      c[agent].state = CheckState::Fail;
      c[agent].error =
          Error{.kind = ErrorKind::AgentStartFailed,
                .host = p.host,
                .phase = "handshake",
                .detail = mpilaunch::format("{} gave no answer in time", p.agent_command)};
      return row;
    }
    RemoteExit exit{.exit_status = p.exit_status, .stderr_tail = p.stderr_tail, .dropped = {}};
    std::optional<Error> why = classify_remote_exit(p.host, p.agent_command, exit);
    if (!why || why->phase != "exec")
      why = Error{
          .kind = ErrorKind::AgentStartFailed,
          .host = p.host,
          .phase = "version",
          .detail = mpilaunch::format(
              "{} did not answer like mpilaunch-agent {} (exit status {}){}{}", p.agent_command,
              version, p.exit_status ? std::to_string(*p.exit_status) : "unknown",
              p.stderr_tail.empty() ? "" : ": ", p.stderr_tail)};
    c[agent].state = CheckState::Fail;
    c[agent].error = std::move(why);
    return row;
  }
  assess_agent(p, *found, version, protocol, row);
  return row;
}

std::string render_doctor_table(const std::vector<DoctorRow>& rows) {
  std::size_t host_width = 4;
  for (const DoctorRow& r : rows) host_width = std::max(host_width, r.host.size());
  std::vector<std::size_t> widths;
  for (std::string_view name : kDoctorChecks) widths.push_back(name.size());
  const auto cell = [](const DoctorCheck& c) {
    if (c.state == CheckState::Ok && !c.value.empty() && c.name != "agent") return c.value;
    if (c.state == CheckState::Warn && !c.value.empty()) return c.value + "!";
    return std::string(state_word(c.state));
  };
  for (const DoctorRow& r : rows)
    for (std::size_t i = 0; i < r.checks.size(); ++i)
      widths[i] = std::max(widths[i], cell(r.checks[i]).size());

  std::string out = mpilaunch::format("{:<{}}", "HOST", host_width);
  for (std::size_t i = 0; i < widths.size(); ++i) {
    std::string head(kDoctorChecks[i]);
    for (char& ch : head) ch = static_cast<char>(ch - 'a' + 'A');
    out += mpilaunch::format("  {:<{}}", head, widths[i]);
  }
  out += "  RESULT\n";
  for (const DoctorRow& r : rows) {
    out += mpilaunch::format("{:<{}}", r.host, host_width);
    for (std::size_t i = 0; i < r.checks.size(); ++i)
      out += mpilaunch::format("  {:<{}}", cell(r.checks[i]), widths[i]);
    out += r.ok() ? "  ok\n" : "  FAILED\n";
  }
  int failed = 0;
  for (const DoctorRow& r : rows) {
    if (!r.ok()) ++failed;
    for (const DoctorCheck& c : r.checks) {
      if (c.error)
        out += mpilaunch::format("\n{} {}: {}\n  fix: {}\n", r.host, c.name, message(*c.error),
                                 hint(*c.error));
      else if (c.state == CheckState::Warn)
        out +=
            mpilaunch::format("\n{} {}: warning: {}{}\n", r.host, c.name, c.value, warning_note(c));
    }
  }
  out += mpilaunch::format("\n{} of {} host{} passed\n",
                           rows.size() - static_cast<std::size_t>(failed), rows.size(),
                           rows.size() == 1 ? "" : "s");
  return out;
}

std::string render_doctor_json(const std::vector<DoctorRow>& rows) {
  nlohmann::json hosts = nlohmann::json::array();
  bool all_ok = true;
  for (const DoctorRow& r : rows) {
    nlohmann::json checks = nlohmann::json::array();
    for (const DoctorCheck& c : r.checks) {
      nlohmann::json j = {{"name", c.name}, {"state", state_word(c.state)}, {"value", c.value}};
      if (c.state == CheckState::Fail) j["state"] = "fail";
      if (c.state == CheckState::Skipped) j["state"] = "skipped";
      if (c.error) {
        j["error"] = error_to_json(*c.error);
        j["fix"] = hint(*c.error);
      }
      if (c.state == CheckState::Warn && c.name == "login") j["fix"] = kLoginFix;
      checks.push_back(std::move(j));
    }
    all_ok = all_ok && r.ok();
    hosts.push_back({{"host", r.host}, {"ok", r.ok()}, {"checks", std::move(checks)}});
  }
  return nlohmann::json{{"ok", all_ok}, {"hosts", std::move(hosts)}}.dump(2) + "\n";
}

}  // namespace mpilaunch::launcher
