#pragma once
/// The one place Boost.Asio is included. GCC 12 needs <utility> before Boost 1.74's awaitable.hpp.

#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace mpilaunch {
namespace asio = boost::asio;
}  // namespace mpilaunch
