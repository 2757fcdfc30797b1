#pragma once
/// The man page and the shell completions, rendered from the option table (option_docs.hpp),
/// the error catalog and the exit-code table, so that they cannot drift from --help. The build
/// runs `mpilaunch --help-man` and `--help-completion=bash|zsh` to write the installed files.
/// Pure.

#include <string>
#include <string_view>

namespace mpilaunch::launcher {

/// mpilaunch.1 in roff (man(7) macros).
std::string render_man_page(std::string_view version);
/// The bash completion script for `complete -F _mpilaunch mpilaunch`.
std::string render_bash_completion();
/// The zsh completion function file `_mpilaunch`.
std::string render_zsh_completion();

}  // namespace mpilaunch::launcher
