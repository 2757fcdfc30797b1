#pragma once
/// Assertions shared by the e2e cases (doctest CHECKs, so a case reports every broken promise).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/support/command.hpp"
#include "tests/e2e/support/events.hpp"
#include "tests/e2e/support/job.hpp"

namespace mpilaunch::e2e {

/// The run ended by itself (no deadline, no pipe held open), no process carrying the job's marker
/// is alive and MPILAUNCH_TMPDIR is empty again.
void check_nothing_left(const Job& job, const Outcome& outcome);

/// The events file is well formed and its last line is job-end with "exit_code" == `status`.
/// Returns the events for further checks.
std::vector<Json> check_events(const Job& job, int status);

/// A failed job: exit status `status`, exactly one "mpilaunch: error: " block on stderr whose
/// kind line names `kind`. Does not look at the events file (see check_job_failed).
void check_error_block(const Outcome& outcome, const std::string& kind, int status);

/// check_events plus a job-failed event whose error has `kind`, a message and a hint. Returns
/// that error object (or an empty object when missing, after failing a CHECK).
Json check_job_failed(const Job& job, const std::string& kind, int status);

/// The lines of `text`, without their '\n' (a last unterminated line is kept).
std::vector<std::string> lines_of(const std::string& text);

/// How often `needle` occurs in `haystack`.
std::size_t count_of(const std::string& haystack, const std::string& needle);

/// `bytes` deterministic bytes that are not text (every value, CR and LF among them, in an
/// order md5 tells apart; xorshift32 from `seed`).
std::string binary_payload(std::size_t bytes, std::uint32_t seed = 2463534242u);

/// md5sum's hex digest of the file at `path`, computed by md5sum itself.
std::string md5_of_file(const std::string& path);

}  // namespace mpilaunch::e2e
