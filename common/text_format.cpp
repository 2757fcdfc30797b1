#include "common/text_format.hpp"

namespace mpilaunch {

std::string vformat_text(fmt::string_view format, fmt::format_args args) {
  return fmt::vformat(format, args);
}

}  // namespace mpilaunch
