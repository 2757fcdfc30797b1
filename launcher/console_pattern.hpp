#pragma once
/// A row of a runtime's phrase table: which text means which ErrorKind, and where its fields
/// are. The tables are data (console_patterns_*.cpp); console_parser.cpp applies them.

#include <array>
#include <span>
#include <string_view>

#include "common/error.hpp"

namespace mpilaunch::launcher {

/// Runtimes explain can recognise; Unknown when no line gave one away.
enum class Runtime { Unknown, Orte4, Prrte5, Hydra, Mpilaunch };
/// "orte-4", "prrte-5", "hydra", "mpilaunch" or "unknown".
std::string_view runtime_name(Runtime runtime);

/// Line: tried on every line alone. Block: tried on a banner-delimited block, lines joined.
enum class Scope { Line, Block };

/// Cause: may be the root cause. Consequence: only when no cause was found (e.g. ORTE's
/// "Primary job terminated normally, but..."). Warning: ignored when the runtime exited 0.
enum class Role { Cause, Consequence, Warning };

struct Pattern {
  ErrorKind kind;
  Scope scope;
  std::string_view anchor;  // a phrase template that must match; see phrase_template
  std::array<std::string_view, 4> fields{};  // templates searched in the same text for more fields
  std::string_view topic{};                  // help topic, for "N more processes" and "Sorry!"
  std::string_view phase{};                  // fixed phase (agent-start-failed, timeout)
  Role role = Role::Cause;
  std::string_view join = ":";    // between {detail} and {detail2} or {lineno}
  std::string_view suffix = "";   // appended to {detail}, e.g. "s" for seconds
  bool host_from_prefix = false;  // take host and pid from the "[host:pid]" prefix of the line
};

/// The rows of one runtime; Runtime::Unknown holds the rows every runtime shares (ssh, the
/// shell, signal dumps, the MPI layer).
struct PatternTable {
  Runtime runtime;
  std::span<const Pattern> rows;
};

PatternTable orte_patterns();
PatternTable prrte_patterns();
PatternTable hydra_patterns();
PatternTable common_patterns();

}  // namespace mpilaunch::launcher
