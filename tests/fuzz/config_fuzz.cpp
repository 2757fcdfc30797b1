// libFuzzer target: the config-file parser and the layering under the command line must never
// crash, and every setting they accept must name an option (a dash spelling) with its file:line,
// whatever text arrives.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/cli/settings.hpp"

using namespace mpilaunch::launcher;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto settings = parse_config(text, "fuzz.conf");
  if (!settings) {
    if (settings.error().detail.rfind("fuzz.conf:", 0) != 0) __builtin_trap();
    return 0;
  }
  for (const Setting& s : settings.value())
    if (s.option.empty() || s.option.front() != '-' || s.origin.rfind("fuzz.conf:", 0) != 0)
      __builtin_trap();
  const Layered layered = layer_settings({settings.value()}, {"./app"});
  if (layered.args.empty() || layered.args.back() != "./app") __builtin_trap();
  return 0;
}
