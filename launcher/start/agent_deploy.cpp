#include "launcher/start/agent_deploy.hpp"

#include "common/text_format.hpp"

#include "common/text.hpp"
#include "launcher/start/ssh_failure.hpp"

namespace mpilaunch::launcher {

namespace {

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string agent_cache_dir_expression(std::string_view version) {
  return mpilaunch::format("\"${{XDG_CACHE_HOME:-$HOME/.cache}}\"/mpilaunch/{}",
                           shell_quote(version));
}

std::string agent_cache_path(std::string_view cache_dir) {
  return mpilaunch::format("{}/mpilaunch-agent", cache_dir);
}

std::string agent_upload_temp_path(std::string_view cache_dir, std::string_view token) {
  return mpilaunch::format("{}/.mpilaunch-agent.{}.tmp", cache_dir, token);
}

std::string prepare_command(std::string_view cache_dir) {
  return mpilaunch::format("umask 077 && mkdir -p {}", shell_quote(cache_dir));
}

std::string probe_command(std::string_view agent_path, std::string_view version) {
  // stderr of --version is kept: a loader failure there is the evidence we report.
  return mpilaunch::format(
      "cd || exit 1; v=$({} --version 2>&1) && echo \"installed: $v\" || "
      "{{ echo 'installed: none'; printf '%s\\n' \"$v\" | sed 's/^/probe: /'; }}; "
      "d={}; echo \"cachedir: $d\"; "
      "if [ -f \"$d/mpilaunch-agent\" ]; then "
      "echo \"cached: $(sha256sum < \"$d/mpilaunch-agent\" | cut -d' ' -f1)\"; "
      "else echo 'cached: none'; fi",
      shell_quote(agent_path), agent_cache_dir_expression(version));
}

std::string exec_or_probe_command(std::string_view agent_path, std::string_view version,
                                  std::string_view mode) {
  const std::string agent = shell_quote(agent_path);
  return mpilaunch::format(
      "v=$({0} --version 2>/dev/null); case \"$v\" in {1}) exec {0} {2};; esac; echo {3}; {4}",
      agent, shell_quote(mpilaunch::format("mpilaunch-agent {} ", version)) + "*", mode,
      kProbeMarker, probe_command(agent_path, version));
}

RemoteAgentProbe parse_probe_output(std::string_view out) {
  RemoteAgentProbe probe;
  while (!out.empty()) {
    const std::size_t nl = out.find('\n');
    const std::string_view line = trim(out.substr(0, nl));
    out = nl == std::string_view::npos ? std::string_view{} : out.substr(nl + 1);
    if (line.starts_with("installed: ")) {
      const std::string_view v = trim(line.substr(11));
      // "mpilaunch-agent 0.4.0 (protocol 3)": the second word is the version.
      constexpr std::string_view prefix = "mpilaunch-agent ";
      if (v.starts_with(prefix)) {
        std::string_view rest = v.substr(prefix.size());
        rest = rest.substr(0, rest.find(' '));
        if (!rest.empty()) probe.installed_version = std::string(rest);
      }
    } else if (line.starts_with("cached: ")) {
      const std::string_view sum = trim(line.substr(8));
      if (is_sha256_hex(sum)) probe.cached_sha256 = std::string(sum);
    } else if (line.starts_with("cachedir: ")) {
      const std::string_view dir = trim(line.substr(10));
      if (dir.starts_with("/")) probe.cache_dir = std::string(dir);
    } else if (line.starts_with("probe: ")) {
      if (probe.loader_failure.empty() && missing_shared_library(line))
        probe.loader_failure = std::string(trim(line.substr(7)));
    }
  }
  return probe;
}

DeployDecision decide_deploy(DeployMode mode, const RemoteAgentProbe& probe,
                             std::string_view local_version, std::string_view local_sha256) {
  const bool installed_matches =
      probe.installed_version && *probe.installed_version == local_version;
  if (mode == DeployMode::Never) {
    if (installed_matches) return {DeployAction::UseInstalled, "installed agent, same version"};
    return {DeployAction::Refuse,
            probe.installed_version
                ? mpilaunch::format("installed agent is version {}, deployment is off",
                                    *probe.installed_version)
                : std::string("no agent installed, deployment is off")};
  }
  if (mode == DeployMode::Always) return {DeployAction::Upload, "--deploy-agent=always"};
  if (installed_matches) return {DeployAction::UseInstalled, "installed agent, same version"};
  if (probe.cached_sha256 && *probe.cached_sha256 == local_sha256)
    return {DeployAction::UseCached, "cached copy, checksum matches"};
  if (probe.cached_sha256) return {DeployAction::Upload, "cached copy differs, replacing it"};
  return {DeployAction::Upload, probe.installed_version
                                    ? mpilaunch::format("installed agent is version {}, not {}",
                                                        *probe.installed_version, local_version)
                                    : std::string("no agent installed")};
}

std::string publish_command(std::string_view temp_path, std::string_view final_path,
                            std::string_view sha256) {
  const std::string tmp = shell_quote(temp_path);
  const std::string dst = shell_quote(final_path);
  return mpilaunch::format(
      "chmod 0755 {0} && sync {0} 2>/dev/null; "
      "if [ \"$(sha256sum < {0} | cut -d' ' -f1)\" = {1} ]; then mv -f {0} {2} && {2} --version "
      "2>&1; "
      "else rm -f {0}; exit {3}; fi",
      tmp, shell_quote(sha256), dst, kPublishChecksumMismatch);
}

std::optional<std::string> missing_shared_library(std::string_view text) {
  constexpr std::string_view marker = "error while loading shared libraries: ";
  const std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + marker.size());
  rest = rest.substr(0, rest.find(':'));
  rest = trim(rest);
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

Error deploy_error(const std::string& host, DeployFailure failure, std::string_view what) {
  std::string detail;
  switch (failure) {
    case DeployFailure::SftpRefused:
      detail = mpilaunch::format(
          "the ssh server offers no SFTP subsystem ({}); enable "
          "'Subsystem sftp' in sshd_config, or install the agent there and "
          "pass --deploy-agent=never --agent-path",
          what);
      break;
    case DeployFailure::NotWritable:
      detail = mpilaunch::format(
          "the agent cache is not writable ({}); make ~/.cache/mpilaunch "
          "writable on that host, or install the agent and pass --agent-path",
          what);
      break;
    case DeployFailure::DiskFull:
      detail = mpilaunch::format(
          "no space left for the agent ({}); free space in the home "
          "directory on that host",
          what);
      break;
    case DeployFailure::ChecksumMismatch:
      detail = mpilaunch::format(
          "the uploaded agent's SHA-256 differs from the local copy ({}); "
          "check the disk and the file system on that host, then retry",
          what);
      break;
    case DeployFailure::MissingLibrary:
      detail = mpilaunch::format(
          "the agent cannot load the shared library {} on that host; install "
          "it there (libpmix2 for libpmix.so.2, or openmpi-bin)",
          what);
      break;
    case DeployFailure::LocalAgentMissing:
      detail = mpilaunch::format(
          "the launcher's own agent binary cannot be read ({}); reinstall "
          "mpilaunch or pass --deploy-agent=never --agent-path",
          what);
      break;
  }
  return Error{.kind = ErrorKind::AgentStartFailed,
               .host = host,
               .phase = "deploy",
               .detail = std::move(detail)};
}

}  // namespace mpilaunch::launcher
