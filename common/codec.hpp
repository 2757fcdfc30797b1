#pragma once
/// Little-endian binary writer and bounds-checked reader for protocol bodies.
/// The reader never reads past its span: a short or oversized field sets a sticky failure.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpilaunch::codec {

class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<std::byte>(v)); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void bytes(std::span<const std::byte> v) {
    u32(static_cast<std::uint32_t>(v.size()));
    if (v.empty()) return;
    // resize and memcpy, not insert: GCC 14 reports a false -Wstringop-overflow for the range
    // insert once it is inlined (a copy "into a region of size 0").
    const std::size_t at = out_.size();
    out_.resize(at + v.size());
    std::memcpy(out_.data() + at, v.data(), v.size());
  }
  void str(std::string_view v) { bytes(std::as_bytes(std::span(v.data(), v.size()))); }
  void strings(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  void reserve(std::size_t n) { out_.reserve(n); }
  std::vector<std::byte>& buffer() { return out_; }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
  }
  std::vector<std::byte> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  std::uint64_t u64() { return get(8); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  bool boolean() { return u8() != 0; }
  std::vector<std::byte> bytes() {
    const std::uint32_t n = u32();
    if (failed_ || n > in_.size() - pos_) return fail<std::vector<std::byte>>();
    std::vector<std::byte> v(in_.begin() + static_cast<std::ptrdiff_t>(pos_),
                             in_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return v;
  }
  std::string str() {
    const std::uint32_t n = u32();
    if (failed_ || n > in_.size() - pos_) return fail<std::string>();
    std::string v(reinterpret_cast<const char*>(in_.data()) + pos_, n);
    pos_ += n;
    return v;
  }
  std::vector<std::string> strings() {
    const std::uint32_t n = u32();
    std::vector<std::string> v;
    // Each string needs at least 4 bytes, so a count larger than that is malformed.
    if (failed_ || n > (in_.size() - pos_) / 4) return fail<std::vector<std::string>>();
    v.reserve(n);
    for (std::uint32_t i = 0; i < n && !failed_; ++i) v.push_back(str());
    return v;
  }
  /// Marks the input as malformed (a field held a value outside its range).
  void reject() { failed_ = true; }
  /// True when every field so far was complete.
  bool ok() const { return !failed_; }
  /// True when the body was read completely and nothing is left over.
  bool done() const { return !failed_ && pos_ == in_.size(); }
  std::size_t remaining() const { return failed_ ? 0 : in_.size() - pos_; }

 private:
  template <class T>
  T fail() {
    failed_ = true;
    return T{};
  }
  std::uint64_t get(int n) {
    if (failed_ || in_.size() - pos_ < static_cast<std::size_t>(n)) return fail<std::uint64_t>();
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= std::uint64_t(std::to_integer<std::uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace mpilaunch::codec
