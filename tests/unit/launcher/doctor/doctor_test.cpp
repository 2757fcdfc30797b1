#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "launcher/cli/options.hpp"
#include "launcher/doctor/doctor.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

const DoctorCheck& check(const DoctorRow& row, std::string_view name) {
  for (const DoctorCheck& c : row.checks)
    if (c.name == name) return c;
  FAIL("no check " << name);
  return row.checks.front();
}

DoctorProbe good_probe() {
  DoctorProbe p;
  p.host = "node1";
  p.slots = 2;
  p.agent_command = "'/opt/mpilaunch-agent' --self-check";
  p.sent_at = 1000.0;
  p.received_at = 1000.2;
  p.exit_status = 0;
  p.output =
      "mpilaunch-self-check=1\nversion=1.2.3\nprotocol=7\nhostname=n1\ncpus=4\n"
      "login_ms=12\ntmpdir=/dev/shm\npmix=OpenPMIx 4.2.2 (PMIx Standard: 4.2)\ntime=1000.1\n";
  return p;
}

}  // namespace

TEST_CASE("doctor: self-check lines after the marker; banners before it are skipped") {
  const auto none = parse_self_check("hello from motd\nversion=1\n");
  CHECK(!none);
  const auto found =
      parse_self_check("Welcome!\r\nmpilaunch-self-check=1\r\nversion=1.0\nnoequals\n=x\na=b=c");
  REQUIRE(found);
  CHECK(found->at("version") == "1.0");
  CHECK(found->at("a") == "b=c");
  CHECK(found->size() == 2);
}

TEST_CASE("doctor: a good probe passes every check, with values") {
  const DoctorRow row = assess_probe(good_probe(), "1.2.3", 7);
  CHECK(row.ok());
  REQUIRE(row.checks.size() == std::size(kDoctorChecks));
  for (const DoctorCheck& c : row.checks) CHECK_MESSAGE(c.state == CheckState::Ok, c.name);
  CHECK(check(row, "pmix").value == "OpenPMIx 4.2.2");
  CHECK(check(row, "slots").value == "2/4");
  CHECK(check(row, "clock").value == "+0.000s");
  CHECK(check(row, "login").value == "12ms");
}

TEST_CASE("doctor: a slow login shell is a warning with the fix; no reading, no check") {
  DoctorProbe p = good_probe();
  p.output += "login_ms=" + std::to_string(kLoginWarnMs - 1) + "\n";
  CHECK(check(assess_probe(p, "1.2.3", 7), "login").state == CheckState::Ok);
  p.output += "login_ms=850\n";
  const DoctorRow slow = assess_probe(p, "1.2.3", 7);
  CHECK(slow.ok());  // a warning, not a failure
  CHECK(check(slow, "login").state == CheckState::Warn);
  CHECK(check(slow, "login").value == "850ms");
  const std::string table = render_doctor_table({slow});
  CHECK(table.find("850ms!") != std::string::npos);
  CHECK(table.find("node1 login: warning: 850ms of login shell start-up") != std::string::npos);
  CHECK(table.find("~/.bashrc") != std::string::npos);
  CHECK(table.find("1 of 1 host passed") != std::string::npos);
  const auto json = nlohmann::json::parse(render_doctor_json({slow}));
  for (const auto& c : json.at("hosts")[0].at("checks"))
    if (c.at("name") == "login") {
      CHECK(c.at("state") == "warn");
      CHECK(c.at("fix").get<std::string>().find("~/.bashrc") != std::string::npos);
    }

  DoctorProbe local = good_probe();  // a local check, or an agent not under sshd
  local.output =
      "mpilaunch-self-check=1\nversion=1.2.3\nprotocol=7\ncpus=4\ntmpdir=/tmp\n"
      "pmix=OpenPMIx 4.2.2\ntime=1000.1\n";
  CHECK(check(assess_probe(local, "1.2.3", 7), "login").state == CheckState::Skipped);
}

TEST_CASE("doctor: a bring-up failure fails its phase, passes the ones before, skips the rest") {
  DoctorProbe p = good_probe();
  p.output.clear();
  p.bring_up = Error{.kind = ErrorKind::AgentStartFailed, .host = "node1", .phase = "auth"};
  DoctorRow row = assess_probe(p, "1.2.3", 7);
  CHECK(!row.ok());
  CHECK(check(row, "connect").state == CheckState::Ok);
  CHECK(check(row, "auth").state == CheckState::Fail);
  CHECK(check(row, "agent").state == CheckState::Skipped);
  CHECK(check(row, "clock").state == CheckState::Skipped);

  p.bring_up = Error{.kind = ErrorKind::UnknownHost, .host = "node1", .phase = "resolve"};
  row = assess_probe(p, "1.2.3", 7);
  CHECK(check(row, "resolve").state == CheckState::Fail);
  CHECK(check(row, "resolve").error->kind == ErrorKind::UnknownHost);
  CHECK(check(row, "connect").state == CheckState::Skipped);

  p.bring_up = Error{.kind = ErrorKind::AgentStartFailed, .host = "node1", .phase = "exec"};
  row = assess_probe(p, "1.2.3", 7);
  CHECK(check(row, "auth").state == CheckState::Ok);
  CHECK(check(row, "agent").state == CheckState::Fail);
}

TEST_CASE("doctor: a missing agent is phase exec; another program's answer is phase version") {
  DoctorProbe p = good_probe();
  p.output.clear();
  p.exit_status = 127;
  p.stderr_tail = "sh: 1: /opt/mpilaunch-agent: not found\n";
  DoctorRow row = assess_probe(p, "1.2.3", 7);
  const DoctorCheck& agent = check(row, "agent");
  CHECK(agent.state == CheckState::Fail);
  CHECK(agent.error->phase == "exec");
  CHECK(agent.error->detail.find("/opt/mpilaunch-agent") != std::string::npos);

  p.exit_status = 64;
  p.stderr_tail = "mpilaunch-agent: unknown argument '--self-check'";
  row = assess_probe(p, "1.2.3", 7);
  CHECK(check(row, "agent").error->phase == "version");
  CHECK(check(row, "agent").error->detail.find("unknown argument") != std::string::npos);
}

TEST_CASE("doctor: a probe stopped at its deadline without an answer is phase handshake") {
  DoctorProbe p = good_probe();
  p.output.clear();
  p.exit_status.reset();
  p.timed_out = true;
  const DoctorRow row = assess_probe(p, "1.2.3", 7);
  const DoctorCheck& agent = check(row, "agent");
  CHECK(agent.state == CheckState::Fail);
  CHECK(agent.error->phase == "handshake");
}

TEST_CASE("doctor: version, PMIx, temp dir, slots and clock findings") {
  DoctorProbe p = good_probe();
  DoctorRow row = assess_probe(p, "1.2.4", 7);
  CHECK(check(row, "version").state == CheckState::Fail);
  CHECK(check(row, "version").error->kind == ErrorKind::ProtocolMismatch);
  row = assess_probe(p, "1.2.3", 8);
  CHECK(check(row, "version").state == CheckState::Fail);

  p.output +=
      "pmix_error=PMIx_server_init failed: NOT-FOUND (-46)\n"
      "tmpdir_error=cannot create a directory in /dev/shm: No space left on device\n";
  p.slots = 8;
  row = assess_probe(p, "1.2.3", 7);
  CHECK(check(row, "pmix").state == CheckState::Fail);
  CHECK(check(row, "pmix").error->phase == "pmix");
  CHECK(check(row, "tmpdir").state == CheckState::Fail);
  CHECK(check(row, "tmpdir").error->detail.find("No space") != std::string::npos);
  CHECK(check(row, "slots").state == CheckState::Warn);
  CHECK(check(row, "slots").value == "8/4");

  p = good_probe();
  p.output += "time=1001.0\n";  // 0.8 s after the answer arrived: a warning
  CHECK(check(assess_probe(p, "1.2.3", 7), "clock").state == CheckState::Warn);
  p.output += "time=990.0\n";  // 10 s before it was asked: a failure
  row = assess_probe(p, "1.2.3", 7);
  CHECK(check(row, "clock").state == CheckState::Fail);
  CHECK(check(row, "clock").value == "-10.000s");
  CHECK(!row.ok());
}

TEST_CASE("doctor: the table names each failure with its fix; JSON carries the same") {
  DoctorProbe bad = good_probe();
  bad.host = "node2";
  bad.output.clear();
  bad.bring_up = Error{.kind = ErrorKind::AgentStartFailed,
                       .host = "node2",
                       .phase = "connect",
                       .detail = "Connection refused"};
  const std::vector<DoctorRow> rows = {assess_probe(good_probe(), "1.2.3", 7),
                                       assess_probe(bad, "1.2.3", 7)};
  const std::string table = render_doctor_table(rows);
  CHECK(table.find("node2 connect: ") != std::string::npos);
  CHECK(table.find("Connection refused") != std::string::npos);
  CHECK(table.find("  fix: ") != std::string::npos);
  CHECK(table.find("1 of 2 hosts passed") != std::string::npos);

  const auto j = nlohmann::json::parse(render_doctor_json(rows));
  CHECK(j.at("ok") == false);
  CHECK(j.at("hosts")[0].at("ok") == true);
  const auto& connect = j.at("hosts")[1].at("checks")[1];
  CHECK(connect.at("state") == "fail");
  CHECK(connect.at("error").at("kind") == "agent-start-failed");
  CHECK(!connect.at("fix").get<std::string>().empty());
  CHECK(j.at("hosts")[1].at("checks")[3].at("state") == "skipped");
}

TEST_CASE("options: -H with --hostfile and --wait-for-hosts") {
  const auto both = parse_options({"-H", "a", "--hostfile", "f", "x"});
  REQUIRE(both);
  CHECK(both->hostfile == "f");
  CHECK(both->hosts.size() == 1);
  CHECK(parse_options({"x"})->wait_for_hosts_seconds == 0);
  CHECK(parse_options({"--wait-for-hosts", "30", "x"})->wait_for_hosts_seconds == 30);
  CHECK(!parse_options({"--wait-for-hosts", "soon", "x"}));
}
