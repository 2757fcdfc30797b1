#pragma once
/// `mpilaunch explain`, the pure part: a whole log in, an Explanation out, and its two
/// renderings (human and JSON).

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "launcher/diagnose/explanation.hpp"

namespace mpilaunch::launcher {

/// Feeds every line of `log` to a ConsoleParser. `rc` is the runtime's exit code, when known.
Explanation explain_text(std::string_view log, std::optional<int> rc);

/// The short human block: what failed, where, why, how to fix, evidence, follow-ons.
std::string render_explanation_human(const Explanation& explanation);
/// {"runtime", "rc"?, "error"?, "secondary": [...]}, in the shape of docs/error.schema.json.
nlohmann::json explanation_to_json(const Explanation& explanation);

}  // namespace mpilaunch::launcher
