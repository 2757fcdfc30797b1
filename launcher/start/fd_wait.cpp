#include "launcher/start/fd_wait.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace mpilaunch::launcher {
namespace {

// A descriptor watched for someone else: given back unclosed however the wait ends, also when
// the io_context destroys the suspended coroutine.
struct Borrowed {
  std::unique_ptr<asio::posix::stream_descriptor> d;
  Borrowed() = default;
  Borrowed(Borrowed&&) = default;
  Borrowed& operator=(Borrowed&&) = default;
  ~Borrowed() {
    if (d && d->is_open()) d->release();
  }
};

}  // namespace

asio::awaitable<void> wait_fds(std::chrono::steady_clock::duration at_most, FdWait first,
                               FdWait second) {
  const auto executor = co_await asio::this_coro::executor;
  // Readiness cancels the timer; every wait is registered afresh, so readiness that came
  // before the call is seen too (epoll reports it on registration).
  auto timer = std::make_shared<asio::steady_timer>(executor, at_most);
  std::vector<Borrowed> watched;
  watched.reserve(2);
  for (const FdWait& w : {first, second}) {
    if (w.fd < 0 || w.events == 0) continue;
    auto d = std::make_unique<asio::posix::stream_descriptor>(executor);
    boost::system::error_code ec;
    d->assign(w.fd, ec);
    if (ec) {  // cannot be watched: do not sleep on it
      timer->cancel();
      continue;
    }
    const auto wake = [timer](const boost::system::error_code& e) {
      if (!e) timer->cancel();
    };
    if ((w.events & POLLIN) != 0) d->async_wait(asio::posix::stream_descriptor::wait_read, wake);
    if ((w.events & POLLOUT) != 0) d->async_wait(asio::posix::stream_descriptor::wait_write, wake);
    watched.emplace_back().d = std::move(d);
  }
  boost::system::error_code ignored;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  // Leaving ends the other waits (Borrowed gives each descriptor back unclosed).
}

DoneSignal::DoneSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

DoneSignal::~DoneSignal() {
  if (fd_ >= 0) ::close(fd_);
}

void DoneSignal::raise() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
}

asio::awaitable<void> DoneSignal::wait(std::chrono::steady_clock::duration at_most) {
  co_await wait_fds(at_most, FdWait{fd_, POLLIN});  // stays readable once raised
}

asio::awaitable<void> run_off_loop(std::function<void()> work) {
  DoneSignal done;
  if (!done.usable()) {  // no eventfd: run it here, blocking the loop, rather than not at all
    work();
    co_return;
  }
  std::atomic<bool> finished{false};
  std::jthread helper([&] {
    work();
    finished = true;
    done.raise();
  });
  while (!finished) co_await done.wait(std::chrono::seconds(1));
}

}  // namespace mpilaunch::launcher
