#include "launcher/start/agent_deploy.hpp"

#include <doctest/doctest.h>

#include "common/error_catalog.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {
const std::string kSum(64, 'a');
const std::string kOther(64, 'b');
}  // namespace

TEST_CASE("deploy: --deploy-agent words round-trip, anything else is refused") {
  for (const DeployMode m : {DeployMode::Auto, DeployMode::Always, DeployMode::Never})
    CHECK(parse_deploy_mode(to_string(m)) == m);
  CHECK_FALSE(parse_deploy_mode("yes"));
  CHECK_FALSE(parse_deploy_mode(""));
  CHECK_FALSE(parse_deploy_mode("Auto"));
}

TEST_CASE("deploy: the cache lives under XDG_CACHE_HOME or ~/.cache, uploads beside it") {
  CHECK(agent_cache_dir_expression("1.2.3") ==
        "\"${XDG_CACHE_HOME:-$HOME/.cache}\"/mpilaunch/'1.2.3'");
  const std::string dir = "/home/u/.cache/mpilaunch/1.2.3";
  CHECK(agent_cache_path(dir) == dir + "/mpilaunch-agent");
  const std::string a = agent_upload_temp_path(dir, "hostA-17-1");
  const std::string b = agent_upload_temp_path(dir, "hostA-18-1");
  CHECK(a != b);
  CHECK(a.starts_with(dir + "/"));  // same directory: rename is atomic
  CHECK(a != agent_cache_path(dir));
  CHECK(prepare_command("/h/it's") == "umask 077 && mkdir -p '/h/it'\\''s'");
}

TEST_CASE("deploy: the probe output is parsed into facts") {
  const RemoteAgentProbe found = parse_probe_output(
      "installed: mpilaunch-agent 1.2.3 (protocol 4)\ncachedir: /h/.cache/m\n"
      "cached: " +
      kSum + "\n");
  CHECK(found.installed_version == "1.2.3");
  CHECK(found.cache_dir == "/h/.cache/m");
  CHECK(parse_probe_output("cachedir: relative/dir\n").cache_dir.empty());
  CHECK(found.cached_sha256 == kSum);
  CHECK(found.loader_failure.empty());

  const RemoteAgentProbe none = parse_probe_output("installed: none\r\ncached: none\r\n");
  CHECK_FALSE(none.installed_version);
  CHECK_FALSE(none.cached_sha256);

  // A shell's "not found" or a truncated checksum is not a fact.
  const RemoteAgentProbe junk =
      parse_probe_output("installed: sh: 1: mpilaunch-agent: not found\ncached: deadbeef\n");
  CHECK_FALSE(junk.installed_version);
  CHECK_FALSE(junk.cached_sha256);

  const RemoteAgentProbe loader = parse_probe_output(
      "installed: none\nprobe: /x/mpilaunch-agent: error while loading shared libraries: "
      "libpmix.so.2: cannot open shared object file: No such file or directory\ncached: none\n");
  CHECK(loader.loader_failure.find("libpmix.so.2") != std::string::npos);
}

TEST_CASE("deploy: auto uses an installed agent of the same version") {
  RemoteAgentProbe p;
  p.installed_version = "1.2.3";
  CHECK(decide_deploy(DeployMode::Auto, p, "1.2.3", kSum).action == DeployAction::UseInstalled);
  CHECK(decide_deploy(DeployMode::Never, p, "1.2.3", kSum).action == DeployAction::UseInstalled);
  CHECK(decide_deploy(DeployMode::Always, p, "1.2.3", kSum).action == DeployAction::Upload);
}

TEST_CASE("deploy: auto reuses a matching cached copy and replaces a differing one") {
  RemoteAgentProbe p;
  p.installed_version = "1.2.2";  // another version: not usable
  p.cached_sha256 = kSum;
  CHECK(decide_deploy(DeployMode::Auto, p, "1.2.3", kSum).action == DeployAction::UseCached);
  const DeployDecision corrupted = decide_deploy(DeployMode::Auto, p, "1.2.3", kOther);
  CHECK(corrupted.action == DeployAction::Upload);
  CHECK(corrupted.reason.find("differs") != std::string::npos);
  CHECK(decide_deploy(DeployMode::Always, p, "1.2.3", kSum).action == DeployAction::Upload);
}

TEST_CASE("deploy: auto uploads when nothing is there, never refuses") {
  const RemoteAgentProbe empty;
  CHECK(decide_deploy(DeployMode::Auto, empty, "1.2.3", kSum).action == DeployAction::Upload);
  const DeployDecision refused = decide_deploy(DeployMode::Never, empty, "1.2.3", kSum);
  CHECK(refused.action == DeployAction::Refuse);
  RemoteAgentProbe old;
  old.installed_version = "1.0.0";
  old.cached_sha256 = kSum;  // never ignores the cache too
  const DeployDecision refused_old = decide_deploy(DeployMode::Never, old, "1.2.3", kSum);
  CHECK(refused_old.action == DeployAction::Refuse);
  CHECK(refused_old.reason.find("1.0.0") != std::string::npos);
}

TEST_CASE("deploy: remote commands quote every path and checksum") {
  const std::string probe = probe_command("/opt/it's/mpilaunch-agent", "1.2.3");
  CHECK(probe.find("'/opt/it'\\''s/mpilaunch-agent' --version") != std::string::npos);
  CHECK(probe.find("d=\"${XDG_CACHE_HOME:-$HOME/.cache}\"/mpilaunch/'1.2.3'") != std::string::npos);

  const std::string dir = "/h/.cache/mpilaunch/1.2.3";
  const std::string publish =
      publish_command(agent_upload_temp_path(dir, "t1"), agent_cache_path(dir), kSum);
  CHECK(publish.find("'" + kSum + "'") != std::string::npos);
  // The rename comes after the check; a mismatch removes the temp file and exits 3.
  CHECK(publish.find("sha256sum") < publish.find("mv -f"));
  CHECK(publish.find("rm -f") != std::string::npos);
  CHECK(publish.find("exit 3") != std::string::npos);
  // The published copy runs once, so that a missing shared library is seen at deploy time.
  CHECK(publish.find("'" + agent_cache_path(dir) + "' --version") > publish.find("mv -f"));
}

TEST_CASE("deploy: auto's first command execs a matching agent, else prints the probe") {
  const std::string c = exec_or_probe_command("/opt/a b/mpilaunch-agent", "1.2.3", "--stdio");
  CHECK(c.find("case \"$v\" in 'mpilaunch-agent 1.2.3 '*) exec '/opt/a b/mpilaunch-agent' "
               "--stdio;;") != std::string::npos);
  CHECK(c.find("echo MPILAUNCH-PROBE; ") < c.find("installed: "));
  CHECK(c.ends_with(probe_command("/opt/a b/mpilaunch-agent", "1.2.3")));
}

TEST_CASE("deploy: a dynamic-loader failure names the missing library") {
  CHECK(missing_shared_library("/home/u/.cache/mpilaunch/1/mpilaunch-agent: error while loading "
                               "shared libraries: libpmix.so.2: cannot open shared object file: "
                               "No such file or directory") == "libpmix.so.2");
  CHECK_FALSE(missing_shared_library("sh: 1: mpilaunch-agent: not found"));
  CHECK_FALSE(missing_shared_library("error while loading shared libraries: "));
}

TEST_CASE("deploy: failures are agent-start-failed, phase deploy, with the fix") {
  const Error lib = deploy_error("node2", DeployFailure::MissingLibrary, "libpmix.so.2");
  CHECK(lib.kind == ErrorKind::AgentStartFailed);
  CHECK(lib.phase == "deploy");
  CHECK(lib.host == "node2");
  CHECK(lib.detail.find("libpmix.so.2") != std::string::npos);
  CHECK(lib.detail.find("libpmix2") != std::string::npos);
  CHECK(retry_class(lib) == RetryClass::Never);
  CHECK(hint(lib).find("--agent-path") != std::string::npos);

  for (const DeployFailure f :
       {DeployFailure::SftpRefused, DeployFailure::NotWritable, DeployFailure::DiskFull,
        DeployFailure::ChecksumMismatch, DeployFailure::LocalAgentMissing}) {
    const Error e = deploy_error("node1", f, "evidence-text");
    CHECK(e.phase == "deploy");
    CHECK(e.detail.find("evidence-text") != std::string::npos);
  }
}
