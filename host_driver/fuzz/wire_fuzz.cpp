// libFuzzer entry for the wire decoder: any bytes, decoded frame after frame as a server
// would (stop at the first invalid frame). Checks what must hold for every input: a
// decoded frame is re-encoded to the same bytes, consumed never exceeds the input, and
// a frame is never accepted from fewer than a header's bytes, and an accepted frame's
// board index (count, in HELLO_REPLY) is within what a system can have.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <variant>

#include "wire_protocol.h"

namespace wire = ipusim::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> rest(data, size);
  while (!rest.empty()) {
    const wire::Decoded d = wire::decode(rest);
    if (d.status != wire::Decoded::Status::kMessage) break;
    if (d.consumed < wire::kHeaderBytes || d.consumed > rest.size()) std::abort();
    const auto again = wire::encode(d.message);
    if (again.size() != d.consumed || std::memcmp(again.data(), rest.data(), d.consumed) != 0) std::abort();
    std::visit(
        [](const auto& m) {
          if constexpr (requires { m.board; }) {
            if (m.board >= wire::kMaxBoards) std::abort();
          }
          if constexpr (requires { m.boards; }) {
            if (m.boards == 0 || m.boards > wire::kMaxBoards) std::abort();
          }
        },
        d.message.body);
    rest = rest.subspan(d.consumed);
  }
  return 0;
}
