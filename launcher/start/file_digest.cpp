#include "launcher/start/file_digest.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <span>
#include <vector>

#include "common/text_format.hpp"

#include "launcher/start/sha256.hpp"

namespace mpilaunch::launcher {

Result<std::string> file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("{}: {}", path, std::strerror(errno))};
  Result<Sha256> digest = Sha256::start();
  if (!digest) return digest.error();
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n > 0) digest->update(std::as_bytes(std::span(buffer).first(n)));
  }
  if (in.bad())
    return Error{.kind = ErrorKind::BadOption, .detail = mpilaunch::format("{}: read error", path)};
  return digest->finish_hex();
}

}  // namespace mpilaunch::launcher
