#pragma once
/// Open MPI's MCA parameter files: `$HOME/.openmpi/mca-params.conf` and the system's
/// `/etc/openmpi/openmpi-mca-params.conf`, `name = value` lines. mpirun 4.1.4 steers itself by
/// them (measured: `rmaps_base_oversubscribe = 1` there lets a job oversubscribe,
/// `hwloc_base_binding_policy = none` leaves its ranks unbound, the user's file winning over the
/// system's), so mpilaunch reads them for the same parameters, after --mca, OMPI_MCA_* and
/// --tune files. The ranks' Open MPI reads the files itself. Pure: the files' text is handed in.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpilaunch::launcher {

/// The user's file, then the system's: the order in which Open MPI lets them win.
inline constexpr const char* kUserMcaParamFile = ".openmpi/mca-params.conf";  // under $HOME
inline constexpr const char* kSystemMcaParamFile = "/etc/openmpi/openmpi-mca-params.conf";

/// Appends each `name = value` line of a parameter file's `text` to `out`, in file order ('#'
/// starts a comment; blanks around name and value go; a line without '=' or without a name is
/// skipped, as Open MPI skips it).
void add_mca_param_file(std::string_view text,
                        std::vector<std::pair<std::string, std::string>>& out);

/// The value of parameter `name` in `values` (filled by add_mca_param_file with the system's
/// file first, then the user's): the last one, so that the user's file and, within a file, the
/// later line win.
const std::string* mca_param_value(const std::vector<std::pair<std::string, std::string>>& values,
                                   std::string_view name);

/// A boolean MCA parameter's value as Open MPI reads it: a number (any but 0 is true), or
/// true/false, t/f, yes/no, y/n, enabled/disabled, blanks around it ignored; nullopt for
/// anything else, which mpirun 4.1.4 refuses ("on", measured).
std::optional<bool> mca_bool(std::string_view value);

}  // namespace mpilaunch::launcher
