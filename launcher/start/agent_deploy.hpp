#pragma once
/// Agent deployment over the open ssh session, the pure half: --deploy-agent's modes, the
/// remote probe's command and its parsing, the upload-or-reuse decision, the cache layout, the
/// remote command that publishes an upload atomically, and the Error for each way a deployment
/// fails (phase deploy). The [io] half (SFTP/SCP on the session) uses these and decides nothing.

#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "launcher/cli/deploy_mode.hpp"

namespace mpilaunch::launcher {

/// The cache directory as a remote shell expression:
/// "${XDG_CACHE_HOME:-$HOME/.cache}/mpilaunch/<version>". The probe prints it expanded.
std::string agent_cache_dir_expression(std::string_view version);
/// The cached agent's path in the (expanded, absolute) cache directory.
std::string agent_cache_path(std::string_view cache_dir);
/// A name in the cache directory no other launcher uses (`token`: e.g. local host name, pid and a
/// counter): uploads land there and are renamed into place only once complete and checked.
std::string agent_upload_temp_path(std::string_view cache_dir, std::string_view token);

/// One remote shell command that reports, one fact a line: `installed: <--version output>` of
/// the agent at `agent_path` (or `installed: none`), `cachedir: <absolute directory>` and
/// `cached: <sha256>` of the cached copy (or `cached: none`). Needs only sh and sha256sum.
std::string probe_command(std::string_view agent_path, std::string_view version);

/// What the probe found. An agent that does not answer --version counts as not installed.
struct RemoteAgentProbe {
  std::optional<std::string> installed_version;  // "0.4.0" from "mpilaunch-agent 0.4.0 (...)"
  std::optional<std::string> cached_sha256;      // lower-case hex
  std::string cache_dir;                         // absolute, from the remote shell
  std::string loader_failure;                    // the dynamic loader's line, if any
};
RemoteAgentProbe parse_probe_output(std::string_view out);

/// One remote command for the common case of --deploy-agent=auto: when the agent at
/// `agent_path` answers --version with `version`, it is exec'd with `mode` (its hello line
/// follows); otherwise the command prints kProbeMarker on a line of its own, then the
/// probe_command() facts, and exits. Saves the probe's own round trip (and a remote shell start,
/// which a heavy ~/.bashrc makes cost hundreds of milliseconds) when the agent is installed.
std::string exec_or_probe_command(std::string_view agent_path, std::string_view version,
                                  std::string_view mode);
inline constexpr std::string_view kProbeMarker = "MPILAUNCH-PROBE";

enum class DeployAction {
  UseInstalled,  // the agent at --agent-path/PATH is our exact version
  UseCached,     // the cache holds a copy whose checksum matches ours: no upload
  Upload,        // copy ours into the cache (temp name, check, rename)
  Refuse,        // never: today's behaviour, the start fails in phase exec
};
struct DeployDecision {
  DeployAction action;
  std::string reason;  // for the events file and -v
};
DeployDecision decide_deploy(DeployMode mode, const RemoteAgentProbe& probe,
                             std::string_view local_version, std::string_view local_sha256);

/// The remote command that makes the cache directory (mode 0700 for what it creates).
std::string prepare_command(std::string_view cache_dir);

/// The remote command run after an upload to `temp_path`: chmod 0755, flush to disk, compare
/// sha256sum with `sha256`, rename over `final_path` (atomic in one directory) or remove the
/// temp file and exit 3 on a mismatch; then runs the published agent's --version, so that a
/// missing shared library shows up here. Concurrent launchers each rename a complete copy.
std::string publish_command(std::string_view temp_path, std::string_view final_path,
                            std::string_view sha256);
inline constexpr int kPublishChecksumMismatch = 3;

/// The library named in a dynamic-loader failure ("error while loading shared libraries:
/// libpmix.so.2: cannot open shared object file"), or nullopt when `text` has none.
std::optional<std::string> missing_shared_library(std::string_view text);

/// Why a deployment failed.
enum class DeployFailure {
  SftpRefused,        // the server offers neither SFTP nor SCP
  NotWritable,        // mkdir/open in the cache directory refused (home not writable)
  DiskFull,           // ENOSPC / SSH_FX_FAILURE on write
  ChecksumMismatch,   // the uploaded copy differs from ours
  MissingLibrary,     // the agent runs there but a shared library is missing
  LocalAgentMissing,  // the launcher's sibling agent binary cannot be read
};
/// AgentStartFailed, phase deploy, with `detail` naming what failed and the fix.
Error deploy_error(const std::string& host, DeployFailure failure, std::string_view what);

}  // namespace mpilaunch::launcher
