// libFuzzer target: any bytes, split into lines, must explain without crashing, reading out of
// bounds or growing without limit; the JSON rendering must always serialise.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "launcher/diagnose/console_parser.hpp"
#include "launcher/diagnose/explain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // The first byte picks the exit code, so the fallbacks are fuzzed too.
  std::optional<int> rc;
  if (!in.empty()) {
    const auto b = static_cast<unsigned char>(in.front());
    if (b < 200) rc = b;
    in.remove_prefix(1);
  }
  mpilaunch::launcher::ConsoleParser parser;
  while (!in.empty()) {
    const std::size_t nl = in.find('\n');
    parser.feed(in.substr(0, nl));
    if (nl == std::string_view::npos) break;
    in.remove_prefix(nl + 1);
  }
  const auto x = parser.finish(rc);
  if (x.secondary.size() > mpilaunch::launcher::kMaxFindings) __builtin_trap();
  (void)mpilaunch::launcher::explanation_to_json(x).dump(-1, ' ', false,
                                                         nlohmann::json::error_handler_t::replace);
  (void)mpilaunch::launcher::render_explanation_human(x);
  return 0;
}
