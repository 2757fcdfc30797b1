#pragma once
/// The set of byte values present in a text: a cheap, exact pre-filter for phrase matching.
/// A phrase can only occur in a line that holds every byte of the phrase, so one pass over the
/// line and a few word compares per pattern skip almost every pattern on ordinary rank output.
/// Pure.

#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <string_view>

namespace mpilaunch::launcher {

class ByteSet {
 public:
  constexpr ByteSet() = default;
  /// Every byte of `text`.
  static constexpr ByteSet of(std::string_view text) {
    ByteSet s;
    for (char c : text) s.insert(c);
    return s;
  }
  /// The literal bytes of a phrase template (see phrase_template.hpp): text outside `{...}`
  /// holes, spaces excluded (a template space matches any run of blanks, even a newline).
  static constexpr ByteSet of_template(std::string_view tmpl) {
    ByteSet s;
    bool in_hole = false;
    for (char c : tmpl) {
      if (c == '{') in_hole = true;
      if (!in_hole && c != ' ') s.insert(c);
      if (c == '}') in_hole = false;
    }
    return s;
  }
  /// Bytes 0..63 and 64..127 as bit masks (bit b of `low` is byte b).
  static constexpr ByteSet from_words(std::uint64_t low, std::uint64_t high) {
    ByteSet s;
    s.words_ = {low, high, 0, 0};
    return s;
  }
  constexpr void insert(char c) {
    const auto b = static_cast<unsigned char>(c);
    words_[b >> 6] |= std::uint64_t{1} << (b & 63);
  }
  constexpr bool contains(char c) const {
    const auto b = static_cast<unsigned char>(c);
    return (words_[b >> 6] >> (b & 63)) & 1;
  }
  /// True when every byte of `needed` is in this set.
  constexpr bool covers(const ByteSet& needed) const {
    for (std::size_t i = 0; i < words_.size(); ++i)
      if ((needed.words_[i] & ~words_[i]) != 0) return false;
    return true;
  }
  /// The bytes in both sets.
  constexpr ByteSet operator&(const ByteSet& other) const {
    ByteSet s;
    for (std::size_t i = 0; i < words_.size(); ++i) s.words_[i] = words_[i] & other.words_[i];
    return s;
  }
  /// Calls f(byte) for each byte of the set, in increasing order, while f returns false;
  /// returns true when some call returned true.
  template <class F>
  constexpr bool any_of(F&& f) const {
    for (std::size_t i = 0; i < words_.size(); ++i)
      for (std::uint64_t w = words_[i]; w != 0; w &= w - 1)
        if (f(static_cast<int>(i * 64) + std::countr_zero(w))) return true;
    return false;
  }
  constexpr auto operator<=>(const ByteSet&) const = default;

 private:
  std::array<std::uint64_t, 4> words_{};
};

}  // namespace mpilaunch::launcher
