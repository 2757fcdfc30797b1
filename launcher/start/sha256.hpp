#pragma once
/// SHA-256 (FIPS 180-4), incremental: the digest that agent deployment compares with the remote
/// `sha256sum`. Our own so that the launcher links no crypto library for it (libcrypto is loaded
/// only with libssh, on the first ssh session).

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace mpilaunch::launcher {

class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::byte> data);
  /// The digest of everything given so far; the object is spent afterwards.
  std::array<std::uint8_t, 32> finish();
  /// finish() as 64 lower-case hex digits, the form `sha256sum` prints.
  std::string finish_hex();

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> block_{};
  std::size_t block_used_ = 0;
  std::uint64_t total_bytes_ = 0;
};

}  // namespace mpilaunch::launcher
