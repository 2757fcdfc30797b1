#pragma once
/// --deploy-agent=auto|always|never: whether an ssh launch copies the agent to a host that lacks
/// it (launcher/start/agent_deploy.hpp decides and does it). Pure.

#include <optional>
#include <string_view>

namespace mpilaunch::launcher {

/// --deploy-agent=auto|always|never (default auto).
enum class DeployMode { Auto, Always, Never };
std::optional<DeployMode> parse_deploy_mode(std::string_view word);
std::string_view to_string(DeployMode mode);

}  // namespace mpilaunch::launcher
