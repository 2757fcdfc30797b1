#include "launcher/diagnose/explain_command.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/text.hpp"
#include "common/text_format.hpp"

#include "common/error_catalog.hpp"
#include "common/exit_codes.hpp"
#include "launcher/diagnose/console_parser.hpp"
#include "launcher/diagnose/explain.hpp"
#include "launcher/stacks/ompi_stack_dump.hpp"
#include "launcher/stacks/stack_merge.hpp"
#include "launcher/stacks/straggler.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::string_view kUsageText =
    "usage: mpilaunch explain [--json] [--rc N] [FILE|-]\n"
    "  Reads mpirun/prterun/mpiexec.hydra console output or an mpilaunch events file\n"
    "  (stdin when FILE is - or missing) and explains the failure it shows.\n"
    "  --json  print {\"runtime\", \"rc\", \"error\", \"secondary\"} instead of text\n"
    "  --rc N  the runtime's exit code, when known\n"
    "  An Open MPI 4 --get-stack-traces dump in the text is merged: ranks grouped by where\n"
    "  they stopped, the odd ones first, and the timeout names them.\n"
    "  exit status: 0 explained, 1 no failure found, 64 bad usage, 66 unreadable input\n";

struct ExplainArgs {
  bool json = false;
  std::optional<int> rc;
  std::string path = "-";
  bool help = false;
};

// Bad usage as an Error, worded by the catalog like every other.
int usage_error(const std::string& detail) {
  const Error e{.kind = ErrorKind::BadOption, .detail = "explain: " + detail};
  std::fputs(render_human(e).c_str(), stderr);
  std::fputs(kUsageText.data(), stderr);
  return exit_codes::kUsage;
}

std::optional<ExplainArgs> parse(const std::vector<std::string>& args, std::string& problem) {
  ExplainArgs out;
  bool have_path = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      out.json = true;
    } else if (a == "-h" || a == "--help") {
      out.help = true;
    } else if (a == "--rc" || a.starts_with("--rc=")) {
      const std::string value = a == "--rc" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(5);
      out.rc = parse_int<int>(value);
      if (!out.rc) {
        problem = mpilaunch::format("--rc needs an integer, got '{}'", value);
        return std::nullopt;
      }
    } else if (a.size() > 1 && a.starts_with('-')) {
      problem = mpilaunch::format("unknown option {}", a);
      return std::nullopt;
    } else if (!have_path) {
      out.path = a;
      have_path = true;
    } else {
      problem = mpilaunch::format("more than one input: {}", a);
      return std::nullopt;
    }
  }
  return out;
}

// Feeds the parser line by line; a line is cut at a fixed size and the rest of it skipped, so
// memory stays bounded whatever the input.
void stream_lines(std::FILE* in, ConsoleParser& parser, OmpiStackDump& dump) {
  constexpr std::size_t kMaxRawLine = 4 * kMaxLineBytes;  // room for escapes before cleaning
  std::string line;
  bool skipping = false;
  char chunk[64 * 1024];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, in)) > 0) {
    std::string_view data(chunk, n);
    while (!data.empty()) {
      const std::size_t nl = data.find('\n');
      const std::string_view part = data.substr(0, nl);
      if (!skipping) line.append(part.substr(0, kMaxRawLine - line.size()));
      skipping = !skipping && line.size() >= kMaxRawLine;
      if (nl == std::string_view::npos) break;
      parser.feed(line);
      dump.feed(line);
      line.clear();
      skipping = false;
      data.remove_prefix(nl + 1);
    }
  }
  if (!line.empty()) {
    parser.feed(line);
    dump.feed(line);
  }
}

}  // namespace

int run_explain(const std::vector<std::string>& args) {
  std::string problem;
  const auto parsed = parse(args, problem);
  if (!parsed) return usage_error(problem);
  if (parsed->help) {
    std::fputs(kUsageText.data(), stdout);
    return exit_codes::kSuccess;
  }
  std::FILE* in = parsed->path == "-" ? stdin : std::fopen(parsed->path.c_str(), "rbe");
  if (in == nullptr) {
    const Error e{.kind = ErrorKind::BadOption,
                  .detail = mpilaunch::format("explain: cannot read {}: {}", parsed->path,
                                              std::strerror(errno))};
    std::fputs(render_human(e).c_str(), stderr);
    return exit_codes::kNoInput;
  }
  ConsoleParser parser;
  OmpiStackDump dump;
  stream_lines(in, parser, dump);
  const bool read_failed = std::ferror(in) != 0;
  if (in != stdin) std::fclose(in);
  if (read_failed) {
    const Error e{.kind = ErrorKind::BadOption,
                  .detail = mpilaunch::format("explain: cannot read {}", parsed->path)};
    std::fputs(render_human(e).c_str(), stderr);
    return exit_codes::kNoInput;
  }
  Explanation x = parser.finish(parsed->rc);
  const std::vector<ProcessStack> stacks = dump.finish();
  if (x.error && x.error->kind == ErrorKind::Timeout) name_stragglers(*x.error, stacks);
  std::string out;
  if (parsed->json) {
    nlohmann::json j = explanation_to_json(x);
    if (!stacks.empty()) j["stacks"] = stacks_to_json(stacks);
    out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    out = render_explanation_human(x);
    if (!stacks.empty()) out += "\n" + render_stack_tree(stacks);
  }
  std::fputs(out.c_str(), stdout);
  return x.error ? exit_codes::kSuccess : exit_codes::kGenericFailure;
}

}  // namespace mpilaunch::launcher
