#include "common/mca_params.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "common/text.hpp"

namespace mpilaunch {
namespace {

// The tokens of Open MPI 4.1.4's keyval lexer (opal/util/keyval), which reads the parameter
// files: its rules are followed here so that every line means what it means to mpirun.
enum class Token {
  Done,
  Error,
  Newline,
  Equal,
  Word,
  Value,
  McaVar,  // "-mca NAME " or "--mca NAME ": text() is NAME
  EnvVar,  // "-x NAME": the rank environment, which only the ranks read
  EnvEql,  // "-x NAME=", its value next
};

constexpr bool is_white(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}
constexpr bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The next token; text() is a Word's, a Value's or a McaVar's characters.
  Token next() {
    while (true) {
      if (pos_ >= text_.size()) return Token::Done;
      switch (state_) {
        case State::Comment:
          if (const Token t = comment(); t != Token::Done) return t;
          continue;
        case State::Value:
          return value();
        case State::OptionValue:
          if (const Token t = option_value(); t != Token::Done) return t;
          continue;
        case State::Initial:
          break;
      }
      const std::size_t start = pos_;
      std::size_t end = whites(start);
      if (end < text_.size() && text_[end] == '\n') {  // blanks, then the end of the line
        pos_ = end + 1;
        return Token::Newline;
      }
      if (end < text_.size() && text_[end] == '=') {  // '=' with the blanks round it
        pos_ = whites(end + 1);
        state_ = State::Value;
        return Token::Equal;
      }
      if (end > start) {  // blanks between words
        pos_ = end;
        continue;
      }
      const std::string_view rest = text_.substr(pos_);
      if (rest.starts_with("/*")) {
        pos_ += 2;
        state_ = State::Comment;
        return Token::Newline;
      }
      // '#' or "//" to the end of the line: a comment only where the line ends in '\n' (Open
      // MPI's rule needs one: a file's last line "# a = 1" without it sets a).
      if ((rest.starts_with('#') || rest.starts_with("//")) &&
          rest.find('\n') != std::string_view::npos) {
        pos_ += rest.find('\n') + 1;
        return Token::Newline;
      }
      if (const auto t = option(); t) return *t;
      end = start;
      while (end < text_.size() && is_name_char(text_[end])) ++end;
      if (end > start) {
        pos_ = end;
        token_ = text_.substr(start, end - start);
        return Token::Word;
      }
      token_ = text_.substr(pos_++, 1);  // any other character, alone
      return Token::Error;
    }
  }

  std::string_view text() const { return token_; }
  // The line Open MPI counts for the last token: 1 + the line ends read so far.
  int line() const {
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + pos_, '\n'));
  }

 private:
  enum class State { Initial, Value, Comment, OptionValue };

  std::size_t whites(std::size_t from) const {
    while (from < text_.size() && is_white(text_[from])) ++from;
    return from;
  }
  std::size_t name_end(std::size_t from) const {
    while (from < text_.size() && is_name_char(text_[from])) ++from;
    return from;
  }

  // "-mca NAME " and "-x NAME[=]" (one dash or two), the lines of a --tune file, which Open
  // MPI 4.1.4 reads in a parameter file too (measured: "-mca orte_tmpdir_base /z" sets it).
  std::optional<Token> option() {
    std::size_t at = pos_;
    if (text_.substr(at).starts_with("--")) ++at;
    const std::string_view rest = text_.substr(at);
    const bool mca = rest.starts_with("-mca");
    if (!mca && !rest.starts_with("-x")) return std::nullopt;
    at += mca ? 4 : 2;
    const std::size_t name = whites(at);
    const std::size_t end = name_end(name);
    if (name == at || end == name) return std::nullopt;
    const std::size_t after = whites(end);
    if (mca) {
      if (after == end) return std::nullopt;  // NAME must be followed by a blank
      token_ = text_.substr(name, end - name);
      pos_ = after;
      state_ = State::OptionValue;
      return Token::McaVar;
    }
    token_ = text_.substr(name, end - name);
    if (after < text_.size() && text_[after] == '=') {  // -x NAME=VALUE
      pos_ = whites(after + 1);
      state_ = State::OptionValue;
      return Token::EnvEql;
    }
    if (after >= text_.size()) return std::nullopt;  // Open MPI's rule needs a character after
    pos_ = after;
    return Token::EnvVar;
  }

  // Inside "/* */": a newline is a token; "*/" ends the comment with one.
  Token comment() {
    const std::size_t stop = text_.find_first_of("*\n", pos_);
    if (stop == std::string_view::npos) {
      pos_ = text_.size();
      return Token::Done;
    }
    pos_ = stop + 1;
    if (text_[stop] == '\n') return Token::Newline;
    while (pos_ < text_.size() && text_[pos_] == '*') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '/') {
      ++pos_;
      state_ = State::Initial;
      return Token::Newline;
    }
    return Token::Done;  // not a token: the caller reads on
  }

  // After '=': the rest of the line up to its last character that is not a space or a tab.
  Token value() {
    const std::size_t eol = std::min(text_.find('\n', pos_), text_.size());
    const std::string_view line = text_.substr(pos_, eol - pos_);
    const std::size_t last = line.find_last_not_of(" \t");
    if (last == std::string_view::npos) {  // blanks only, then the end of the line or file
      pos_ = eol + 1;
      state_ = State::Initial;
      return eol < text_.size() ? Token::Newline : Token::Done;
    }
    token_ = line.substr(0, last + 1);
    pos_ += last + 1;
    return Token::Value;
  }

  // After "-mca NAME ": a word without blanks, or a quoted text up to the line's last quote of
  // its kind that blanks follow (the blanks with it), whichever is longer.
  Token option_value() {
    const std::size_t eol = std::min(text_.find('\n', pos_), text_.size());
    const std::string_view line = text_.substr(pos_, eol - pos_);
    const std::size_t blanks = whites(pos_) - pos_;
    if (blanks == line.size()) {  // blanks only, then the end of the line or file
      pos_ = eol + 1;
      state_ = State::Initial;
      return eol < text_.size() ? Token::Newline : Token::Done;
    }
    std::size_t length = std::min(line.find_first_of(" \t"), line.size());
    if (length == 0) {  // a blank that is not the line's last: Open MPI skips it
      ++pos_;
      return Token::Done;  // not a token: the caller reads on
    }
    if (line[0] == '\'' || line[0] == '"') {
      for (std::size_t q = line.rfind(line[0]); q != std::string_view::npos && q > 0;
           q = line.rfind(line[0], q - 1)) {
        std::size_t end = q + 1;
        while (end < line.size() && is_white(line[end])) ++end;
        if (end > q + 1) {
          length = std::max(length, end);
          break;
        }
      }
    }
    token_ = line.substr(0, length);
    pos_ += length;
    state_ = State::Initial;
    return Token::Value;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  State state_ = State::Initial;
  std::string_view token_;
};

// Open MPI's trim of a quoted -mca value: from after the first `quote` (or the start) and its
// blanks, to before the blanks and one `quote` at the end.
std::string_view unquote(std::string_view value, char quote) {
  const std::size_t open = value.find(quote);
  std::size_t first = open == std::string_view::npos ? 0 : open + 1;
  while (first < value.size() && (value[first] == ' ' || value[first] == '\t')) ++first;
  std::size_t end = value.find_last_not_of(" \t\n");
  end = end == std::string_view::npos ? 0 : end + 1;
  if (end > 0 && value[end - 1] == quote) {
    --end;
    while (end > 0 && (value[end - 1] == ' ' || value[end - 1] == '\t')) --end;
  }
  return end > first ? value.substr(first, end - first) : std::string_view();
}

// Reads `text` as Open MPI 4.1.4's keyval_parse.c does: a line is a word, '=' and a value (or
// none), or a run of -mca and -x options; anything unexpected is reported and skipped, and the
// parse goes on with the token after it. -x entries go to `exports` when given, what is skipped
// to `skipped`.
void read_keyval(std::string_view text, McaParams& out, std::vector<std::string>* exports,
                 std::vector<KeyvalSkip>* skipped) {
  Lexer lexer(text);
  auto skip = [&](Token t) {
    if (skipped == nullptr || skipped->size() >= 20) return;
    const bool has_text = t != Token::Newline && t != Token::Done && t != Token::Equal;
    skipped->push_back({lexer.line(), has_text ? std::string(lexer.text()) : std::string()});
  };
  for (Token t = lexer.next(); t != Token::Done; t = lexer.next()) {
    auto option = [](Token token) {
      return token == Token::McaVar || token == Token::EnvVar || token == Token::EnvEql;
    };
    if (option(t)) {
      // The line ends at a Newline; anything else is Open MPI's "error 6", its token skipped.
      for (; option(t); t = lexer.next()) {
        const std::string name(lexer.text());
        if (t == Token::EnvVar) {
          if (exports != nullptr) exports->push_back(name);
          continue;
        }
        if (const Token v = lexer.next(); v != Token::Value) {
          skip(v);
          break;
        }
        if (t == Token::EnvEql) {  // the rank environment's, which only ranks read
          if (exports != nullptr) exports->push_back(name + "=" + std::string(lexer.text()));
          continue;
        }
        std::string_view value = lexer.text();
        if (value.starts_with('\'') || value.starts_with('"'))
          value = unquote(unquote(value, '\''), '"');
        out.emplace_back(name, std::string(value));
      }
      if (!option(t) && t != Token::Newline && t != Token::Done) skip(t);
      continue;
    }
    if (t != Token::Word) {  // a blank line, or an error skipped
      if (t != Token::Newline) skip(t);
      continue;
    }
    const std::string name(lexer.text());
    if (const Token e = lexer.next(); e != Token::Equal) {
      skip(e);
      continue;
    }
    const Token value = lexer.next();
    if (value == Token::Value) {
      out.emplace_back(name, std::string(lexer.text()));
      lexer.next();  // the end of its line
    } else if (value == Token::Newline || value == Token::Done) {
      out.emplace_back(name, std::string());
    }
  }
}

}  // namespace

void add_mca_param_file(std::string_view text, McaParams& out) {
  read_keyval(text, out, nullptr, nullptr);
}

TuneFileSettings read_tune_file(std::string_view text) {
  TuneFileSettings settings;
  read_keyval(text, settings.mca, &settings.exports, &settings.skipped);
  return settings;
}

const std::string* mca_param_value(const McaParams& values, std::string_view name) {
  // Plain reverse iterators: clang 14 (the fuzz build) cannot use libstdc++ 12's ranges.
  for (auto it = values.rbegin(); it != values.rend(); ++it)
    if (it->first == name) return &it->second;
  return nullptr;
}

std::optional<bool> mca_bool(std::string_view value) {
  value = trim(value);
  if (const auto number = parse_int<long long>(value)) return *number != 0;
  static constexpr std::array<std::string_view, 5> kTrue = {"true", "t", "yes", "y", "enabled"};
  static constexpr std::array<std::string_view, 5> kFalse = {"false", "f", "no", "n", "disabled"};
  if (std::find(kTrue.begin(), kTrue.end(), value) != kTrue.end()) return true;
  if (std::find(kFalse.begin(), kFalse.end(), value) != kFalse.end()) return false;
  return std::nullopt;
}

}  // namespace mpilaunch
