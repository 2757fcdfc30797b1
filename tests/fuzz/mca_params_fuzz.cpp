// libFuzzer target: Open MPI's parameter-file parser must never crash nor read past its text,
// and every parameter it reads must have a name of Open MPI's characters and a value within one
// line, whatever text arrives; read as a --tune file, the same parameters.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/mca_params.hpp"

using namespace mpilaunch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  McaParams params;
  add_mca_param_file(text, params);
  for (const auto& [name, value] : params) {
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                                               "XYZ0123456789_-.") != std::string_view::npos)
      __builtin_trap();
    if (value.find('\n') != std::string_view::npos || value.size() > size) __builtin_trap();
  }
  if (params.size() > size) __builtin_trap();
  // Read as a --tune file: the same parameters, and -x entries and skips within the text.
  const TuneFileSettings tune = read_tune_file(text);
  if (tune.mca != params) __builtin_trap();
  for (const std::string& x : tune.exports)
    if (x.empty() || x.find('\n') != std::string::npos || x.size() > size) __builtin_trap();
  if (tune.skipped.size() > 20) __builtin_trap();
  for (const KeyvalSkip& skip : tune.skipped)
    if (skip.line < 1 || skip.text.size() > size || skip.text.find('\n') != std::string::npos)
      __builtin_trap();
  return 0;
}
