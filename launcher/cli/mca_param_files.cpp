#include "launcher/cli/mca_param_files.hpp"

#include <algorithm>
#include <array>

#include "common/text.hpp"

namespace mpilaunch::launcher {

void add_mca_param_file(std::string_view text,
                        std::vector<std::pair<std::string, std::string>>& out) {
  for (const ContentLine& line : content_lines(text)) {
    const std::size_t eq = line.text.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = trim(line.text.substr(0, eq));
    if (name.empty()) continue;
    out.emplace_back(std::string(name), std::string(trim(line.text.substr(eq + 1))));
  }
}

const std::string* mca_param_value(const std::vector<std::pair<std::string, std::string>>& values,
                                   std::string_view name) {
  // Plain reverse iterators: clang 14 (the fuzz build) cannot use libstdc++ 12's ranges.
  for (auto it = values.rbegin(); it != values.rend(); ++it)
    if (it->first == name) return &it->second;
  return nullptr;
}

std::optional<bool> mca_bool(std::string_view value) {
  value = trim(value);
  if (const auto number = parse_int<long long>(value)) return *number != 0;
  static constexpr std::array<std::string_view, 5> kTrue = {"true", "t", "yes", "y", "enabled"};
  static constexpr std::array<std::string_view, 5> kFalse = {"false", "f", "no", "n", "disabled"};
  if (std::find(kTrue.begin(), kTrue.end(), value) != kTrue.end()) return true;
  if (std::find(kFalse.begin(), kFalse.end(), value) != kFalse.end()) return false;
  return std::nullopt;
}

}  // namespace mpilaunch::launcher
