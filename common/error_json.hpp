#pragma once
/// Error <-> JSON, in the shape of docs/error.schema.json: unknown fields are omitted, never null.

#include <nlohmann/json.hpp>

#include <optional>
#include "common/error.hpp"

namespace mpilaunch {

/// The error object of events files and `explain --json`, with message and hint filled in.
nlohmann::json error_to_json(const Error& error);
/// Reads an error object back (message and hint are ignored: they are derived); nullopt when
/// it has no known kind.
std::optional<Error> error_from_json(const nlohmann::json& j);

}  // namespace mpilaunch
