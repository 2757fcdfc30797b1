#include "launcher/start/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <utility>

#include "launcher/start/lazy_library.hpp"

// The libcrypto functions the launcher calls: return type, name, parameters, arguments. The
// same scheme as libssh's (libssh_loader.cpp): forwarders with libcrypto's own names and types,
// checked against its headers; the launcher does not link libcrypto.
#define MPILAUNCH_LIBCRYPTO_FUNCTIONS(X)                                                           \
  X(EVP_MD_CTX*, EVP_MD_CTX_new, (void), ())                                                       \
  X(void, EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))                                              \
  X(const EVP_MD*, EVP_sha256, (void), ())                                                         \
  X(int, EVP_DigestInit_ex, (EVP_MD_CTX * ctx, const EVP_MD* type, ENGINE* impl),                  \
    (ctx, type, impl))                                                                             \
  X(int, EVP_DigestUpdate, (EVP_MD_CTX * ctx, const void* data, size_t count), (ctx, data, count)) \
  X(int, EVP_DigestFinal_ex, (EVP_MD_CTX * ctx, unsigned char* md, unsigned int* size),            \
    (ctx, md, size))

namespace mpilaunch::launcher {
namespace {

// The soname OpenSSL 3 has on Debian 12 and 13, the one libssh.so.4 links.
std::string library_name() {
  return "libcrypto.so.3";
}

MPILAUNCH_LAZY_TABLE(MPILAUNCH_LIBCRYPTO_FUNCTIONS, libcrypto)

LazyLibrary& libcrypto() {
  static LazyLibrary library("libcrypto", "deploy", library_name, kNames,
                             "OpenSSL 1.1 or later is needed");
  return library;
}

Error failure(std::string detail) {
  return Error{.kind = ErrorKind::AgentStartFailed, .phase = "deploy", .detail = std::move(detail)};
}

EVP_MD_CTX* context_of(void* context) {
  return static_cast<EVP_MD_CTX*>(context);
}

}  // namespace

Result<Sha256> Sha256::start() {
  if (Status loaded = libcrypto().load(); !loaded) return loaded.error();
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  if (context == nullptr) return failure("libcrypto could not allocate a digest context");
  if (EVP_DigestInit_ex(context, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context);
    return failure("libcrypto could not start a SHA-256 digest");
  }
  return Sha256(context);
}

Sha256::Sha256(Sha256&& other) noexcept
    : context_(std::exchange(other.context_, nullptr)), failed_(other.failed_) {}

Sha256& Sha256::operator=(Sha256&& other) noexcept {
  if (this != &other) {
    if (context_ != nullptr) EVP_MD_CTX_free(context_of(context_));
    context_ = std::exchange(other.context_, nullptr);
    failed_ = other.failed_;
  }
  return *this;
}

Sha256::~Sha256() {
  if (context_ != nullptr) EVP_MD_CTX_free(context_of(context_));
}

void Sha256::update(std::span<const std::byte> data) {
  if (context_ == nullptr || failed_ || data.empty()) return;
  if (EVP_DigestUpdate(context_of(context_), data.data(), data.size()) != 1) failed_ = true;
}

Result<std::string> Sha256::finish_hex() {
  if (context_ == nullptr) return failure("SHA-256: the digest was already finished");
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  const bool ok = !failed_ && EVP_DigestFinal_ex(context_of(context_), digest.data(), &length) == 1;
  EVP_MD_CTX_free(context_of(std::exchange(context_, nullptr)));
  if (!ok || length != 32) return failure("libcrypto failed to compute a SHA-256 digest");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 0xf];
  }
  return text;
}

}  // namespace mpilaunch::launcher

// The forwarders.
MPILAUNCH_LAZY_FORWARDERS(MPILAUNCH_LIBCRYPTO_FUNCTIONS)
