#pragma once
/// mpirun 4.1.4's deprecation blocks: the Open MPI help messages it prints on stderr, before
/// any rank's output, for the old spellings of --bind-to, --map-by and --map-by ppr
/// (--bind-to-core, --bycore, --cpus-per-proc, --ppr, ...) and for their MCA parameters.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpilaunch::launcher {

/// What mpirun 4.1.4 prints for the deprecated forms a job gives.
struct DeprecationNotice {
  /// The blocks, printed on stderr before the job starts (empty: none).
  std::string blocks;
  /// The mapping blocks held back by Open MPI's help aggregation: mpirun prints the first of
  /// them only and, later, one "more process has sent help message" line for the others
  /// (aggregation_lines()).
  int held_back = 0;
};

/// An MCA parameter's value from outside the command line (OMPI_MCA_*, --tune files, parameter
/// files, in that order), or none.
using McaLookup = std::function<std::optional<std::string>(const std::string&)>;

/// The blocks for `option_mca` (the MCA parameters of the options given before the first
/// program, Options::option_mca as parse_options() leaves it), `mca_args` (the --mca pairs
/// given before the first program, the last of a name counting) and the MCA parameters
/// `others` finds. As measured on mpirun 4.1.4: a block per deprecated form, once however often it
/// is given; --bind-to-core's, then --bind-to-socket's, then the first of --ppr, --cpus-per-proc,
/// --bycore, --byslot and --bynode (the others held back unless orte_base_help_aggregate is
/// false); a --mca of the parameter decides over the option (`--bind-to-core --mca
/// hwloc_base_bind_to_core 0` prints none), the option over the other sources.
DeprecationNotice deprecation_notice(
    const std::vector<std::pair<std::string, std::string>>& option_mca,
    const std::vector<std::pair<std::string, std::string>>& mca_args, const McaLookup& others);

/// mpirun 4.1.4's two lines for `held_back` blocks, printed as the job ends ("[host:pid] 1 more
/// process has sent help message help-orte-rmaps-base.txt / deprecated", then the
/// orte_base_help_aggregate hint); empty when none.
std::string aggregation_lines(int held_back, std::string_view host, int pid);

}  // namespace mpilaunch::launcher
