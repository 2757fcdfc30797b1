// Every recorded transcript under tests/data/{orte,prrte,hydra}/CASE must explain to its
// expected.json: runtime, root-cause kind and fields, secondary kinds.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error_json.hpp"
#include "launcher/diagnose/explain.hpp"

#ifndef MPILAUNCH_TEST_DATA_DIR
#error "tests/meson.build passes MPILAUNCH_TEST_DATA_DIR"
#endif

namespace fs = std::filesystem;
using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fields a case pins down; message, hint, pid, count and evidence are checked elsewhere.
nlohmann::json comparable(const nlohmann::json& error) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* key :
       {"kind", "host", "rank", "exit_code", "signal", "executable", "phase", "detail"})
    if (error.contains(key)) out[key] = error[key];
  return out;
}

}  // namespace

TEST_CASE("golden transcripts explain to their expected root cause") {
  int cases = 0;
  for (const char* runtime : {"orte", "prrte", "hydra"}) {
    const fs::path dir = fs::path(MPILAUNCH_TEST_DATA_DIR) / runtime;
    REQUIRE(fs::is_directory(dir));
    for (const auto& entry : fs::directory_iterator(dir)) {
      const fs::path c = entry.path();
      if (!fs::exists(c / "expected.json")) continue;
      ++cases;
      CAPTURE(c.string());
      const int rc = std::stoi(slurp(c / "rc"));
      // stderr first: the launcher's banners; Hydra's frame and the ranks' stdout follow.
      const Explanation x = explain_text(slurp(c / "stderr") + slurp(c / "stdout"), rc);
      const nlohmann::json got = explanation_to_json(x);
      const nlohmann::json want = nlohmann::json::parse(slurp(c / "expected.json"));
      CHECK(got["runtime"] == want["runtime"]);
      if (want["error"].is_null()) {
        CHECK_FALSE(got.contains("error"));
        continue;
      }
      REQUIRE(got.contains("error"));
      CHECK(comparable(got["error"]).dump() == comparable(want["error"]).dump());
      // Only a runtime that printed nothing (Hydra) leaves an error without evidence lines.
      if (want["runtime"] != "unknown")
        CHECK_FALSE(got["error"].value("evidence", nlohmann::json::array()).empty());
      nlohmann::json kinds = nlohmann::json::array();
      for (const auto& s : got["secondary"]) kinds.push_back(s["kind"]);
      if (want.contains("secondary")) CHECK(kinds == want["secondary"]);
    }
  }
  CHECK(cases >= 40);
}

TEST_CASE("golden transcripts: a cut log still names a kind, never crashes") {
  // kubectl logs --tail cuts the head, a killed container the end: every prefix and suffix of
  // every transcript must explain without crashing and with bounded secondary lists.
  for (const char* runtime : {"orte", "prrte", "hydra"})
    for (const auto& entry : fs::directory_iterator(fs::path(MPILAUNCH_TEST_DATA_DIR) / runtime)) {
      const std::string log = slurp(entry.path() / "stderr");
      for (std::size_t cut = 0; cut < log.size(); cut += 97) {
        const Explanation head = explain_text(log.substr(0, cut), std::nullopt);
        const Explanation tail = explain_text(log.substr(cut), std::nullopt);
        CHECK(head.secondary.size() < 40);
        CHECK(tail.secondary.size() < 40);
      }
    }
}

TEST_CASE("golden transcripts: after a flood of ordinary rank output, the same root cause") {
  std::string flood;
  for (int i = 0; i < 5000; ++i)
    flood += "step " + std::to_string(i) + ": residual 0.00" + std::to_string(i % 97) + " ok\n";
  int cases = 0;
  for (const char* runtime : {"orte", "prrte", "hydra"})
    for (const auto& entry : fs::directory_iterator(fs::path(MPILAUNCH_TEST_DATA_DIR) / runtime)) {
      const fs::path c = entry.path();
      if (!fs::exists(c / "expected.json")) continue;
      ++cases;
      CAPTURE(c.string());
      const int rc = std::stoi(slurp(c / "rc"));
      const std::string log = slurp(c / "stderr") + slurp(c / "stdout");
      const nlohmann::json plain = explanation_to_json(explain_text(log, rc));
      const nlohmann::json flooded = explanation_to_json(explain_text(flood + log, rc));
      CHECK(flooded["runtime"] == plain["runtime"]);
      CHECK(flooded.contains("error") == plain.contains("error"));
      if (plain.contains("error") && flooded.contains("error"))
        CHECK(comparable(flooded["error"]) == comparable(plain["error"]));
    }
  CHECK(cases > 60);
}
