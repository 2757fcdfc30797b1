#include "launcher/cli/option_manual.hpp"

#include "common/text_format.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "common/error.hpp"
#include "common/error_catalog.hpp"
#include "common/exit_codes.hpp"
#include "launcher/cli/option_docs.hpp"
#include "launcher/cli/options.hpp"

namespace mpilaunch::launcher {
namespace {

// roff: a leading '.' or '\'' would be a request, '\' an escape, '-' a hyphen.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// Every spelling of every documented option, for the completions.
std::vector<std::string> all_spellings() {
  std::vector<std::string> out;
  for (const OptionInfo& info : option_infos())
    for (std::string_view name : info.names) out.emplace_back(name);
  return out;
}

// "slot|node" as a value: its choices; else empty.
std::vector<std::string> choices(std::string_view value) {
  std::vector<std::string> out;
  if (value.find('|') == std::string_view::npos || value.find('[') != std::string_view::npos)
    return out;
  while (!value.empty()) {
    const std::size_t bar = value.find('|');
    out.emplace_back(value.substr(0, bar));
    value.remove_prefix(bar == std::string_view::npos ? value.size() : bar + 1);
  }
  return out;
}

constexpr std::string_view kExamples[][2] = {
    {"Two ranks on this machine, no ssh (isolated local mode):", "mpilaunch \\-n 2 ./app"},
    {"Three virtual nodes on one machine:",
     "mpilaunch \\-\\-launcher=local \\-H n1:2,n2:2,n3:2 ./app"},
    {"Three hosts over ssh, two ranks each:", "mpilaunch \\-H node1:2,node2:2,node3:2 ./app"},
    {"The hosts of a host file, with an ssh config:",
     "mpilaunch \\-\\-hostfile hosts \\-F ~/cluster/ssh_config \\-N 2 ./app"},
    {"Inside a Slurm allocation (hosts and slots from Slurm):", "salloc \\-N 3 mpilaunch ./app"},
    {"Container entrypoint (MPI Operator launcher pod), root, restarts:",
     "mpilaunch \\-\\-allow\\-run\\-as\\-root \\-\\-max\\-restarts 3 \\-\\-status /tmp/status.json "
     "./train"},
    {"Restart up to 100 times, prterun spelling:",
     "mpilaunch \\-N 3 \\-\\-enable\\-recovery \\-\\-max\\-restarts 100 ./app"},
    {"Why did a saved mpirun log fail?", "mpilaunch explain \\-\\-json job.log"},
    {"Where is each rank of the job running here (another terminal)?", "mpilaunch stacks"},
};

}  // namespace

std::string render_man_page(std::string_view version) {
  const std::vector<OptionInfo> infos = option_infos();
  std::string out = mpilaunch::format(
      ".TH MPILAUNCH 1 \"\" \"mpilaunch {}\" \"User Commands\"\n"
      ".SH NAME\nmpilaunch \\- start MPI jobs on this machine, over ssh or in Slurm, with typed "
      "errors\n"
      ".SH SYNOPSIS\n"
      ".B mpilaunch\n[\\fIoptions\\fR] \\fIprogram\\fR [\\fIargs\\fR...]\n.br\n"
      ".B mpilaunch explain\n[\\fB\\-\\-json\\fR] [\\fB\\-\\-rc\\fR \\fIN\\fR] [\\fIfile\\fR|\\-]\n"
      ".br\n.B mpilaunch stacks\n[\\fB\\-\\-json\\fR] [\\fIjob\\fR]\n"
      ".br\n.B mpilaunch \\-\\-engine=ompi\n[\\fIoptions\\fR] \\fIprogram\\fR [\\fIargs\\fR...]\n"
      ".SH DESCRIPTION\n"
      "mpilaunch starts one \\fBmpilaunch\\-agent\\fR(1) per node (a local child process, "
      "over ssh, or through srun in a Slurm allocation), which serves its ranks as a PMIx server, "
      "so that Open MPI programs "
      "run without mpirun or orted. Rank output is forwarded losslessly; a failure ends the job "
      "on every node and is reported as one typed error (kind, node, rank, phase, exit code or "
      "signal, hint), printed and written as JSON with \\fB\\-\\-events\\fR. The usual mpirun "
      "spellings are accepted.\n",
      version);
  out += ".SH OPTIONS\n";
  std::string_view group;
  for (const OptionDoc& doc : option_docs()) {
    if (doc.group != group) {
      group = doc.group;
      out += mpilaunch::format(".SS {}\n", group);
    }
    std::string names;
    if (const OptionInfo* info = find_option_info(infos, doc.key))
      for (std::string_view name : info->names)
        names += mpilaunch::format("{}\\fB{}\\fR", names.empty() ? "" : ", ", roff(name));
    if (!doc.value.empty()) names += mpilaunch::format(" \\fI{}\\fR", roff(doc.value));
    out += mpilaunch::format(".TP\n{}\n{}.", names, roff(doc.summary));
    if (!doc.fallback.empty()) out += mpilaunch::format(" Default: {}.", roff(doc.fallback));
    out += "\n";
    if (!doc.detail.empty()) out += roff(doc.detail) + "\n";
  }
  out +=
      ".SH CONFIGURATION\nSettings come from \\fI/etc/mpilaunch/mpilaunch.conf\\fR, then "
      "\\fI~/.config/mpilaunch/mpilaunch.conf\\fR (\\fB$XDG_CONFIG_HOME\\fR), then "
      "\\fBMPILAUNCH_\\fR\\fIOPTION\\fR environment variables, then the command line; a later "
      "layer that sets an option replaces the earlier ones. Files hold \\fIkey\\fR = "
      "\\fIvalue\\fR lines with long option names as keys. \\fB\\-\\-dry\\-run\\fR shows where "
      "each setting came from.\n";
  out += ".SH EXIT STATUS\n";
  for (auto [code, meaning] :
       {std::pair<std::string_view, std::string_view>{"0", "every rank exited 0"},
        {"1..127", "a failing rank's own exit code"},
        {"128+N", "a rank was killed by signal N, or mpilaunch was interrupted by it"},
        {"64", "bad option, value or config file line (bad-option)"},
        {"65", "hostfile-error"},
        {"66", "executable-not-found, executable-not-executable, wdir-error"},
        {"67", "not-enough-slots"},
        {"69", "agent-start-failed, unknown-host, unsupported-mpi-call"},
        {"70", "pmix-error, protocol-mismatch, malformed-frame, unknown"},
        {"71", "out-of-resources"},
        {"74",
         "output-error: rank output could not be written (141 when the reader of the "
         "output went away)"},
        {"75", "agent-lost"},
        {"77", "run-as-root-refused"},
        {"78", "component-not-found"},
        {"124", "timeout"}})
    out += mpilaunch::format(".TP\n.B {}\n{}\n", roff(code), roff(meaning));
  out += ".SH ERRORS\nEvery failure is one of these kinds (see \\fB\\-\\-help errors\\fR):\n";
  for (ErrorKind kind : kAllErrorKinds) {
    const Error e{.kind = kind};
    out += mpilaunch::format(".TP\n.B {}\nexit code {}: {}.\n", roff(kind_name(kind)),
                             exit_codes::for_error(e), roff(hint(e)));
  }
  out += ".SH EXAMPLES\n";
  for (const auto& example : kExamples)
    out += mpilaunch::format(".PP\n{}\n.RS\n.B {}\n.RE\n", example[0], example[1]);
  out += ".SH SEE ALSO\n\\fBmpilaunch\\-agent\\fR(1), \\fBmpirun\\fR(1), \\fBssh_config\\fR(5)\n";
  return out;
}

std::string render_bash_completion() {
  std::string words;
  for (const std::string& s : all_spellings()) words += (words.empty() ? "" : " ") + s;
  std::string value_cases;
  std::string takes_value;
  const std::vector<OptionInfo> infos = option_infos();
  for (const OptionDoc& doc : option_docs()) {
    const OptionInfo* info = find_option_info(infos, doc.key);
    if (info == nullptr || info->arity == 0) continue;
    std::string pattern;
    for (std::string_view n : info->names) pattern += (pattern.empty() ? "" : "|") + std::string(n);
    takes_value += (takes_value.empty() ? "" : "|") + pattern;
    const auto list = choices(doc.value);
    if (!list.empty()) {
      std::string c;
      for (const auto& w : list) c += (c.empty() ? "" : " ") + w;
      value_cases += mpilaunch::format(
          "    {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n", pattern, c);
    } else if (doc.value.find("FILE") != std::string_view::npos ||
               doc.value.find("DIR") != std::string_view::npos ||
               doc.value.find("PATH") != std::string_view::npos) {
      value_cases +=
          mpilaunch::format("    {}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", pattern);
    } else if (doc.key == "-H") {
      value_cases += mpilaunch::format(
          "    {}) COMPREPLY=($(compgen -W \"$(_mpilaunch_hosts)\" -- "
          "\"${{cur##*,}}\")); return ;;\n",
          pattern);
    } else if (doc.key == "--restart-on") {
      std::string kinds;
      for (ErrorKind k : kAllErrorKinds)
        kinds += (kinds.empty() ? "" : " ") + std::string(kind_name(k));
      value_cases += mpilaunch::format(
          "    {}) COMPREPLY=($(compgen -W \"{}\" -- \"${{cur##*,}}\")); "
          "return ;;\n",
          pattern, kinds);
    } else {
      value_cases += mpilaunch::format("    {}) return ;;\n", pattern);
    }
  }
  return mpilaunch::format(
      R"(# bash completion for mpilaunch (generated by `mpilaunch --help-completion=bash`)
# Hosts for -H: the host file given earlier on the line, then Host entries of ~/.ssh/config.
_mpilaunch_hosts() {{
  local i hostfile=
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${{COMP_WORDS[i]}} in
      --hostfile|-hostfile|--machinefile|-machinefile|-f) hostfile=${{COMP_WORDS[i+1]}} ;;
    esac
  done
  [ -n "$hostfile" ] && [ -r "$hostfile" ] && awk '!/^[[:space:]]*(#|$)/ {{sub(/:.*/, "", $1); print $1}}' "$hostfile"
  [ -r ~/.ssh/config ] && awk 'tolower($1) == "host" {{for (i = 2; i <= NF; i++) if ($i !~ /[*?]/) print $i}}' ~/.ssh/config
}}

_mpilaunch() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} i
  # After the program, complete its arguments as files.
  for ((i = 1; i < COMP_CWORD; i++)); do
    local w=${{COMP_WORDS[i]}} p=${{COMP_WORDS[i-1]}}
    if [[ $w != -* ]] && [[ $w != explain ]] && ! [[ $p =~ ^({takes})$ ]]; then
      COMPREPLY=($(compgen -f -- "$cur")); return
    fi
  done
  case $prev in
{cases}  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "{words}" -- "$cur"))
  else
    COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
  fi
}}
complete -F _mpilaunch mpilaunch
)",
      fmt::arg("takes", takes_value), fmt::arg("cases", value_cases), fmt::arg("words", words));
}

std::string render_zsh_completion() {
  const std::vector<OptionInfo> infos = option_infos();
  std::string specs;
  for (const OptionDoc& doc : option_docs()) {
    const OptionInfo* info = find_option_info(infos, doc.key);
    if (info == nullptr) continue;
    std::string summary(doc.summary);
    std::replace(summary.begin(), summary.end(), '\'', ' ');
    std::replace(summary.begin(), summary.end(), '[', '(');
    std::replace(summary.begin(), summary.end(), ']', ')');
    std::string action;
    if (info->arity > 0) {
      const auto list = choices(doc.value);
      std::string words;
      for (const auto& w : list) words += (words.empty() ? "" : " ") + w;
      std::string value(doc.value);
      std::replace(value.begin(), value.end(), ':', ' ');
      action = !list.empty() ? mpilaunch::format(":{}:({})", value, words)
               : (doc.value.find("FILE") != std::string_view::npos ||
                  doc.value.find("DIR") != std::string_view::npos ||
                  doc.value.find("PATH") != std::string_view::npos)
                   ? mpilaunch::format(":{}:_files", value)
                   : mpilaunch::format(":{}: ", value);
      if (info->arity == 2) action += ":value: ";
    }
    for (std::string_view name : info->names)
      specs += mpilaunch::format("    '{}[{}]{}' \\\n", name, summary, action);
  }
  return mpilaunch::format(R"(#compdef mpilaunch
# zsh completion for mpilaunch (generated by `mpilaunch --help-completion=zsh`)
_arguments -S \
{}    '(-)1:program:_command_names -e' \
    '*::arguments:_normal'
)",
                           specs);
}

}  // namespace mpilaunch::launcher
