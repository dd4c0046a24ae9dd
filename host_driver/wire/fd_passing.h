// Sending bytes with a file descriptor over a Unix stream socket (SCM_RIGHTS), and
// receiving bytes together with any descriptors that came with them. Shared by the
// socket transport and `ipusim serve`; Boost.Asio has no ancillary-data support.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ipusim::wire {

// Sends all of `bytes`; `fd` (>= 0) rides on the first byte. Returns false on error
// (errno set). Blocks while the socket is full (poll), even on a non-blocking socket.
bool send_all(int sock, std::span<const uint8_t> bytes, int fd = -1);

// One recvmsg: returns bytes read (0: peer closed, -1: error with errno; EAGAIN on a
// non-blocking socket with nothing to read). Descriptors that arrived are appended to
// `fds` (close-on-exec); the caller owns them. Truncated ancillary data closes what came
// and counts as an error (EBADMSG).
long recv_some(int sock, std::span<uint8_t> buffer, std::vector<int>& fds);

}  // namespace ipusim::wire
