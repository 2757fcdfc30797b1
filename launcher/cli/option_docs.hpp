#pragma once
/// What every command-line option means, in one table: the source of `--help`,
/// `--help OPTION` and (through `mpilaunch --help-man`) the man page. Pure.

#include <span>
#include <string_view>

namespace mpilaunch::launcher {

struct OptionDoc {
  std::string_view key;       // the option's first spelling in the parser's table
  std::string_view group;     // "Mapping", "Hosts", ...; --help prints groups in table order
  std::string_view value;     // how the value is written ("N", "FILE"), empty for a switch
  std::string_view summary;   // one line
  std::string_view fallback;  // the default, as the user would write it; empty: none
  std::string_view detail;    // `--help OPTION`: more, several lines allowed
};

/// Every documented option, grouped. tests/unit check it against the parser's table.
std::span<const OptionDoc> option_docs();

}  // namespace mpilaunch::launcher
