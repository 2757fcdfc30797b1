#pragma once
/// [io] Waiting on descriptors that belong to someone else (libssh's socket, a socketpair end)
/// from a coroutine on the caller's executor, and running a blocking call off the event loop.

#include <poll.h>

#include <chrono>
#include <functional>

#include "common/asio.hpp"

namespace mpilaunch::launcher {

struct FdWait {
  int fd = -1;
  short events = 0;  // POLLIN and/or POLLOUT; 0 or fd < 0: ignored
};

/// Resumes when `first` or `second` is ready or `at_most` has passed, whichever comes first.
/// The descriptors stay open and unowned; nothing is read or written. (Two parameters, not an
/// initializer_list: GCC 12 rejects those inside co_await expressions.)
asio::awaitable<void> wait_fds(std::chrono::steady_clock::duration at_most, FdWait first,
                               FdWait second = {});

/// A one-shot signal from a helper thread to a coroutine (an eventfd): the thread raise()s it
/// when its work is done, the coroutine waits for it on the loop.
class DoneSignal {
 public:
  DoneSignal();
  ~DoneSignal();
  DoneSignal(const DoneSignal&) = delete;
  DoneSignal& operator=(const DoneSignal&) = delete;
  /// False when no eventfd could be made: the caller must not count on being woken.
  bool usable() const { return fd_ >= 0; }
  /// Any thread.
  void raise();
  /// Resumes once raised, or after `at_most`.
  asio::awaitable<void> wait(std::chrono::steady_clock::duration at_most);

 private:
  int fd_;
};

/// Runs `work` on a helper thread and resumes once it returned; the event loop keeps running
/// meanwhile. The caller must leave alone whatever `work` touches until then.
asio::awaitable<void> run_off_loop(std::function<void()> work);

}  // namespace mpilaunch::launcher
