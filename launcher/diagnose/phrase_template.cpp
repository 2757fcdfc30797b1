#include "launcher/diagnose/phrase_template.hpp"

namespace mpilaunch::launcher {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\n';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

enum class Hole { Int, Word, Line, Skip };

Hole hole_type(std::string_view name) {
  if (name == "rank" || name == "pid" || name == "exit" || name == "signal" || name == "status" ||
      name == "count" || name == "lineno")
    return Hole::Int;
  if (name == "line") return Hole::Line;
  if (name == "*") return Hole::Skip;
  return Hole::Word;
}

void store_int(Captures& c, std::string_view name, int v) {
  if (name == "rank")
    c.rank = v;
  else if (name == "pid")
    c.pid = v;
  else if (name == "exit")
    c.exit_code = v;
  else if (name == "signal")
    c.signal = v;
  else if (name == "status")
    c.status = v;
  else if (name == "count")
    c.count = v;
  else if (name == "lineno")
    c.lineno = v;
}

void store_word(Captures& c, std::string_view name, std::string_view v) {
  if (name == "host")
    c.host = v;
  else if (name == "exe")
    c.executable = v;
  else if (name == "detail" || name == "line")
    c.detail = v;
  else if (name == "detail2")
    c.detail2 = v;
  else if (name == "procname")
    c.procname = v;
  else if (name == "topic")
    c.topic = v;
  else if (name == "statuses")
    c.statuses = v;
}

class Matcher {
 public:
  Matcher(std::string_view text, std::string_view tmpl) : text_(text), tmpl_(tmpl) {}

  // Matches the template from index i against the text from index p; fills c on success.
  bool match(std::size_t i, std::size_t p, Captures& c) {
    while (i < tmpl_.size()) {
      const char t = tmpl_[i];
      if (t == ' ') {
        if (p >= text_.size() || !is_blank(text_[p])) return false;
        while (p < text_.size() && is_blank(text_[p])) ++p;
        ++i;
      } else if (t == '{') {
        const std::size_t close = tmpl_.find('}', i);
        if (close == std::string_view::npos) return false;
        const std::string_view name = tmpl_.substr(i + 1, close - i - 1);
        i = close + 1;
        const char stop = (i < tmpl_.size() && tmpl_[i] != ' ' && tmpl_[i] != '{') ? tmpl_[i] : 0;
        switch (hole_type(name)) {
          case Hole::Int: {
            std::size_t q = p;
            if (name == "exit" && q < text_.size() && text_[q] == '-') ++q;
            const std::size_t digits = q;
            long long v = 0;
            while (q < text_.size() && is_digit(text_[q]) && q - digits < 9)
              v = v * 10 + (text_[q++] - '0');
            if (q == digits) return false;
            store_int(c, name, text_[p] == '-' ? static_cast<int>(-v) : static_cast<int>(v));
            p = q;
            break;
          }
          case Hole::Word: {
            std::size_t q = p;
            while (q < text_.size() && !is_blank(text_[q]) && text_[q] != stop) ++q;
            std::size_t e = q;
            if (stop == 0)
              while (e > p && (text_[e - 1] == '.' || text_[e - 1] == ',' || text_[e - 1] == ';'))
                --e;
            if (e == p) return false;
            store_word(c, name, text_.substr(p, e - p));
            p = q;
            break;
          }
          case Hole::Line: {
            std::size_t q = p;
            while (q < text_.size() && text_[q] != '\n' && text_[q] != stop) ++q;
            if (q == p) return false;
            store_word(c, name, text_.substr(p, q - p));
            p = q;
            break;
          }
          case Hole::Skip:
            // Try every place on this line where the rest of the template matches.
            for (std::size_t q = p; q <= text_.size() && (q == p || text_[q - 1] != '\n'); ++q) {
              Captures attempt = c;
              if (match(i, q, attempt)) {
                c = attempt;
                return true;
              }
            }
            return false;
        }
      } else {
        if (p >= text_.size() || text_[p] != t) return false;
        ++p;
        ++i;
      }
    }
    c.end = p;
    return true;
  }

 private:
  std::string_view text_;
  std::string_view tmpl_;
};

}  // namespace

std::optional<Captures> match_template(std::string_view text, std::string_view tmpl,
                                       std::size_t from) {
  if (tmpl.empty() || tmpl.front() == '{' || tmpl.front() == ' ') return std::nullopt;
  // The literal head of the template narrows the places worth trying.
  const std::string_view head = tmpl.substr(0, tmpl.find_first_of(" {"));
  Matcher matcher(text, tmpl);
  for (std::size_t pos = text.find(head, from); pos != std::string_view::npos;
       pos = text.find(head, pos + 1)) {
    Captures c;
    c.begin = pos;
    if (matcher.match(0, pos, c)) return c;
  }
  return std::nullopt;
}

}  // namespace mpilaunch::launcher
