#include "launcher/cli/settings.hpp"

#include "common/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/error.hpp"
#include "common/text.hpp"
#include "launcher/cli/options.hpp"

namespace mpilaunch::launcher {
namespace {

// The parser's entry for a spelling; -1 when it has none.
int option_index(const std::vector<OptionInfo>& infos, std::string_view spelling) {
  for (std::size_t i = 0; i < infos.size(); ++i)
    if (std::find(infos[i].names.begin(), infos[i].names.end(), spelling) != infos[i].names.end())
      return static_cast<int>(i);
  return -1;
}

bool settable(std::string_view spelling) {
  return spelling != "--help" && spelling != "--version";
}

// true/false for a switch; nullopt when the text is neither.
std::optional<bool> switch_value(std::string_view v) {
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  return std::nullopt;
}

// Builds one setting and checks its value with the parser itself, so that a bad value is
// reported where it was written.
Result<Setting> make_setting(const OptionInfo& info, std::string spelling, std::string_view value,
                             std::string origin) {
  Setting s{.option = std::move(spelling), .origin = std::move(origin)};
  if (info.arity == 0) {
    const auto on = value.empty() ? std::optional<bool>(true) : switch_value(value);
    if (!on)
      return bad_option(mpilaunch::format("{}: {} is a switch: write true or false, not '{}'",
                                          s.origin, s.option, value));
    s.enabled = *on;
    return s;
  }
  if (info.arity == 2) {
    const std::size_t space = value.find_first_of(" \t");
    if (space == std::string_view::npos)
      return bad_option(
          mpilaunch::format("{}: {} needs two values separated by a space, e.g. "
                            "'btl_tcp_if_include lo'",
                            s.origin, s.option));
    s.values = {std::string(value.substr(0, space)), std::string(trim(value.substr(space)))};
  } else {
    if (value.empty())
      return bad_option(mpilaunch::format("{}: {} needs a value", s.origin, s.option));
    s.values = {std::string(value)};
  }
  std::vector<std::string> probe{s.option};
  probe.insert(probe.end(), s.values.begin(), s.values.end());
  probe.push_back("program");
  if (auto parsed = parse_options(probe); !parsed)
    return bad_option(mpilaunch::format("{}: {}", s.origin, parsed.error().detail));
  return s;
}

// The parser's entries of the options on a command line, walked as parse_options walks it;
// each one also goes into `seen` for --dry-run.
std::set<int> command_line_options(const std::vector<OptionInfo>& infos,
                                   const std::vector<std::string>& args,
                                   std::vector<Provenance>& seen) {
  std::set<int> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" || arg.size() < 2 || arg[0] != '-') break;
    std::string name = arg;
    bool attached = false;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      name = arg.substr(0, eq);
      attached = true;
    }
    int index = option_index(infos, name);
    if (index < 0 && !arg.starts_with("--") && arg.size() > 2) {
      index = option_index(infos, arg.substr(0, 2));
      attached = index >= 0;
    }
    if (index < 0) break;  // parse_options reports it
    out.insert(index);
    const int arity = infos[static_cast<std::size_t>(index)].arity;
    const std::size_t first = i;
    i += static_cast<std::size_t>(std::max(0, arity - (attached ? 1 : 0)));
    std::string values =
        attached ? arg.substr(name.size() + (arg[name.size()] == '=' ? 1 : 0)) : std::string();
    for (std::size_t k = first + 1; k <= i && k < args.size(); ++k)
      values += (values.empty() ? "" : " ") + args[k];
    seen.push_back({name, values, "command line"});
    if (name == "-h" || name == "--help" || name == "-help") break;
  }
  return out;
}

}  // namespace

Result<std::vector<Setting>> parse_config(std::string_view text, std::string_view path) {
  const std::vector<OptionInfo> infos = option_infos();
  std::vector<Setting> out;
  for (const ContentLine& content : content_lines(text)) {
    const std::string_view line = content.text;
    const std::string origin = mpilaunch::format("{}:{}", path, content.number);
    const std::size_t eq = line.find('=');
    std::string key(trim(line.substr(0, eq)));
    const std::string_view value = eq == std::string_view::npos ? "" : trim(line.substr(eq + 1));
    std::replace(key.begin(), key.end(), '_', '-');
    while (key.starts_with('-')) key.erase(0, 1);
    if (key.empty())
      return bad_option(
          mpilaunch::format("{}: expected 'option = value', e.g. 'max-restarts = 3'", origin));
    // One letter is the short option ("n" is -n, though mpirun also spells it --n).
    std::string spelling = (key.size() == 1 ? "-" : "--") + key;
    int index = option_index(infos, spelling);
    if (index < 0 && key.size() == 1) {
      spelling = "--" + key;
      index = option_index(infos, spelling);
    }
    if (index < 0) {
      const std::string near = suggest_option("--" + key);
      return bad_option(
          mpilaunch::format("{}: unknown option '{}'{}", origin, key,
                            near.empty() ? "" : mpilaunch::format(" (did you mean '{}'?)", near)));
    }
    if (!settable(infos[static_cast<std::size_t>(index)].names.front()) || key == "help" ||
        key == "version" || infos[static_cast<std::size_t>(index)].answer != OptionAnswer::Works)
      return bad_option(mpilaunch::format("{}: '{}' cannot be set in a config file", origin, key));
    if (eq == std::string_view::npos && infos[static_cast<std::size_t>(index)].arity > 0)
      return bad_option(mpilaunch::format("{}: expected '{} = VALUE'", origin, key));
    auto setting = make_setting(infos[static_cast<std::size_t>(index)], spelling, value, origin);
    if (!setting) return setting.error();
    out.push_back(std::move(setting).value());
  }
  return out;
}

Result<std::vector<Setting>> settings_from_environment(const EnvLookup& getenv) {
  const std::vector<OptionInfo> infos = option_infos();
  std::vector<Setting> out;
  for (const OptionInfo& info : infos)
    for (std::string_view name : info.names) {
      // mpirun's options without effect or refused are command-line spellings only: an
      // MPILAUNCH_DEBUG=1 (the launcher's own switch) is not --debug.
      if (!name.starts_with("--") || !settable(name) || info.answer != OptionAnswer::Works)
        continue;
      std::string var = "MPILAUNCH_";
      for (char c : name.substr(2))
        var += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const auto value = getenv(var);
      if (!value || value->empty()) continue;
      auto setting = make_setting(info, std::string(name), trim(*value), var);
      if (!setting) return setting.error();
      out.push_back(std::move(setting).value());
    }
  return out;
}

Layered layer_settings(const std::vector<std::vector<Setting>>& layers,
                       const std::vector<std::string>& args) {
  const std::vector<OptionInfo> infos = option_infos();
  std::vector<Provenance> from_command_line;
  std::set<int> claimed = command_line_options(infos, args, from_command_line);
  // From the highest layer down: a layer keeps the options no higher layer set.
  std::vector<std::vector<const Setting*>> kept(layers.size());
  for (std::size_t l = layers.size(); l-- > 0;) {
    std::set<int> here;
    for (const Setting& s : layers[l]) {
      const int index = option_index(infos, s.option);
      if (claimed.count(index) != 0) continue;
      here.insert(index);
      kept[l].push_back(&s);
    }
    claimed.insert(here.begin(), here.end());
  }
  Layered out;
  for (const auto& layer : kept)
    for (const Setting* s : layer) {
      std::string values;
      for (const std::string& v : s->values) values += (values.empty() ? "" : " ") + v;
      out.provenance.push_back({s->option, s->enabled ? values : std::string("false"), s->origin});
      if (!s->enabled) continue;
      out.args.push_back(s->option);
      out.args.insert(out.args.end(), s->values.begin(), s->values.end());
    }
  for (const std::string& a : args) out.args.push_back(a);
  out.provenance.insert(out.provenance.end(), from_command_line.begin(), from_command_line.end());
  return out;
}

}  // namespace mpilaunch::launcher
