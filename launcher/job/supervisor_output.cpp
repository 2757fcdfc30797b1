// Supervisor: rank output that could not be written (issue 23, items 5 and 6).

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "common/text_format.hpp"

#include "common/exit_codes.hpp"
#include "launcher/job/supervisor_link.hpp"

namespace mpilaunch::launcher {
namespace {

const char* stream_name(protocol::Stream stream) {
  return stream == protocol::Stream::Stdout ? "stdout" : "stderr";
}

}  // namespace

void Supervisor::on_output_failure(const OutputFailure& f) {
  if (f.terminal) {
    // Nothing more can reach the user: the job ends now, as mpirun's does when its stdout
    // closes. A reader that went away (| head) is what a Unix tool dies of by SIGPIPE.
    if (!output_error_ || !output_error_->signal) {
      Error e{
          .kind = ErrorKind::OutputError,
          .detail = mpilaunch::format("mpilaunch's {}: {}", f.destination, std::strerror(f.error))};
      if (f.error == EPIPE) {
        e.signal = SIGPIPE;
      } else {
        e.rank = static_cast<int>(f.rank);
      }
      output_error_ = std::move(e);
    }
    // Not from inside the write (a rank's output, a rank's end): from the loop.
    asio::post(io_, [this] {
      if (finishing_ || !output_error_) return;
      fail(*output_error_, JobEvent::Interrupted);
    });
    return;
  }
  if (output_error_) return;  // said once: the losses are all in the events at the end
  output_error_ =
      Error{.kind = ErrorKind::OutputError,
            .rank = static_cast<int>(f.rank),
            .detail = mpilaunch::format("{}: {}", f.destination, std::strerror(f.error))};
  std::fprintf(stderr,
               "mpilaunch: warning: rank %u's %s cannot be written to %s: %s; the job runs on, "
               "the terminal still gets its output, and it will exit %d (output-error)\n",
               f.rank, stream_name(f.stream), f.destination.c_str(), std::strerror(f.error),
               exit_codes::kOutputError);
  std::fflush(stderr);
}

void Supervisor::on_output_held(std::uint32_t rank, bool stdout_held, bool stderr_held) {
  // mpirun 4.1.4 waits for such a stream to close (its job ends when the last holder closes
  // it); mpilaunch stops after the grace, and never silently (docs/mpirun-compat.md).
  const char* streams = stdout_held && stderr_held ? "stdout and stderr were"
                        : stdout_held              ? "stdout was"
                                                   : "stderr was";
  const ChildJobRecord* child = child_of(rank);
  const std::string who = child == nullptr
                              ? mpilaunch::format("rank {}", rank)
                              : mpilaunch::format("rank {} of spawned job {}",
                                                  rank - child->first_index, child->job_number);
  std::fprintf(stderr,
               "mpilaunch: warning: %s's %s still open %d s after it ended (a process it started "
               "holds them); what is written to them from now on is not forwarded\n",
               who.c_str(), streams, kRankDrainGraceSeconds);
  std::fflush(stderr);
  nlohmann::json fields = {{"rank", child == nullptr ? rank : rank - child->first_index},
                           {"stdout", stdout_held},
                           {"stderr", stderr_held},
                           {"grace_s", kRankDrainGraceSeconds}};
  if (child != nullptr) fields["job"] = child->job_number;
  events_.write("output-held", std::move(fields));
}

bool Supervisor::adopt_output_error() {
  if (!output_error_ || error_) return false;
  record_cause(*output_error_, std::nullopt, false);
  return true;
}

void Supervisor::report_output_losses() {
  for (const OutputFailure& f : output_.losses()) {
    nlohmann::json fields = {{"rank", f.rank},
                             {"stream", stream_name(f.stream)},
                             {"destination", f.destination},
                             {"error", std::strerror(f.error)},
                             {"errno", f.error},
                             {"written_bytes", f.written},
                             {"lost_bytes", f.lost}};
    if (f.attempt > 0) fields["attempt"] = f.attempt;
    if (f.stalled) fields["error"] = "the reader took nothing more before the job ended";
    events_.write("output-lost", std::move(fields));
  }
}

asio::awaitable<void> Supervisor::output_room() {
  if (!output_.congested()) co_return;
  auto room = std::make_shared<asio::steady_timer>(io_, asio::steady_timer::time_point::max());
  output_.when_room([room] { room->cancel(); });
  boost::system::error_code ignored;
  co_await room->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

bool Supervisor::output_gate(std::function<void()> go) {
  if (!output_.congested()) return false;
  output_.when_room(std::move(go));
  return true;
}

}  // namespace mpilaunch::launcher
