#include "launcher/diagnose/console_line.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mpilaunch::launcher {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// Length of a valid UTF-8 sequence starting at s[i], or 0 when it is invalid there.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (b >= 0xc2 && b <= 0xdf)
    n = 2;
  else if (b >= 0xe0 && b <= 0xef)
    n = 3;
  else if (b >= 0xf0 && b <= 0xf4)
    n = 4;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

// Index just past the escape sequence that starts at s[i] (an ESC byte).
std::size_t skip_escape(std::string_view s, std::size_t i) {
  if (i + 1 >= s.size()) return s.size();
  if (s[i + 1] == '[') {  // CSI: parameters, then one final byte in 0x40..0x7e
    std::size_t j = i + 2;
    while (j < s.size() && (s[j] < 0x40 || s[j] > 0x7e)) ++j;
    return std::min(j + 1, s.size());
  }
  if (s[i + 1] == ']') {  // OSC: up to BEL or ESC backslash
    std::size_t j = i + 2;
    while (j < s.size() && s[j] != '\a' && !(s[j] == '\x1b' && j + 1 < s.size())) ++j;
    if (j < s.size() && s[j] == '\x1b') ++j;
    return std::min(j + 1, s.size());
  }
  return i + 2;
}

bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

void trim_left(std::string_view& s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
}

// Reads a non-negative decimal number; false (and s unchanged) when there is none.
bool read_int(std::string_view& s, int& out) {
  std::size_t n = 0;
  long long v = 0;
  while (n < s.size() && is_digit(s[n]) && n < 9) v = v * 10 + (s[n++] - '0');
  if (n == 0) return false;
  s.remove_prefix(n);
  out = static_cast<int>(v);
  return true;
}

// "<stdout>:", "<stderr>:" or "<stddiag>:" and one optional space.
bool consume_stream_tag(std::string_view& s) {
  for (std::string_view tag : {"<stdout>:", "<stderr>:", "<stddiag>:"})
    if (consume(s, tag)) {
      consume(s, " ");
      return true;
    }
  return false;
}

// A ctime date as --timestamp-output prints it, bare or in brackets: "Sun Nov 22 23:21:19 2026".
bool consume_ctime(std::string_view& s) {
  std::string_view t = s;
  const bool bracket = consume(t, "[");
  static constexpr std::array<std::string_view, 7> kDays = {"Mon", "Tue", "Wed", "Thu",
                                                            "Fri", "Sat", "Sun"};
  if (t.size() < 24 || std::find(kDays.begin(), kDays.end(), t.substr(0, 3)) == kDays.end())
    return false;
  // "Www Mmm dd hh:mm:ss yyyy": check the fixed punctuation and digits.
  const std::string_view d = t.substr(0, 24);
  if (d[3] != ' ' || d[7] != ' ' || d[10] != ' ' || d[13] != ':' || d[16] != ':' || d[19] != ' ' ||
      !is_digit(d[11]) || !is_digit(d[23]))
    return false;
  t.remove_prefix(24);
  if (bracket && !consume(t, "]")) return false;
  s = t;
  return true;
}

// "2026-11-22T23:01:02.123Z " and a CRI "stdout F " after it.
bool consume_rfc3339(std::string_view& s) {
  if (s.size() < 20 || !is_digit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
      s[13] != ':')
    return false;
  const std::size_t end = s.find(' ');
  if (end == std::string_view::npos) return false;
  s.remove_prefix(end + 1);
  for (std::string_view cri : {"stdout F ", "stderr F ", "stdout P ", "stderr P "})
    if (consume(s, cri)) break;
  return true;
}

// "[J,R]<stdout>:" (ORTE --tag-output) or "[R] " (Hydra -l): a rank's own output.
// "[J,WILDCARD]<stderr>:" is prterun 5 tagging its own job-wide report (the --timeout banner
// under --output tag): the runtime speaking, not a rank.
bool consume_rank_tag(std::string_view& s, ConsoleLine& line) {
  std::string_view t = s;
  int a = 0, b = 0;
  if (!consume(t, "[") || !read_int(t, a)) return false;
  if (std::string_view w = t; consume(w, ",WILDCARD]") && consume_stream_tag(w)) {
    s = w;
    return true;
  }
  if (consume(t, ",") && read_int(t, b) && consume(t, "]") && consume_stream_tag(t)) {
    line.rank = b;
  } else {
    t = s.substr(1);
    if (!read_int(t, a) || !consume(t, "] ")) return false;
    line.rank = a;
  }
  line.rank_output = true;
  s = t;
  return true;
}

bool is_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
}

// "[host:pid] " or UCX's "[host:pid:thread:tid] ".
bool consume_host_pid(std::string_view& s, ConsoleLine& line) {
  std::string_view t = s;
  if (!consume(t, "[")) return false;
  std::size_t n = 0;
  while (n < t.size() && is_host_char(t[n])) ++n;
  if (n == 0 || n >= t.size() || t[n] != ':') return false;
  const std::string_view host = t.substr(0, n);
  t.remove_prefix(n + 1);
  int pid = 0;
  if (!read_int(t, pid)) return false;
  int ignored = 0;
  while (consume(t, ":"))
    if (!read_int(t, ignored)) return false;
  if (!consume(t, "]")) return false;
  if (line.host.empty()) line.host = host;
  if (!line.pid) line.pid = pid;
  s = t;
  return true;
}

// "[[J,V],R] " or "[[INVALID],INVALID] ": the name of the process that logged the line.
bool consume_orte_name(std::string_view& s) {
  if (!s.starts_with("[[")) return false;
  const std::size_t close = s.find("]]");
  const std::size_t end = s.find("] ", 2);
  if (end == std::string_view::npos || end > 40 || (close != std::string_view::npos && close > end))
    return false;
  s.remove_prefix(end + 1);
  return true;
}

// "[mpiexec@host] " or "[proxy:P:N@host] ".
bool consume_hydra(std::string_view& s, ConsoleLine& line) {
  if (!s.starts_with("[mpiexec@") && !s.starts_with("[proxy:")) return false;
  const std::size_t at = s.find('@');
  const std::size_t end = s.find(']');
  if (at == std::string_view::npos || end == std::string_view::npos || at > end) return false;
  if (line.host.empty()) line.host = s.substr(at + 1, end - at - 1);
  line.hydra_prefix = true;
  s.remove_prefix(end + 1);
  return true;
}

// True when collapsing would change nothing: no tab, no leading, trailing or double blank.
bool is_collapsed(std::string_view s) {
  if (s.empty()) return true;
  if (is_space(s.front()) || is_space(s.back())) return false;
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i] == '\t' || (s[i] == ' ' && s[i - 1] == ' ')) return false;
  return true;
}

std::string collapse_whitespace(std::string_view s) {
  if (is_collapsed(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (char c : s) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

}  // namespace

namespace {
// Length of the leading run of plain printable ASCII, which cleaning keeps as it is.
std::size_t plain_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x20 &&
         static_cast<unsigned char>(s[i]) < 0x7f)
    ++i;
  return i;
}
}  // namespace

std::string clean_bytes(std::string_view s) {
  const std::size_t plain = std::min(plain_prefix(s), kMaxLineBytes);
  if (plain == s.size()) return std::string(s);
  std::string out;
  out.reserve(std::min(s.size(), kMaxLineBytes));
  out.assign(s.substr(0, plain));
  for (std::size_t i = plain; i < s.size() && out.size() < kMaxLineBytes;) {
    const char c = s[i];
    const auto b = static_cast<unsigned char>(c);
    if (c == '\x1b') {
      i = skip_escape(s, i);
    } else if (c == '\t') {
      out.append(8 - out.size() % 8, ' ');
      ++i;
    } else if (b < 0x20 || b == 0x7f) {
      ++i;  // CR, NUL and other controls
    } else if (b < 0x80) {
      out += c;
      ++i;
    } else if (const std::size_t n = utf8_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  if (out.size() > kMaxLineBytes) out.resize(kMaxLineBytes);
  return out;
}

namespace {

// Strips every known prefix of `s`, in a loop, into `line`; returns the text after them.
std::string_view strip_prefixes(std::string_view s, ConsoleLine& line) {
  for (bool more = true; more;) {
    trim_left(s);
    if (consume_ctime(s) || consume_rfc3339(s)) {
      line.rank_output = consume_stream_tag(s) || line.rank_output;
      continue;
    }
    more = consume_rank_tag(s, line) || consume_host_pid(s, line) || consume_orte_name(s) ||
           consume_hydra(s, line);
  }
  // Hydra frames its termination report with "=   " on every inner line.
  if (s.size() > 1 && s[0] == '=' && is_space(s[1])) {
    s.remove_prefix(1);
    trim_left(s);
  }
  return s;
}

}  // namespace

ConsoleLine parse_console_line(std::string_view input) {
  ConsoleLine line;
  line.raw = clean_bytes(input);
  line.text = collapse_whitespace(strip_prefixes(line.raw, line));
  return line;
}

LineScan scan_line(std::string_view line) {
  LineScan scan;
  if (line.size() > kMaxLineBytes) return scan;
  // One store per byte marks it seen (and an OR catches bytes above 127); SSE2 then folds the
  // 128 flags into two words. Far cheaper than setting bits byte by byte.
  alignas(16) std::array<unsigned char, 128> seen{};
  unsigned all = 0;
  for (char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    seen[c & 127] = 1;
    all |= c;
  }
  std::uint64_t words[2] = {0, 0};
#if defined(__SSE2__)
  for (std::size_t k = 0; k < 8; ++k) {
    const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(seen.data() + 16 * k));
    const auto mask = static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_slli_epi16(v, 7)));
    words[k / 4] |= mask << (16 * (k % 4));
  }
#else
  for (std::size_t w = 0; w < 2; ++w)
    for (std::size_t i = 0; i < 64; ++i) words[w] |= std::uint64_t{seen[w * 64 + i]} << i;
#endif
  constexpr std::uint64_t kControls = 0xffffffffu;           // bytes 0..31
  constexpr std::uint64_t kDelete = std::uint64_t{1} << 63;  // byte 127
  scan.clean = (all & 0x80) == 0 && (words[0] & kControls) == 0 && (words[1] & kDelete) == 0;
  scan.collapsed = line.empty() || (line.front() != ' ' && line.back() != ' ' &&
                                    line.find("  ") == std::string_view::npos);
  scan.bytes = ByteSet::from_words(words[0], words[1]);
  return scan;
}

void parse_clean_line_into(std::string_view clean, const LineScan& scan, ConsoleLine& line) {
  line.raw.assign(clean);
  line.host.clear();
  line.pid.reset();
  line.rank.reset();
  line.rank_output = false;
  line.hydra_prefix = false;
  const std::string_view text = strip_prefixes(line.raw, line);
  if (scan.collapsed || is_collapsed(text))  // a collapsed line's stripped tail is too
    line.text.assign(text);
  else
    line.text = collapse_whitespace(text);
}

bool is_separator(std::string_view text) {
  if (text.size() < 50) return false;
  const char c = text.front();
  if (c != '-' && c != '=') return false;
  return std::all_of(text.begin(), text.end(), [c](char x) { return x == c; });
}

}  // namespace mpilaunch::launcher
