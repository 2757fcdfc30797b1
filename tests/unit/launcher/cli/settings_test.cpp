// Config files and MPILAUNCH_<OPTION> variables under the command line.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "launcher/cli/options.hpp"
#include "launcher/cli/settings.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

std::vector<Setting> config(const std::string& text) {
  auto r = parse_config(text, "site.conf");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().detail));
  return r.value();
}

std::string config_error(const std::string& text) {
  auto r = parse_config(text, "site.conf");
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == ErrorKind::BadOption);
  return r.error().detail;
}

Options options_of(const Layered& l) {
  auto o = parse_options(l.args);
  REQUIRE_MESSAGE(o, (o ? "" : o.error().detail));
  return o.value();
}

}  // namespace

TEST_CASE("config: key = value lines, comments, switches, two-value options") {
  const auto s = config(
      "# site defaults\n\n  max-restarts = 3  # budget\nmca = btl_tcp_if_include lo\n"
      "oversubscribe = yes\ntag_output = false\nn = 4\nhost = a:2,b:2\nhost = c\n");
  REQUIRE(s.size() == 7);
  CHECK(s[0].option == "--max-restarts");
  CHECK(s[0].values == std::vector<std::string>{"3"});
  CHECK(s[0].origin == "site.conf:3");
  CHECK(s[1].values == std::vector<std::string>{"btl_tcp_if_include", "lo"});
  CHECK(s[2].enabled);
  CHECK(s[3].option == "--tag-output");
  CHECK_FALSE(s[3].enabled);
  CHECK(s[4].option == "-n");
  CHECK(s[6].origin == "site.conf:9");
}

TEST_CASE("config: a bad line names its file and line and how to fix it") {
  CHECK(config_error("max-restart = 2\n") ==
        "site.conf:1: unknown option 'max-restart' (did you mean '--max-restarts'?)");
  CHECK(config_error("\ntimeout = soon\n").starts_with("site.conf:2: --timeout needs"));
  CHECK(config_error("oversubscribe = maybe\n").find("write true or false") != std::string::npos);
  CHECK(config_error("mca = lonely\n").find("two values") != std::string::npos);
  CHECK(config_error("max-restarts\n") == "site.conf:1: expected 'max-restarts = VALUE'");
  CHECK(config_error("help = true\n").find("cannot be set") != std::string::npos);
  CHECK(config_error("= 3\n").find("expected 'option = value'") != std::string::npos);
}

TEST_CASE("environment: MPILAUNCH_<OPTION> for every long option") {
  const std::map<std::string, std::string> env = {{"MPILAUNCH_MAX_RESTARTS", "2"},
                                                  {"MPILAUNCH_KILL_GRACE", "0.5"},
                                                  {"MPILAUNCH_OVERSUBSCRIBE", "1"},
                                                  {"MPILAUNCH_ATTEMPT", "3"},
                                                  {"MPILAUNCH_HELP", "1"}};
  auto s = settings_from_environment([&](const std::string& k) -> std::optional<std::string> {
    const auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  REQUIRE(s);
  REQUIRE(s->size() == 3);  // not MPILAUNCH_ATTEMPT (no such option) nor MPILAUNCH_HELP
  auto bad = settings_from_environment([](const std::string& k) -> std::optional<std::string> {
    return k == "MPILAUNCH_TIMEOUT" ? std::optional<std::string>("never") : std::nullopt;
  });
  REQUIRE_FALSE(bad);
  CHECK(bad.error().detail.starts_with("MPILAUNCH_TIMEOUT: --timeout needs"));
}

TEST_CASE("layers: site < user < environment < command line, per option") {
  const auto site = config("max-restarts = 1\ntimeout = 10\nhost = a:2\nhost = b:2\n");
  const auto user = config("timeout = 20\nkill-grace = 7\n");
  const std::vector<Setting> env = {
      {.option = "--kill-grace", .values = {"9"}, .origin = "MPILAUNCH_KILL_GRACE"}};
  const Layered l = layer_settings({site, user, env}, {"--max-restarts", "4", "-n", "2", "app"});
  const Options o = options_of(l);
  CHECK(o.max_restarts == 4);                                // command line over site
  CHECK(o.timeout_seconds == 20.0);                          // user over site
  CHECK(o.kill_grace_seconds == 9.0);                        // environment over user
  CHECK(o.hosts == std::vector<std::string>{"a:2", "b:2"});  // both lines of one layer
  CHECK(o.program == std::vector<std::string>{"app"});
  auto origin_of = [&](const std::string& option) {
    for (const Provenance& p : l.provenance)
      if (p.option == option) return p.origin;
    return std::string("none");
  };
  CHECK(origin_of("--max-restarts") == "command line");
  CHECK(origin_of("--timeout") == "site.conf:1");  // user's file was named site.conf here too
  CHECK(origin_of("--kill-grace") == "MPILAUNCH_KILL_GRACE");
  CHECK(origin_of("-n") == "command line");
}

TEST_CASE("layers: a higher layer replaces a list option and can switch a switch off") {
  const auto site = config("host = a:2\noversubscribe = true\n");
  const auto user = config("oversubscribe = false\n");
  Options o = options_of(layer_settings({site, user}, {"-H", "z:1", "app"}));
  CHECK(o.hosts == std::vector<std::string>{"z:1"});
  CHECK_FALSE(o.oversubscribe);
  o = options_of(layer_settings({site}, {"--np=3", "app"}));
  CHECK(o.hosts == std::vector<std::string>{"a:2"});
  CHECK(o.oversubscribe);
  CHECK(o.np == 3);
}
