#pragma once
/// All user-facing error wording: one sentence per error built from its fields, and a fix hint
/// per kind (and per phase for agent-start-failed). No other file words an error for people.

#include <string>

#include "common/error.hpp"

namespace mpilaunch {

/// One sentence saying what failed and where, built only from the error's fields.
std::string message(const Error& error);
/// How to fix it: one or two sentences, from the catalog.
std::string hint(const Error& error);
/// The multi-line human block printed by the launcher and by `explain`.
std::string render_human(const Error& error);

}  // namespace mpilaunch
