#pragma once
/// `mpilaunch stacks [JOB]`: which job JOB names (its id, its --status file, its --events
/// file), where that job's launcher takes requests (a socket in the job's 0700 directory), and
/// the request and reply on it. Pure.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mpilaunch::launcher {

/// The launcher's request socket, in its job directory (`<base>/mpilaunch-<uid>-<job>`).
inline constexpr std::string_view kControlSocket = "control.sock";
/// The one request there is: every running rank's stack, merged.
inline constexpr std::string_view kStacksRequest = "stacks";
/// The longest request line a launcher reads.
inline constexpr std::size_t kMaxRequestLine = 256;

/// A job id as the launcher makes them: 8 lowercase hex digits.
bool looks_like_job_id(std::string_view s);

/// The job id a --status document (`"job"`) or an --events file (its job-start line's "job")
/// names; nullopt when `text` is neither.
std::optional<std::string> job_id_in(std::string_view text);

/// The job id of a job directory's name, "mpilaunch-<uid>-<id>", when `uid` is its owner's.
std::optional<std::string> job_id_of_dir(std::string_view name, unsigned uid);

/// `<base>/mpilaunch-<uid>-<id>`.
std::string job_dir_of(std::string_view base, unsigned uid, std::string_view id);

/// The reply to a stacks request: the merged tree as text and as the stacks event's document,
/// or why there is none.
struct StacksReply {
  std::string job;
  std::string tree;
  nlohmann::json stacks;  // stacks_to_json(): groups and each rank's raw stack
  std::string error;      // why there are no stacks (the job is ending, not yet running)
};
std::string render_reply(const StacksReply& reply);
/// nullopt when `text` is not a reply.
std::optional<StacksReply> parse_reply(std::string_view text);

}  // namespace mpilaunch::launcher
