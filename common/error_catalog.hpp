#pragma once
/// All user-facing error wording: one sentence per error built from its fields, and a fix hint
/// per kind (and per phase for agent-start-failed). No other file words an error for people.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace mpilaunch {

/// One sentence saying what failed and where, built only from the error's fields.
std::string message(const Error& error);
/// How to fix it: one or two sentences, from the catalog.
std::string hint(const Error& error);
/// The multi-line human block printed by the launcher and by `explain`.
std::string render_human(const Error& error);
/// The launcher's error block on stderr: render_human() between two lines of 74 dashes, the
/// frame of Open MPI's help messages, so that tools which lift mpirun's errors out of its
/// output by that frame (ipyparallel's MPI launcher) find mpilaunch's too.
std::string render_framed(const Error& error);
/// What `mpilaunch explain` prints: render_human(), then what produced the log, the evidence
/// lines and the follow-on errors. `runtime` is a runtime name ("orte-4", ...).
std::string render_explanation(const Error& error, std::string_view runtime, std::optional<int> rc,
                               const std::vector<Error>& secondary);
/// What `mpilaunch explain` prints when the log shows no failure.
std::string render_no_error(std::string_view runtime, std::optional<int> rc);

}  // namespace mpilaunch
