#pragma once
/// Settings from outside the command line: the site and user config files and MPILAUNCH_<OPTION>
/// variables, layered under the command line (site < user < environment < command line).
/// A higher layer that sets an option replaces what lower layers said about it. Pure: the
/// callers read the files and the environment.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch::launcher {

/// One option set by a config file line or an environment variable.
struct Setting {
  std::string option;               // a spelling the parser knows: "--max-restarts"
  std::vector<std::string> values;  // as many as the option takes
  std::string origin;               // "/etc/mpilaunch/mpilaunch.conf:3", "MPILAUNCH_TIMEOUT"
  bool enabled = true;              // false: a switch turned off, which still masks lower layers
};

/// `key = value` lines ('#' comments, blank lines); keys are long option names without the
/// dashes ("max-restarts", "host", "mca = btl_tcp_if_include lo"); switches take true/false.
/// Errors say `path:line:` and how to fix the line.
Result<std::vector<Setting>> parse_config(std::string_view text, std::string_view path);

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
/// MPILAUNCH_<OPTION> for every long option (dashes as underscores): MPILAUNCH_MAX_RESTARTS=3.
Result<std::vector<Setting>> settings_from_environment(const EnvLookup& getenv);

/// Where an effective setting came from, for --dry-run.
struct Provenance {
  std::string option;  // as given
  std::string values;  // joined by spaces
  std::string origin;  // a file:line, a variable, or "command line"
};

struct Layered {
  std::vector<std::string> args;  // the settings as options, then the command line
  std::vector<Provenance> provenance;
};

/// Stacks `layers` (lowest first) under the command line `args`.
Layered layer_settings(const std::vector<std::vector<Setting>>& layers,
                       const std::vector<std::string>& args);

}  // namespace mpilaunch::launcher
