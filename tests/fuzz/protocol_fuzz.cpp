// libFuzzer target: the frame decoder, message decoder and hello-line scanner must never
// crash, read out of bounds or allocate without bound, whatever bytes arrive.

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/handshake.hpp"
#include "common/protocol.hpp"

using namespace mpilaunch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  (void)handshake::scan_for_hello(in);
  std::size_t used = 0;
  while (used < in.size()) {
    auto frame = protocol::decode_frame(in.subspan(used));
    if (!frame || !frame.value()) break;
    used += frame.value()->wire_size();
    auto envelope = protocol::decode_message(*frame.value());
    if (envelope) {
      // A decoded message must encode back to a frame that decodes to the same message.
      const auto wire = protocol::encode(envelope->message, envelope->id, envelope->refers_to);
      auto again = protocol::decode_frame(wire);
      if (!again || !again.value()) __builtin_trap();
      auto back = protocol::decode_message(*again.value());
      if (!back || !(back->message == envelope->message)) __builtin_trap();
    }
  }
  return 0;
}
