#include "launcher/job/stacks_request.hpp"

#include <doctest/doctest.h>

#include <algorithm>

namespace mpilaunch::launcher {

TEST_CASE("a job id is 8 lowercase hex digits") {
  CHECK(looks_like_job_id("0a1b2c3d"));
  CHECK_FALSE(looks_like_job_id("0A1B2C3D"));
  CHECK_FALSE(looks_like_job_id("0a1b2c3"));
  CHECK_FALSE(looks_like_job_id("0a1b2c3d4"));
  CHECK_FALSE(looks_like_job_id("status.json"));
  CHECK_FALSE(looks_like_job_id(""));
}

TEST_CASE("the job id comes from a --status document or an --events file's job-start line") {
  CHECK(job_id_in(R"({"job": "0a1b2c3d", "phase": "Running"})") == "0a1b2c3d");
  CHECK(job_id_in("{\n  \"job\": \"0a1b2c3d\"\n}\n") == "0a1b2c3d");
  CHECK(job_id_in(R"({"v":1,"event":"job-start","job":"deadbeef","np":4})"
                  "\n"
                  R"({"v":1,"event":"agent-up","node":0})"
                  "\n") == "deadbeef");
  // An events file still being written: its last line may be cut.
  CHECK(job_id_in(R"({"v":1,"event":"job-start","job":"deadbeef"})"
                  "\n"
                  R"({"v":1,"ev)") == "deadbeef");
  CHECK_FALSE(job_id_in(R"({"job": "../../etc"})"));
  CHECK_FALSE(job_id_in(R"({"job": 12})"));
  CHECK_FALSE(job_id_in(R"({"v":1,"event":"agent-up"})"));
  CHECK_FALSE(job_id_in("not json at all\n"));
  CHECK_FALSE(job_id_in(""));
}

TEST_CASE("job directories: the name gives the id only for its owner") {
  CHECK(job_id_of_dir("mpilaunch-1000-0a1b2c3d", 1000) == "0a1b2c3d");
  CHECK_FALSE(job_id_of_dir("mpilaunch-1000-0a1b2c3d", 0));
  CHECK_FALSE(job_id_of_dir("mpilaunch-10000-0a1b2c3d", 1000));
  CHECK_FALSE(job_id_of_dir("mpilaunch-1000-", 1000));
  CHECK_FALSE(job_id_of_dir("mpilaunch-compat-Q8qebJ", 1000));
  CHECK(job_dir_of("/dev/shm", 1000, "0a1b2c3d") == "/dev/shm/mpilaunch-1000-0a1b2c3d");
}

TEST_CASE("a reply is one JSON line, with stacks or why there are none") {
  StacksReply r{.job = "0a1b2c3d", .tree = "stacks of 1 rank (gdb; ...):\n  rank 0 (1): main\n"};
  r.stacks = {{"groups", nlohmann::json::array()}, {"ranks", nlohmann::json::array()}};
  const std::string text = render_reply(r);
  CHECK(text.back() == '\n');
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  const auto back = parse_reply(text);
  REQUIRE(back);
  CHECK(back->job == r.job);
  CHECK(back->tree == r.tree);
  CHECK(back->stacks == r.stacks);
  CHECK(back->error.empty());

  const auto refused = parse_reply(render_reply({.job = "0a1b2c3d", .error = "not running"}));
  REQUIRE(refused);
  CHECK(refused->error == "not running");
  CHECK(parse_reply(R"({"error":"only the job's owner may ask for its stacks"})")->error ==
        "only the job's owner may ask for its stacks");

  CHECK_FALSE(parse_reply(""));
  CHECK_FALSE(parse_reply(R"({"job":"0a1b2c3d"})"));  // neither stacks nor an error
  CHECK_FALSE(parse_reply(R"({"job":"0a1b2c3d","tree":"x","stacks":[]})"));
  CHECK_FALSE(parse_reply(R"({"job":7,"error":"x"})"));
  CHECK_FALSE(parse_reply("[1,2]"));
}

}  // namespace mpilaunch::launcher
