#include "launcher/start/file_digest.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "launcher/start/sha256.hpp"

namespace mpilaunch::launcher {
namespace {

// libcrypto's SHA-256, when libssh has brought libcrypto into the process (it links it; the
// checksum is needed only for ssh deployment, after libssh is loaded): several times faster
// than our portable one, which stays the fallback. Never loaded here for its own sake.
struct LibcryptoSha256 {
  void* (*ctx_new)() = nullptr;
  void (*ctx_free)(void*) = nullptr;
  const void* (*sha256)() = nullptr;
  int (*init)(void*, const void*, void*) = nullptr;
  int (*update)(void*, const void*, std::size_t) = nullptr;
  int (*final)(void*, unsigned char*, unsigned int*) = nullptr;
};

const LibcryptoSha256* libcrypto() {
  static const LibcryptoSha256 found = [] {
    LibcryptoSha256 f;
    void* handle = ::dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (handle == nullptr) return f;
    f.ctx_new = reinterpret_cast<void* (*)()>(::dlsym(handle, "EVP_MD_CTX_new"));
    f.ctx_free = reinterpret_cast<void (*)(void*)>(::dlsym(handle, "EVP_MD_CTX_free"));
    f.sha256 = reinterpret_cast<const void* (*)()>(::dlsym(handle, "EVP_sha256"));
    f.init =
        reinterpret_cast<int (*)(void*, const void*, void*)>(::dlsym(handle, "EVP_DigestInit_ex"));
    f.update = reinterpret_cast<int (*)(void*, const void*, std::size_t)>(
        ::dlsym(handle, "EVP_DigestUpdate"));
    f.final = reinterpret_cast<int (*)(void*, unsigned char*, unsigned int*)>(
        ::dlsym(handle, "EVP_DigestFinal_ex"));
    return f;
  }();
  const bool complete =
      found.ctx_new && found.ctx_free && found.sha256 && found.init && found.update && found.final;
  return complete ? &found : nullptr;
}

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    text += kHex[bytes[i] >> 4];
    text += kHex[bytes[i] & 0xf];
  }
  return text;
}

}  // namespace

Result<std::string> file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = fmt::format("{}: {}", path, std::strerror(errno))};
  const LibcryptoSha256* fast = libcrypto();
  void* ctx = fast != nullptr ? fast->ctx_new() : nullptr;
  if (ctx != nullptr && fast->init(ctx, fast->sha256(), nullptr) != 1) {
    fast->ctx_free(ctx);
    ctx = nullptr;
  }
  Sha256 ours;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) continue;
    if (ctx != nullptr)
      fast->update(ctx, buffer.data(), n);
    else
      ours.update(std::as_bytes(std::span(buffer).first(n)));
  }
  if (in.bad()) {
    if (ctx != nullptr) fast->ctx_free(ctx);
    return Error{.kind = ErrorKind::BadOption, .detail = fmt::format("{}: read error", path)};
  }
  if (ctx == nullptr) return ours.finish_hex();
  unsigned char digest[32];
  unsigned int length = 0;
  const int ok = fast->final(ctx, digest, &length);
  fast->ctx_free(ctx);
  if (ok != 1 || length != sizeof digest)
    return Error{.kind = ErrorKind::BadOption, .detail = fmt::format("{}: SHA-256 failed", path)};
  return hex(digest, sizeof digest);
}

}  // namespace mpilaunch::launcher
