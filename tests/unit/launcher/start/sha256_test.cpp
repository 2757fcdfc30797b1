#include "launcher/start/sha256.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>

using mpilaunch::launcher::Sha256;

namespace {

std::span<const std::byte> bytes(std::string_view s) {
  return std::as_bytes(std::span(s));
}

Sha256 started() {
  auto h = Sha256::start();
  REQUIRE_MESSAGE(h.has_value(), (h ? "" : h.error().detail));
  return std::move(h).value();
}

std::string digest_of(std::string_view s) {
  Sha256 h = started();
  h.update(bytes(s));
  auto hex = h.finish_hex();
  REQUIRE(hex.has_value());
  return hex.value();
}

}  // namespace

TEST_CASE("sha256: the FIPS 180-4 example messages") {
  CHECK(digest_of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(digest_of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(digest_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(digest_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(digest_of(std::string(1'000'000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: padding at every length around a block boundary") {
  // 55 bytes still leave room for the length in their block, 56..63 need a second one, 64 fill
  // one exactly; the same again one block later. Digests as coreutils' sha256sum prints them.
  const std::pair<std::size_t, std::string_view> cases[] = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
  };
  for (const auto& [length, expected] : cases)
    CHECK_MESSAGE(digest_of(std::string(length, 'x')) == expected, length << " bytes");
}

TEST_CASE("sha256: fed in pieces, the digest is the same as in one piece") {
  std::string message;
  for (int i = 0; i < 1000; ++i) message += static_cast<char>('a' + i % 26 + (i / 26) % 3);
  const std::string whole = digest_of(message);
  for (const std::size_t piece : {1U, 3U, 55U, 56U, 63U, 64U, 65U, 127U, 999U}) {
    Sha256 h = started();
    for (std::size_t at = 0; at < message.size(); at += piece)
      h.update(bytes(std::string_view(message).substr(at, piece)));
    const auto hex = h.finish_hex();
    REQUIRE(hex.has_value());
    CHECK_MESSAGE(hex.value() == whole, "pieces of " << piece);
  }
}

TEST_CASE("sha256: a finished digest refuses a second finish") {
  Sha256 h = started();
  h.update(bytes("abc"));
  CHECK(h.finish_hex().has_value());
  const auto again = h.finish_hex();
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().phase == "deploy");
}
