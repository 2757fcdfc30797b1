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
/// Context: never the root cause; it sharpens a root cause of its kind with its phase and
/// evidence (Open MPI's shared-memory warnings before the MPI_Init failure they lead to).
enum class Role { Cause, Consequence, Warning, Context };

struct Pattern {
  ErrorKind kind = ErrorKind::Unknown;
  Scope scope = Scope::Line;
  std::string_view anchor;  // a phrase template that must match; see phrase_template.hpp
  std::array<std::string_view, 4> fields{};  // templates searched in the same text for more
  std::string_view topic;                    // help topic, for "N more processes" and "Sorry!"
  std::string_view phase;                    // fixed phase (agent-start-failed, timeout)
  Role role = Role::Cause;
  std::string_view join = ":";    // between {detail} and {detail2}
  std::string_view suffix;        // appended to {detail}, e.g. "s" for seconds
  bool host_from_prefix = false;  // host and pid from the line's "[host:pid]" prefix

  // Builders, so that a table row reads as one line.
  constexpr Pattern about(std::string_view t) const { return with(&Pattern::topic, t); }
  constexpr Pattern in_phase(std::string_view v) const { return with(&Pattern::phase, v); }
  constexpr Pattern joined_by(std::string_view v) const { return with(&Pattern::join, v); }
  constexpr Pattern unit(std::string_view v) const { return with(&Pattern::suffix, v); }
  constexpr Pattern as(Role r) const {
    Pattern p = *this;
    p.role = r;
    return p;
  }
  constexpr Pattern host_from_line() const {
    Pattern p = *this;
    p.host_from_prefix = true;
    return p;
  }
  constexpr Pattern with(std::string_view Pattern::*field, std::string_view v) const {
    Pattern p = *this;
    p.*field = v;
    return p;
  }
};

/// A phrase tried on each line alone.
constexpr Pattern line(ErrorKind kind, std::string_view anchor,
                       std::array<std::string_view, 4> fields = {}) {
  return Pattern{.kind = kind, .scope = Scope::Line, .anchor = anchor, .fields = fields};
}
/// A phrase tried on a whole block, its lines joined, so that re-wrapped text still matches.
constexpr Pattern block(ErrorKind kind, std::string_view anchor,
                        std::array<std::string_view, 4> fields = {}) {
  return Pattern{.kind = kind, .scope = Scope::Block, .anchor = anchor, .fields = fields};
}
/// A help topic known only by name, from "Sorry! You were supposed to get help about".
constexpr Pattern topic_only(ErrorKind kind, std::string_view topic) {
  return Pattern{.kind = kind, .scope = Scope::Block, .topic = topic};
}

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
