#include "launcher/cli/deploy_mode.hpp"

namespace mpilaunch::launcher {

std::optional<DeployMode> parse_deploy_mode(std::string_view word) {
  if (word == "auto") return DeployMode::Auto;
  if (word == "always") return DeployMode::Always;
  if (word == "never") return DeployMode::Never;
  return std::nullopt;
}

std::string_view to_string(DeployMode mode) {
  switch (mode) {
    case DeployMode::Auto:
      return "auto";
    case DeployMode::Always:
      return "always";
    case DeployMode::Never:
      return "never";
  }
  return "auto";
}

}  // namespace mpilaunch::launcher
