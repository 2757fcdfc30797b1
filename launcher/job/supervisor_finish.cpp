// Supervisor: the job's end (Shutdown to the agents, the reader drained, the exit code) and
// the --status file it leaves.

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/error_catalog.hpp"
#include "common/exit_codes.hpp"
#include "common/text_format.hpp"
#include "launcher/job/supervisor_link.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(5);

// Replaces `path` in one step, so readers never see a half-written status; a write that fails
// (a full file system) leaves the previous file in place. Returns the errno of the failure, 0.
int write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "we");
  if (f == nullptr) return errno;
  errno = 0;
  // No fsync: the file is rewritten on every rank's end, and a full disk fails the write or
  // the close already (tmpfs, ext4's delayed allocation reserves space at write()).
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  int err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return 0;
  if (ok) err = errno;
  std::remove(tmp.c_str());
  return err != 0 ? err : EIO;
}

}  // namespace

void Supervisor::update_status() {
  if (config_.status_file.empty()) return;
  status_.updated = rfc3339_now();
  const int err = write_atomically(config_.status_file, to_json(status_).dump(2) + "\n");
  if (err == 0 || status_write_failed_) return;
  status_write_failed_ = true;  // said once; later updates still try
  std::fprintf(stderr,
               "mpilaunch: warning: --status %s: %s; the file keeps its last complete state\n",
               config_.status_file.c_str(), std::strerror(err));
}

void Supervisor::finish() {
  finishing_ = true;
  if (stdin_) stdin_->stop();
  output_.release();
  kill_timer_.cancel();
  teardown_timer_.cancel();
  start_timer_.cancel();
  backoff_timer_.cancel();
  wireup_timer_.cancel();
  adopt_output_error();  // output lost while the ranks ran fails a job that otherwise succeeded
  if (error_) {
    status_.move_to(JobPhase::Failed, std::string(kind_name(error_->kind)), message(*error_),
                    rfc3339_now());
  } else {
    status_.move_to(JobPhase::Succeeded, "AllRanksSucceeded",
                    nonzero_exits_.empty()
                        ? "every rank exited 0"
                        : mpilaunch::format("every rank ended, {} of them non-zero "
                                            "(orte_abort_on_non_zero_status is false)",
                                            nonzero_exits_.size()),
                    rfc3339_now());
  }
  update_status();
  // An agent that never said hello (silent, still starting, a fake at --agent-path) cannot
  // take a Shutdown: its link is closed now, which ends it (EOF on its stdin; a local one is
  // killed). on_link_closed() completes the job once every link is closed.
  std::vector<Link*> silent;
  bool any_open = false;
  for (const auto& link : links_)
    if (link && !link->closed) {
      if (!link->ready) {
        silent.push_back(link.get());
        continue;
      }
      link->stream.send(protocol::Shutdown{});
      any_open = true;
    }
  if (any_open) {
    shutdown_timer_.expires_after(kShutdownGrace);
    shutdown_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      // A local agent is killed (its link then closes); a remote one, whose process is not
      // ours, has its link closed: the ssh session ends and the agent finds EOF.
      std::vector<Link*> remote;
      for (const auto& link : links_)
        if (link && !link->closed) {
          if (link->pid > 0)
            ::kill(link->pid, SIGKILL);
          else
            remote.push_back(link.get());
        }
      for (Link* link : remote) on_link_closed(*link, std::nullopt);
    });
  }
  for (Link* link : silent) on_link_closed(*link, std::nullopt);
  if (!any_open && silent.empty()) complete();
}

void Supervisor::complete() {
  if (done_) return;
  done_ = true;
  // Killed at their bye: every exit is under way at once, each is reaped here.
  for (const pid_t pid : stopped_) wait_status_of(pid, false);
  stopped_.clear();
  shutdown_timer_.cancel();
  sigchld_.cancel();
  if (control_) control_->close();
  streams_.close_all();
  output_.flush_all();
  // A reader that is slow (| less) gets the rest before the job ends, as from any Unix tool;
  // a signal or --timeout meanwhile gives up on it (give_up_output()). A job ended by one
  // (SIGINT, SIGTERM, --timeout) does not wait for its reader at all: the output still queued
  // is counted as lost (output-lost events), as a tool's buffers are when a signal ends it.
  draining_ = true;
  if (error_ && (error_->kind == ErrorKind::Interrupted ||
                 (error_->kind == ErrorKind::Timeout && error_->phase == "job")))
    output_.abandon();
  output_.when_drained([this] { complete_now(); });
}

void Supervisor::give_up_output(Error why) {
  if (!draining_) return;
  if (!error_) record_cause(std::move(why), std::nullopt, false);
  output_.abandon();  // runs complete_now()
}

void Supervisor::complete_now() {
  if (!draining_) return;
  draining_ = false;
  signals_.cancel();
  job_timer_.cancel();
  if (adopt_output_error()) {  // the last bytes, written just now, could not be
    status_.move_to(JobPhase::Failed, std::string(kind_name(error_->kind)), message(*error_),
                    rfc3339_now());
    update_status();
  }
  report_output_losses();
  std::error_code ec;
  std::filesystem::remove_all(config_.tmpdir, ec);
  exit_code_ = error_ ? exit_codes::for_error(*error_) : exit_codes::kSuccess;
  if (!nonzero_exits_.empty() && !config_.plan.quiet && !output_.stderr_stalled()) {
    // mpirun 4.1.4 says nothing of them and exits 0; one line says what mpilaunch knows.
    std::string ranks;
    constexpr std::size_t kNamed = 8;
    for (std::size_t i = 0; i < nonzero_exits_.size() && i < kNamed; ++i) {
      const Error& e = nonzero_exits_[i];
      ranks += mpilaunch::format("{}rank {} on {} with code {}", i == 0 ? "" : ", ",
                                 e.rank.value_or(-1), e.host, e.exit_code.value_or(-1));
    }
    if (nonzero_exits_.size() > kNamed)
      ranks += mpilaunch::format(" and {} more", nonzero_exits_.size() - kNamed);
    const std::string line = mpilaunch::format(
        "mpilaunch: warning: {} exited non-zero and the job ran on, as "
        "orte_abort_on_non_zero_status is false ({}){}\n",
        nonzero_exits_.size() == 1 ? std::string("1 rank")
                                   : mpilaunch::format("{} ranks", nonzero_exits_.size()),
        ranks, error_ ? "" : "; exit status 0, as mpirun 4.1.4's");
    std::fputs(line.c_str(), stderr);
  }
  if (error_ && !output_.stderr_stalled()) {
    const std::string text = render_framed(*error_);
    std::fputs(text.c_str(), stderr);
  }
  nlohmann::json end = {{"exit_code", exit_code_},
                        {"status", error_ ? "failed" : "succeeded"},
                        {"attempts", attempt_}};
  if (!nonzero_exits_.empty()) {
    // The ranks that exited non-zero while the job ran on (orte_abort_on_non_zero_status).
    nlohmann::json ranks = nlohmann::json::array();
    for (const Error& e : nonzero_exits_)
      ranks.push_back({{"rank", e.rank.value_or(-1)},
                       {"host", e.host},
                       {"exit_code", e.exit_code.value_or(-1)}});
    end["nonzero_exits"] = std::move(ranks);
  }
  events_.write("job-end", std::move(end));
  io_.stop();
}

}  // namespace mpilaunch::launcher
