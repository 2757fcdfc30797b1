#pragma once
/// The parser's table of options, one file per group (option_table_*.cpp): every spelling of
/// every option, how many values it takes and what it does. Internal to options.cpp and its
/// tests. Pure.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "launcher/cli/options.hpp"

namespace mpilaunch::launcher {

using Values = std::vector<std::string_view>;
using Handler = std::function<Status(Options&, const Values&)>;

struct OptionSpec {
  std::vector<std::string_view> names;  // every accepted spelling, dashes included
  int arity = 0;                        // number of values it takes
  Handler apply;                        // Answer::Works only
  OptionAnswer answer = OptionAnswer::Works;
  std::string_view why = {};  // Ignored: why it has no effect; Refused: why it is refused
  // The MCA parameter mpirun 4.1.4 gives its ranks for this option (measured: OMPI_MCA_<mca>,
  // the value as given, "1" for a flag); empty: none. The parser records it in option_mca.
  std::string_view mca = {};
};

/// `spec` with the MCA parameter mpirun 4.1.4 passes its ranks for it.
OptionSpec passes(std::string_view mca, OptionSpec spec);

/// A spec that stores nothing and says why (an mpirun option without effect here).
OptionSpec ignored(std::vector<std::string_view> names, int arity, std::string_view why);
/// A spec refused by name with `why`.
OptionSpec refused(std::vector<std::string_view> names, int arity, std::string_view why);

Status set_flag(bool& flag);
/// A whole number from 1 to `max`; errors name `option` ("too large" beyond `max`).
Result<int> positive_int(std::string_view option, std::string_view text, int max);
/// Seconds from 0 to kMaxSeconds; errors name `option`.
Result<double> seconds(std::string_view option, std::string_view text);

void add_mapping_options(std::vector<OptionSpec>& table);
void add_host_options(std::vector<OptionSpec>& table);
void add_environment_options(std::vector<OptionSpec>& table);
void add_output_options(std::vector<OptionSpec>& table);
void add_fault_options(std::vector<OptionSpec>& table);
void add_debugging_options(std::vector<OptionSpec>& table);
/// mpirun(1) options that mpilaunch accepts without effect or refuses by name.
void add_compat_options(std::vector<OptionSpec>& table);

}  // namespace mpilaunch::launcher
