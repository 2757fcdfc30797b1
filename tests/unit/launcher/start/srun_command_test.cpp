#include <doctest/doctest.h>

#include <algorithm>

#include "common/error.hpp"
#include "launcher/start/srun_command.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("srun command: one task on the named node, overlapping, whole node, agent last") {
  const auto argv = srun_command("srun", "/opt/bin/mpilaunch-agent", "n7");
  const auto has = [&](const std::string& a) {
    return std::find(argv.begin(), argv.end(), a) != argv.end();
  };
  CHECK(argv.front() == "srun");
  CHECK(has("--nodelist=n7"));
  CHECK(has("--nodes=1"));
  CHECK(has("--ntasks=1"));
  CHECK(has("--overlap"));
  CHECK(has("--whole"));
  CHECK(has("--kill-on-bad-exit=1"));
  CHECK(has("--unbuffered"));
  REQUIRE(argv.size() >= 2);
  CHECK(argv[argv.size() - 2] == "/opt/bin/mpilaunch-agent");
  CHECK(argv.back() == "--stdio");
}

TEST_CASE("srun error lines become agent-start-failed in phase srun; other lines do not") {
  const auto e = srun_error_line(
      "srun: error: Unable to create step for job 5: Job/step already "
      "completing or completed\n",
      "n1");
  REQUIRE(e.has_value());
  CHECK(e->kind == ErrorKind::AgentStartFailed);
  CHECK(e->phase == "srun");
  CHECK(e->host == "n1");
  CHECK(e->detail.find("Unable to create step") != std::string::npos);
  CHECK(e->detail.back() != '\n');
  // Without slurmstepd's banner, srun's "Terminated" still points at Slurm's cancel.
  const auto terminated = srun_error_line("srun: error: n1: task 0: Terminated\n", "n1");
  REQUIRE(terminated.has_value());
  CHECK(terminated->detail.starts_with("srun: n1: task 0: Terminated: the agent got SIGTERM"));
  CHECK(terminated->detail.find("Slurm cancelled the job step") != std::string::npos);
  CHECK(e->detail.find("SIGTERM") == std::string::npos);
  CHECK_FALSE(srun_error_line("hello from the agent\n", "n1").has_value());
  CHECK_FALSE(srun_error_line("srun: job 5 queued and waiting for resources\n", "n1"));
}

TEST_CASE("a Slurm allocation is SLURM_JOB_ID set and not empty") {
  CHECK(inside_slurm_allocation(std::string("12")));
  CHECK_FALSE(inside_slurm_allocation(std::string("")));
  CHECK_FALSE(inside_slurm_allocation(std::nullopt));
}

TEST_CASE("slurmstepd's cancel banner: time limit is a timeout, anything else ends the agent") {
  const auto limit = slurm_step_end_line(
      "slurmstepd-n1: error: *** STEP 1.0 ON n1 CANCELLED AT 2026-11-23T05:28:51 DUE TO TIME "
      "LIMIT ***\n",
      "n1");
  REQUIRE(limit.has_value());
  CHECK(limit->kind == ErrorKind::Timeout);
  CHECK(limit->phase == "slurm");
  CHECK(limit->host == "n1");
  CHECK_FALSE(is_retryable(*limit));

  const auto scancel = slurm_step_end_line(
      "slurmstepd: error: *** STEP 9.0 ON n2 CANCELLED AT 2026-11-23T05:30:00 ***\n", "n2");
  REQUIRE(scancel.has_value());
  CHECK(scancel->kind == ErrorKind::AgentLost);
  CHECK(scancel->detail.find("scancel") != std::string::npos);

  const auto preempted = slurm_step_end_line(
      "slurmstepd: error: *** JOB 9 ON n2 CANCELLED AT 2026-11-23T05:30:00 DUE TO PREEMPTION "
      "***\n",
      "n2");
  REQUIRE(preempted.has_value());
  CHECK(preempted->kind == ErrorKind::AgentLost);
  CHECK(preempted->detail.find("PREEMPTION") != std::string::npos);

  CHECK_FALSE(slurm_step_end_line("slurmstepd: error: execve(): x: No such file\n", "n1"));
  CHECK_FALSE(slurm_step_end_line("rank output *** STEP 1.0 CANCELLED AT x ***\n", "n1"));
  CHECK_FALSE(slurm_step_end_line("srun: error: n1: task 0: Terminated\n", "n1"));
}
