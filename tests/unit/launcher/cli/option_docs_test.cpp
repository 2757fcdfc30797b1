// --help, `--help OPTION` and the man page come from one table: it must cover every option the
// parser knows, exactly once, and name nothing the parser does not know.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "launcher/cli/option_docs.hpp"
#include "launcher/cli/option_manual.hpp"
#include "launcher/cli/options.hpp"

using namespace mpilaunch::launcher;

TEST_CASE("option docs: every parser option documented once, nothing else") {
  const auto infos = option_infos();
  std::set<std::size_t> covered;
  for (const OptionDoc& doc : option_docs()) {
    CAPTURE(doc.key);
    CHECK_FALSE(doc.group.empty());
    CHECK_FALSE(doc.summary.empty());
    std::size_t found = infos.size();
    for (std::size_t i = 0; i < infos.size(); ++i)
      if (std::find(infos[i].names.begin(), infos[i].names.end(), doc.key) != infos[i].names.end())
        found = i;
    REQUIRE_MESSAGE(found < infos.size(), "documents an option the parser does not have");
    CHECK_MESSAGE(covered.insert(found).second, "documented twice");
  }
  for (std::size_t i = 0; i < infos.size(); ++i) {
    CAPTURE(infos[i].names.front());
    CHECK_MESSAGE(covered.count(i) == 1, "an option without documentation in option_docs.cpp");
  }
}

TEST_CASE("option docs: --help lists every option, grouped; --help OPTION explains one") {
  const std::string help = usage_text();
  for (const OptionDoc& doc : option_docs()) {
    CAPTURE(doc.key);
    CHECK(help.find(std::string(doc.key)) != std::string::npos);
    CHECK(help.find(std::string(doc.group) + ":\n") != std::string::npos);
  }
  for (std::string topic : {"--max-restarts", "max-restarts", "-n", "n", "--np", "--wd"}) {
    CAPTURE(topic);
    const auto text = help_topic_text(topic);
    REQUIRE(text);
    CHECK(text->find("Group: ") != std::string::npos);
  }
  CHECK(help_topic_text("max-restarts")->find("Default: 0.") != std::string::npos);
  CHECK(help_topic_text("errors")->find("not-enough-slots") != std::string::npos);
  CHECK(help_topic_text("exit-codes")->find("124") != std::string::npos);
  CHECK_FALSE(help_topic_text("--no-such-option"));
}

TEST_CASE("options: --help TOPIC is taken as a topic, not as an option") {
  auto o = parse_options({"--help", "--timeout"});
  REQUIRE(o);
  CHECK(o->help);
  CHECK(o->help_topic == "--timeout");
  o = parse_options({"--help"});
  REQUIRE(o);
  CHECK(o->help_topic.empty());
}

TEST_CASE("man page and completions name every spelling of every option") {
  const std::string man = render_man_page("9.9");
  const std::string bash = render_bash_completion();
  const std::string zsh = render_zsh_completion();
  CHECK(man.starts_with(".TH MPILAUNCH 1"));
  for (const OptionInfo& info : option_infos())
    for (std::string_view name : info.names) {
      CAPTURE(name);
      std::string roff;
      for (char c : name) roff += c == '-' ? std::string("\\-") : std::string(1, c);
      CHECK(man.find("\\fB" + roff + "\\fR") != std::string::npos);
      CHECK(bash.find(" " + std::string(name)) != std::string::npos);
      CHECK(zsh.find("'" + std::string(name) + "[") != std::string::npos);
    }
  CHECK(man.find("not\\-enough\\-slots") != std::string::npos);
  CHECK(bash.find("\"local ssh srun\"") != std::string::npos);
}
