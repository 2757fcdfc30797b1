#pragma once
/// SHA-256, incremental: the digest that agent deployment compares with the remote `sha256sum`.
/// Computed by libcrypto's EVP interface. The launcher links no crypto library: libcrypto is
/// opened on first use (lazy_library.hpp), and deployment only runs once libssh, which links
/// it, is loaded, so that costs nothing more.

#include <cstddef>
#include <span>
#include <string>

#include "common/result.hpp"

namespace mpilaunch::launcher {

class Sha256 {
 public:
  /// Errors: AgentStartFailed, phase "deploy": libcrypto could not be loaded or would not
  /// start a digest.
  static Result<Sha256> start();
  Sha256(Sha256&& other) noexcept;
  Sha256& operator=(Sha256&& other) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  ~Sha256();

  void update(std::span<const std::byte> data);
  /// The digest of everything given so far as 64 lower-case hex digits, the form `sha256sum`
  /// prints; the object is spent afterwards. Errors: AgentStartFailed, phase "deploy", when
  /// libcrypto failed on the way.
  Result<std::string> finish_hex();

 private:
  explicit Sha256(void* context) : context_(context) {}
  void* context_ = nullptr;  // EVP_MD_CTX
  bool failed_ = false;
};

}  // namespace mpilaunch::launcher
