// libFuzzer target: Open MPI's parameter-file parser must never crash nor read past its text,
// and every parameter it reads must have a name of Open MPI's characters and a value within one
// line, whatever text arrives.

#include <cstddef>
#include <cstdint>
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
  return 0;
}
