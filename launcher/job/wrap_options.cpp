#include "launcher/job/wrap_options.hpp"

#include "common/text_format.hpp"

#include <algorithm>
#include <chrono>

#include "launcher/cli/options.hpp"

namespace mpilaunch::launcher {
namespace {

// mpilaunch's own options that have no meaning over mpirun: refused rather than handed to
// mpirun, which would refuse them with less to go on.
constexpr std::string_view kNotInWrapMode[] = {
    "--status",     "--launcher", "-launcher",         "--agent-path",     "--deploy-agent",
    "--ssh-config", "-F",         "--connect-timeout", "--wait-for-hosts", "--ssh-fanout",
    "--pmi",        "-pmi",       "--wireup-timeout",  "--kill-grace",     "--refuse-root",
    "--dry-run",    "-dry-run",
};

Error bad(std::string detail) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(detail)};
}

Duration as_duration(double seconds) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

Result<WrapOptions> parse_wrap_options(const std::vector<std::string>& args) {
  WrapOptions w;
  const std::vector<OptionInfo> infos = option_infos();
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" || arg.size() < 2 || arg[0] != '-') break;  // the program
    std::string name = arg;
    std::optional<std::string> attached;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      name = arg.substr(0, eq);
      attached = arg.substr(eq + 1);
    }
    auto value = [&]() -> Result<std::string> {
      if (attached) return *attached;
      if (i + 1 >= args.size()) return bad(mpilaunch::format("option '{}' needs a value", name));
      return args[++i];
    };
    if (name == "--mpirun") {
      auto v = value();
      if (!v) return v.error();
      w.mpirun = v.value();
      continue;
    }
    if (name == "--events") {
      auto v = value();
      if (!v) return v.error();
      w.events_file = v.value();
      continue;
    }
    // The restart options are read by mpilaunch's own parser, so values mean the same in both
    // modes; mpirun must abort on the first failure: mpilaunch restarts the whole job itself.
    if (name == "--max-restarts" || name == "-max-restarts" || name == "--restart-on" ||
        name == "--restart-backoff") {
      auto v = value();
      if (!v) return v.error();
      auto parsed = parse_options({name, v.value(), "program"});
      if (!parsed) return parsed.error();
      if (parsed->max_restarts) {
        w.restart.max_restarts = *parsed->max_restarts;
        w.max_restarts_given = true;
      }
      if (!parsed->restart_on.empty())
        w.restart.restart_on =
            std::set<ErrorKind>(parsed->restart_on.begin(), parsed->restart_on.end());
      if (parsed->restart_backoff_seconds)
        w.restart.first_backoff = as_duration(*parsed->restart_backoff_seconds);
      if (parsed->restart_backoff_max_seconds)
        w.restart.max_backoff = as_duration(*parsed->restart_backoff_max_seconds);
      w.restart.max_backoff = std::max(w.restart.max_backoff, w.restart.first_backoff);
      continue;
    }
    if (name == "--enable-recovery" || name == "-enable-recovery") continue;
    if (std::find(std::begin(kNotInWrapMode), std::end(kNotInWrapMode), name) !=
        std::end(kNotInWrapMode))
      return bad(
          mpilaunch::format("{} has no meaning with --engine=ompi (mpirun starts the job); "
                            "drop it, or run without --engine",
                            name));
    // An mpirun option: it and its values pass through. One the table does not know (a newer
    // prterun's) passes alone.
    w.passthrough.push_back(arg);
    const OptionInfo* info = find_option_info(infos, name);
    const int arity = info == nullptr || attached ? 0 : info->arity;
    for (int k = 0; k < arity && i + 1 < args.size(); ++k) w.passthrough.push_back(args[++i]);
  }
  w.passthrough.insert(w.passthrough.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                       args.end());
  if (w.passthrough.empty()) return bad("--engine=ompi needs mpirun options and a program");
  return w;
}

}  // namespace mpilaunch::launcher
