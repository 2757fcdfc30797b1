#include "launcher/diagnose/console_parser.hpp"

#include "common/text.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "launcher/diagnose/phrase_template.hpp"

namespace mpilaunch::launcher {
namespace {

std::array<PatternTable, 4> all_tables() {
  return {orte_patterns(), prrte_patterns(), hydra_patterns(), common_patterns()};
}

// Per table row, the bytes its anchor needs: rows whose bytes a text lacks are never tried.
struct AnchorBytes {
  std::array<std::vector<ByteSet>, 4> rows;
};

const AnchorBytes& anchor_bytes() {
  static const AnchorBytes compiled = [] {
    AnchorBytes out;
    const auto tables = all_tables();
    for (std::size_t t = 0; t < tables.size(); ++t)
      for (const Pattern& row : tables[t].rows)
        out.rows[t].push_back(ByteSet::of_template(row.anchor));
    return out;
  }();
  return compiled;
}

// Lines that give the runtime away. One vote per runtime and line, whichever clue matched.
enum class ClueKind { Contains, Word, StartsWith };
struct Clue {
  Runtime runtime;
  ClueKind how;
  std::string_view phrase;
  ByteSet needs = ByteSet::of(phrase);
};

std::size_t vote_index(Runtime r) {
  return static_cast<std::size_t>(r);
}

// "[[21068,1],1]" or "[prterun-vm-20353@1,1]": the rank is the last number.
std::optional<int> rank_from_name(std::string_view name) {
  std::size_t end = name.size();
  while (end > 0 && (name[end - 1] < '0' || name[end - 1] > '9')) --end;
  std::size_t begin = end;
  while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
  if (begin == end || begin == 0 || name[begin - 1] != ',') return std::nullopt;
  return leading_int<int>(name.substr(begin, end - begin));
}

// A raw wait status, as Hydra prints it: a signal in the low 7 bits, else the exit code.
void apply_wait_status(Error& e, int status) {
  if (status & 0x7f)
    e.signal = status & 0x7f;
  else
    e.exit_code = (status >> 8) & 0xff;
}

// "0,768": the first non-zero status of a comma-separated list.
std::optional<int> first_failed_status(std::string_view list) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const auto v = leading_int<int>(list.substr(0, comma));
    if (v && *v != 0) return v;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

std::optional<Error> error_from(const Pattern& row, const Captures& c, const ConsoleLine& at) {
  Error e{.kind = row.kind, .host = c.host, .exit_code = c.exit_code, .signal = c.signal};
  e.rank = c.rank ? c.rank : rank_from_name(c.procname);
  if (!e.rank) e.rank = at.rank;
  if (c.pid && *c.pid != 0) e.pid = c.pid;  // "PID 0": never recorded
  if (row.host_from_prefix) {
    if (e.host.empty()) e.host = at.host;
    if (!e.pid) e.pid = at.pid;
  }
  if (c.status) apply_wait_status(e, *c.status);
  if (!c.statuses.empty()) {
    const auto status = first_failed_status(c.statuses);
    if (!status) return std::nullopt;
    apply_wait_status(e, *status);
  }
  e.executable = c.executable;
  e.detail = c.detail.empty() ? c.detail2 : c.detail;
  if (!c.detail.empty() && !c.detail2.empty()) e.detail += std::string(row.join) + c.detail2;
  if (c.lineno) e.detail += ":" + std::to_string(*c.lineno);
  if (!e.detail.empty()) e.detail += row.suffix;
  e.phase = row.phase;
  if (e.kind == ErrorKind::AgentStartFailed && e.phase.empty() && e.exit_code) {
    if (*e.exit_code == 255) e.phase = "connect";
    if (*e.exit_code == 126 || *e.exit_code == 127) e.phase = "exec";
  }
  if (e.kind == ErrorKind::RankSignaled && !e.signal && e.exit_code)
    e.kind = ErrorKind::RankExitNonzero;
  if (e.kind == ErrorKind::RankExitNonzero && e.signal && !e.exit_code)
    e.kind = ErrorKind::RankSignaled;
  return e;
}

// "1 more process has sent help message help-mpi-api.txt / mpi-abort"
std::optional<std::pair<int, std::string_view>> aggregation(std::string_view text) {
  const std::size_t more = text.find(" more process");
  const std::size_t sent = text.find("sent help message ");
  if (more == std::string_view::npos || sent == std::string_view::npos || sent < more)
    return std::nullopt;
  const auto n = leading_int<int>(text.substr(0, more));
  const std::size_t slash = text.find(" / ", sent);
  if (!n || slash == std::string_view::npos) return std::nullopt;
  return std::pair{*n, text.substr(slash + 3)};
}

bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t p = text.find(word); p != std::string_view::npos; p = text.find(word, p + 1)) {
    const bool left = p == 0 || !std::isalpha(static_cast<unsigned char>(text[p - 1]));
    const std::size_t e = p + word.size();
    const bool right = e == text.size() || !std::isalpha(static_cast<unsigned char>(text[e]));
    if (left && right) return true;
  }
  return false;
}

bool looks_like_error(std::string_view text) {
  for (std::string_view w : {"error", "Error", "ERROR", "failed", "FAILED", "fatal", "Fatal",
                             "FATAL", "abort", "Abort", "unable", "Unable", "cannot"})
    if (has_word(text, w)) return true;
  return false;
}

using enum ClueKind;
const std::array kClues = {
    Clue{Runtime::Hydra, StartsWith, "BAD TERMINATION OF ONE OF YOUR APPLICATION"},
    Clue{Runtime::Hydra, Contains, "application called MPI_Abort"},
    Clue{Runtime::Prrte5, Contains, "prterun"},
    Clue{Runtime::Prrte5, Word, "PRTE"},
    Clue{Runtime::Prrte5, Word, "PRRTE"},
    Clue{Runtime::Prrte5, Contains, "PMIx stopped checking"},
    Clue{Runtime::Prrte5, StartsWith, "Errorcode:"},
    Clue{Runtime::Prrte5, StartsWith, "Set MCA parameter \"base_help_aggregate\""},
    // help-hostfile.txt: PRRTE re-flowed ORTE's text, which breaks after
    // "multiple definitions" (5.0.7 and 4.1.4, recorded); the banner names neither runtime.
    Clue{Runtime::Prrte5, StartsWith,
         "A hostfile was provided that contains multiple definitions of the slot"},
    Clue{Runtime::Orte4, Word, "ORTE"},
    Clue{Runtime::Orte4, Contains, "Open RTE"},
    Clue{Runtime::Orte4, Contains, "orte_"},
    Clue{Runtime::Orte4, Contains, "ORTE_"},
    Clue{Runtime::Orte4, StartsWith, "Primary job terminated normally"},
    Clue{Runtime::Orte4, StartsWith, "with errorcode"},
    Clue{Runtime::Orte4, Contains, "is the Open MPI term for"},
    Clue{Runtime::Orte4, Contains, "use the --oversubscribe option"},
    // --get-stack-traces: ORTE names a process [[JOB,1],RANK]; PRRTE [prterun-HOST-PID@1,RANK].
    Clue{Runtime::Orte4, StartsWith, "STACK TRACE FOR PROC [["},
};

bool clue_matches(const Clue& clue, std::string_view text) {
  switch (clue.how) {
    case ClueKind::Contains:
      return text.find(clue.phrase) != std::string_view::npos;
    case ClueKind::Word:
      return has_word(text, clue.phrase);
    case ClueKind::StartsWith:
      return text.starts_with(clue.phrase);
  }
  return false;
}

const ByteSet kAggregationBytes = ByteSet::of(" more processsent help message / ");

// What a line needs to hold for feed() to do more than keep it: a line phrase, a runtime clue
// or a help aggregation. A line that covers none of these byte sets is quiet. Each set is
// filed under its rarest byte (English letter frequency, then digits and punctuation), so a
// line is compared only with the sets whose rare byte it holds.
class LoudIndex {
 public:
  LoudIndex() {
    std::vector<ByteSet> all{kAggregationBytes};
    for (const Clue& clue : kClues) all.push_back(clue.needs);
    for (const PatternTable& table : all_tables())
      for (const Pattern& row : table.rows)
        if (row.scope == Scope::Line && !row.anchor.empty())
          all.push_back(ByteSet::of_template(row.anchor));
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    for (const ByteSet& needs : all) {
      const int key = rarest(needs);
      by_key_[static_cast<std::size_t>(key)].push_back(needs);
      keys_.insert(static_cast<char>(key));
    }
  }

  bool loud(const ByteSet& line) const {
    return (line & keys_).any_of([&](int key) {
      const auto& sets = by_key_[static_cast<std::size_t>(key)];
      return std::any_of(sets.begin(), sets.end(),
                         [&](const ByteSet& s) { return line.covers(s); });
    });
  }

 private:
  static int rarest(const ByteSet& needs) {
    // Most common first; a byte not listed counts as rarer than all of them.
    static constexpr std::string_view kCommon =
        " etaoinsrhldcumfpgwybv,.k0123456789-:_/=()'\"xjqzETAOINSRHLDCUMFPGWYBVKXJQZ";
    int best = -1;
    std::size_t best_rank = 0;
    for (int b = 0; b < 256; ++b) {
      if (!needs.contains(static_cast<char>(b))) continue;
      const std::size_t rank = std::min(kCommon.find(static_cast<char>(b)), kCommon.size());
      if (best < 0 || rank >= best_rank) {
        best = b;
        best_rank = rank;
      }
    }
    return best < 0 ? ' ' : best;  // an empty set would match anything: file it under ' '
  }

  std::array<std::vector<ByteSet>, 256> by_key_;
  ByteSet keys_;
};

const LoudIndex& loud_index() {
  static const LoudIndex index;
  return index;
}

}  // namespace

std::string_view runtime_name(Runtime runtime) {
  switch (runtime) {
    case Runtime::Orte4:
      return "orte-4";
    case Runtime::Prrte5:
      return "prrte-5";
    case Runtime::Hydra:
      return "hydra";
    case Runtime::Mpilaunch:
      return "mpilaunch";
    case Runtime::Unknown:
      return "unknown";
  }
  return "unknown";
}

void ConsoleParser::feed(std::string_view input) {
  const LineScan scan = scan_line(input);
  if (!scan.clean) {
    feed_line(parse_console_line(input));
    return;
  }
  parse_clean_line_into(input, scan, scratch_);
  if (!is_quiet(scratch_, scan.bytes)) {
    feed_line(scratch_);
    return;
  }
  // The common case, kept free of allocations: the line only joins its stream's window,
  // in the string buffers of the line that slides out.
  ++lines_seen_;
  Stream& stream = stream_for(scratch_);
  if (stream.lines.size() >= kMaxBlockLines) {
    ConsoleLine oldest = std::move(stream.lines.front());
    stream.lines.pop_front();
    stream.lines.push_back(std::move(scratch_));
    scratch_ = std::move(oldest);
  } else {
    stream.lines.push_back(std::move(scratch_));
    scratch_ = ConsoleLine{};
  }
}

bool ConsoleParser::is_quiet(const ConsoleLine& line, const ByteSet& bytes) const {
  const std::string_view t = line.text;
  if (t.empty() || t[0] == '{' || t[0] == '-' || t[0] == '=' || line.hydra_prefix ||
      !human_.ignores(t) || t.starts_with("mpi") || t.starts_with("orterun"))
    return false;
  return !loud_index().loud(bytes);
}

void ConsoleParser::feed_line(ConsoleLine line) {
  ++lines_seen_;
  if (line.text.starts_with('{')) {
    if (auto ev = parse_event_line(line.text)) {
      add(Finding{.error = std::move(ev->error), .marked_root = ev->job_failed},
          Runtime::Mpilaunch);
      return;
    }
    if (auto code = parse_job_end_exit_code(line.text)) {
      events_exit_code_ = code;
      votes_[vote_index(Runtime::Mpilaunch)] += 3;
      return;
    }
  }
  if (auto own = human_.feed(line.text, line.raw)) add(Finding{.error = *own}, Runtime::Mpilaunch);
  const ByteSet bytes = ByteSet::of(line.text);
  note_runtime(line, bytes);
  if (const auto agg = bytes.covers(kAggregationBytes) ? aggregation(line.text) : std::nullopt) {
    findings_.aggregate(agg->second, agg->first);
    return;
  }
  Stream& stream = stream_for(line);
  if (is_separator(line.text)) {
    close_block(stream, true);
    stream.opened_by_banner = true;
    return;
  }
  if (line.text.empty()) return;
  match_line(line, bytes);
  stream.lines.push_back(std::move(line));
  if (stream.lines.size() > kMaxBlockLines) stream.lines.pop_front();
}

Explanation ConsoleParser::finish(std::optional<int> rc) {
  for (Stream& s : streams_) close_block(s, false);
  streams_.clear();
  if (auto own = human_.finish()) add(Finding{.error = *own}, Runtime::Mpilaunch);
  Runtime r = runtime();
  if (!rc && r == Runtime::Mpilaunch) rc = events_exit_code_;
  // Both Open MPI generations word the timeout alike; only their exit codes differ.
  const auto& found = findings_.items();
  const bool timed_out = std::any_of(found.begin(), found.end(), [](const Finding& f) {
    return f.error.kind == ErrorKind::Timeout;
  });
  if (r == Runtime::Unknown && timed_out && rc == 110) r = Runtime::Orte4;
  if (r == Runtime::Unknown && timed_out && rc == 241) r = Runtime::Prrte5;
  return choose_root_cause(findings_.items(), r, rc, unmatched_);
}

ConsoleParser::Stream& ConsoleParser::stream_for(const ConsoleLine& line) {
  const int key = line.rank_output ? line.rank.value_or(-2) : -1;
  for (Stream& s : streams_)
    if (s.key == key) {
      s.last_use = lines_seen_;
      return s;
    }
  if (streams_.size() >= kMaxStreams) {
    auto oldest = std::min_element(streams_.begin(), streams_.end(),
                                   [](auto& a, auto& b) { return a.last_use < b.last_use; });
    close_block(*oldest, false);
    streams_.erase(oldest);
  }
  streams_.push_back(Stream{.key = key, .last_use = lines_seen_});
  return streams_.back();
}

void ConsoleParser::close_block(Stream& stream, bool closed_by_banner) {
  if (!stream.lines.empty()) match_block(stream, stream.opened_by_banner && closed_by_banner);
  stream.lines.clear();
  stream.opened_by_banner = false;
}

void ConsoleParser::match_line(const ConsoleLine& line, const ByteSet& bytes) {
  const auto tables = all_tables();
  const AnchorBytes& needs = anchor_bytes();
  for (std::size_t t = 0; t < tables.size(); ++t)
    for (std::size_t r = 0; r < tables[t].rows.size(); ++r) {
      const PatternTable& table = tables[t];
      const Pattern& row = table.rows[r];
      if (row.scope != Scope::Line || row.anchor.empty() || !bytes.covers(needs.rows[t][r]))
        continue;
      const auto c = match_template(line.text, row.anchor);
      if (!c) continue;
      auto error = error_from(row, *c, line);
      if (!error) return;
      error->evidence.push_back(line.raw.substr(0, kMaxEvidenceLineBytes));
      const bool raw = table.runtime == Runtime::Unknown && !line.hydra_prefix;
      add(Finding{.error = std::move(*error),
                  .role = row.role,
                  .topic = row.topic,
                  .from_raw_line = raw},
          table.runtime);
      return;
    }
}

void ConsoleParser::match_block(const Stream& stream, bool bannered) {
  std::string text;
  std::vector<std::size_t> starts;
  for (const ConsoleLine& l : stream.lines) {
    starts.push_back(text.size());
    text += l.text;
    text += '\n';
  }
  auto line_at = [&](std::size_t offset) {
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), offset) -
                                    starts.begin() - 1);
  };
  auto evidence = [&](std::size_t first, std::size_t last) {
    std::vector<std::string> out;
    for (std::size_t i = first; i <= last && out.size() < kMaxEvidenceLines; ++i)
      out.push_back(stream.lines[i].raw.substr(0, kMaxEvidenceLineBytes));
    return out;
  };
  bool matched = false;
  const auto tables = all_tables();
  const AnchorBytes& needs = anchor_bytes();
  const ByteSet bytes = ByteSet::of(text);
  for (std::size_t t = 0; t < tables.size(); ++t)
    for (std::size_t r = 0; r < tables[t].rows.size(); ++r) {
      const PatternTable& table = tables[t];
      const Pattern& row = table.rows[r];
      if (row.scope != Scope::Block || row.anchor.empty() || !bytes.covers(needs.rows[t][r]))
        continue;
      auto c = match_template(text, row.anchor);
      if (!c) continue;
      std::size_t lo = c->begin, hi = c->end;
      for (std::string_view field : row.fields) {
        if (field.empty()) continue;
        const auto f = match_template(text, field);
        if (!f) continue;
        lo = std::min(lo, f->begin);
        hi = std::max(hi, f->end);
        if (!c->rank) c->rank = f->rank;
        if (!c->pid) c->pid = f->pid;
        if (!c->exit_code) c->exit_code = f->exit_code;
        if (!c->signal) c->signal = f->signal;
        if (!c->status) c->status = f->status;
        if (!c->lineno) c->lineno = f->lineno;
        for (auto [into, from] : {std::pair{&c->host, &f->host},
                                  {&c->executable, &f->executable},
                                  {&c->detail, &f->detail},
                                  {&c->detail2, &f->detail2},
                                  {&c->procname, &f->procname}})
          if (into->empty()) *into = *from;
      }
      const std::size_t first = line_at(lo), last = line_at(hi > lo ? hi - 1 : lo);
      auto error = error_from(row, *c, stream.lines[line_at(c->begin)]);
      if (!error) continue;
      error->evidence = evidence(first, last);
      add(Finding{.error = std::move(*error), .role = row.role, .topic = row.topic}, table.runtime);
      matched = true;
    }
  // "Sorry! You were supposed to get help about:": the topic says what would have printed.
  if (const auto sorry = match_template(text, "You were supposed to get help about:")) {
    const auto topic = match_template(text, "Topic: {topic}", sorry->end);
    const Pattern* known = nullptr;
    for (const PatternTable& table : tables)
      for (const Pattern& row : table.rows)
        if (topic && !known && topic_matches(topic->topic, row.topic)) known = &row;
    Error e{.kind = known ? known->kind : ErrorKind::Unknown};
    if (!known && topic) e.detail = topic->topic;
    e.evidence = evidence(line_at(sorry->begin), line_at(topic ? topic->end - 1 : sorry->end));
    add(Finding{.error = std::move(e), .topic = known ? known->topic : std::string_view{}},
        Runtime::Unknown);
    matched = true;
  }
  if (matched || stream.key != -1 || (unmatched_ && (unmatched_->bannered || !bannered))) return;
  for (std::size_t i = 0; i < stream.lines.size(); ++i)
    if (looks_like_error(stream.lines[i].text)) {
      unmatched_ = UnmatchedBlock{.first_line = stream.lines[i].text,
                                  .evidence = evidence(i, stream.lines.size() - 1),
                                  .bannered = bannered};
      return;
    }
}

void ConsoleParser::note_runtime(const ConsoleLine& line, const ByteSet& bytes) {
  const std::string_view t = line.text;
  std::array<bool, 5> voted{};
  auto vote = [&](Runtime r) {
    if (!voted[vote_index(r)]) votes_[vote_index(r)] += 2;
    voted[vote_index(r)] = true;
  };
  if (line.hydra_prefix) vote(Runtime::Hydra);
  for (const Clue& clue : kClues)
    if (!voted[vote_index(clue.runtime)] && bytes.covers(clue.needs) && clue_matches(clue, t))
      vote(clue.runtime);
  if (!t.starts_with("mpi") && !t.starts_with("orterun")) return;
  for (std::string_view tool : {"mpirun ", "mpiexec ", "orterun ", "mpirun: ", "mpiexec: "})
    if (t.starts_with(tool)) {
      const std::string_view rest = t.substr(tool.size());
      for (std::string_view verb : {"has ", "was ", "noticed ", "detected ", "Error: "})
        if (rest.starts_with(verb)) votes_[vote_index(Runtime::Orte4)] += 2;
    }
}

void ConsoleParser::add(Finding finding, Runtime from) {
  if (from != Runtime::Unknown) votes_[vote_index(from)] += 3;
  findings_.add(std::move(finding));
}

Runtime ConsoleParser::runtime() const {
  Runtime best = Runtime::Unknown;
  int most = 0;
  for (Runtime r : {Runtime::Orte4, Runtime::Prrte5, Runtime::Hydra, Runtime::Mpilaunch})
    if (votes_[vote_index(r)] > most) {
      most = votes_[vote_index(r)];
      best = r;
    }
  return best;
}

}  // namespace mpilaunch::launcher
