#pragma once
/// Open MPI's MCA parameter files: `$HOME/.openmpi/mca-params.conf` and the system's
/// `/etc/openmpi/openmpi-mca-params.conf`, `name = value` lines. mpirun 4.1.4 steers itself by
/// them (measured: `rmaps_base_oversubscribe = 1` there lets a job oversubscribe,
/// `hwloc_base_binding_policy = none` leaves its ranks unbound, the user's file winning over the
/// system's), so the launcher reads them for the same parameters, after --mca, OMPI_MCA_* and
/// --tune files, and the agent for the pml or mtl they select (agent/transport_facts.hpp). The
/// ranks' Open MPI reads the files itself. Pure: the files' text is handed in.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpilaunch {

/// The user's file, then the system's: the order in which Open MPI lets them win.
inline constexpr const char* kUserMcaParamFile = ".openmpi/mca-params.conf";  // under $HOME
inline constexpr const char* kSystemMcaParamFile = "/etc/openmpi/openmpi-mca-params.conf";

/// The most of a parameter file that is read (common/bounded_file.hpp): Open MPI's own files are
/// a few KiB; a larger one is refused, not read whole.
inline constexpr std::size_t kMaxMcaParamFileBytes = std::size_t{1} << 20;

/// Name and value of each parameter a file sets, in file order.
using McaParams = std::vector<std::pair<std::string, std::string>>;

/// Appends each parameter that a parameter file's `text` sets to `out`, in file order, read as
/// Open MPI 4.1.4 reads the file (its keyval lexer; measured with ompi_info and mpirun):
///  * `name = value`: the name is one word of letters, digits, '_', '-' and '.', the blanks
///    (space, tab, \f, \v) round '=' go, and the value is the rest of the line up to its last
///    character that is not a space or a tab, taken as it stands: quotes, a '#', a '\r' and a
///    second '=' stay in it (`a = "x" # y` sets a to `"x" # y`). `name =` sets an empty value.
///  * Comments: '#' or "//" outside a value, to the end of the line; "/*" to "*/", across
///    lines (text after "*/" is read as a new line).
///  * `-mca NAME VALUE` (or `--mca`; several on a line, `-x NAME[=VALUE]` between them), the
///    lines of a --tune file, which Open MPI reads here too: VALUE is one word without blanks,
///    or a quoted text followed by a blank, its quotes removed.
///  * Anything else (`= v`, a lone word, `a b = v`) is an error Open MPI reports and skips, a
///    word at a time: in `a b c = v` "a b" is skipped and c is set, as it sets it.
void add_mca_param_file(std::string_view text, McaParams& out);

/// A piece of a file Open MPI 4.1.4's parser reports and skips ("keyval parser: error N reading
/// file F at line L"): the line it counts (after a line's end: the next line) and the text
/// skipped, empty for the end of a line.
struct KeyvalSkip {
  int line = 0;
  std::string text;
};

/// What a --tune file sets, read as Open MPI 4.1.4 reads it: by the same parser as a parameter
/// file (measured: `name = value` lines set parameters there too, `#` comments, a quoted -x or
/// -mca value a blank follows is one value; what the parser cannot read is reported and
/// skipped, and mpirun runs).
struct TuneFileSettings {
  McaParams mca;  // -mca NAME VALUE (or --mca) and name = value, in file order
  /// -x NAME or -x NAME=VALUE, in file order, the value as it stands (quotes and, after a
  /// quoted value, its blanks kept: `-x A="x y" ` gives the ranks A=`"x y" `, measured).
  std::vector<std::string> exports;
  std::vector<KeyvalSkip> skipped;  // the first 20
};
TuneFileSettings read_tune_file(std::string_view text);

/// The value of parameter `name` in `values` (filled by add_mca_param_file with the system's
/// file first, then the user's): the last one, so that the user's file and, within a file, the
/// later line win.
const std::string* mca_param_value(const McaParams& values, std::string_view name);

/// A boolean MCA parameter's value as Open MPI reads it: a number (any but 0 is true), or
/// true/false, t/f, yes/no, y/n, enabled/disabled, blanks around it ignored; nullopt for
/// anything else, which mpirun 4.1.4 refuses ("on", measured).
std::optional<bool> mca_bool(std::string_view value);

}  // namespace mpilaunch
