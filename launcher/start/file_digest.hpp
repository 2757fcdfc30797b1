#pragma once
/// [io] SHA-256 of a local file, as lower-case hex (the agent binary that deployment uploads),
/// computed by libcrypto (launcher/start/sha256.hpp).

#include <string>

#include "common/result.hpp"

namespace mpilaunch::launcher {

/// Errors: BadOption with the path and the reason it could not be read; AgentStartFailed,
/// phase "deploy", when libcrypto could not be loaded or failed.
Result<std::string> file_sha256(const std::string& path);

}  // namespace mpilaunch::launcher
