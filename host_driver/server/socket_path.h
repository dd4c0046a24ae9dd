// Creating the listening Unix socket of `ipusim serve` safely: owner-only permissions
// whatever the umask, never replacing a file that is not a socket, never stealing the
// path of a server that is still listening, and removing the socket on shutdown.
#pragma once

#include <stdexcept>
#include <string>

namespace ipusim::serve {

class SocketPathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Binds and listens on `path` with mode 0600; returns the listening fd (close-on-exec).
// A stale socket (nobody accepts on it) is replaced; anything else at the path is refused
// with a SocketPathError naming the path and why.
int listen_on(const std::string& path);

}  // namespace ipusim::serve
