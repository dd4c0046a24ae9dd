// socket_path.h
#include "socket_path.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ipusim::serve {
namespace {

sockaddr_un address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.sun_path)
    throw SocketPathError("socket path '" + path + "': empty or longer than " + std::to_string(sizeof a.sun_path - 1) + " bytes");
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

bool someone_listens(const sockaddr_un& a) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool live = ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return live;
}

}  // namespace

int listen_on(const std::string& path) {
  const sockaddr_un a = address(path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      throw SocketPathError("socket path '" + path + "' exists and is not a socket; refusing to replace it");
    if (someone_listens(a)) throw SocketPathError("socket path '" + path + "': another server is listening on it");
    if (::unlink(path.c_str()) != 0)
      throw SocketPathError("socket path '" + path + "': cannot remove the stale socket: " + std::strerror(errno));
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw SocketPathError(std::string("socket(): ") + std::strerror(errno));
  // bind() creates the file with the umask applied: make it owner-only from the start
  // (no window where another user could connect), then fix the mode for odd umasks.
  const mode_t old = ::umask(0177);
  const int rc = ::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a);
  const int bind_errno = errno;
  ::umask(old);
  if (rc != 0) {
    ::close(fd);
    throw SocketPathError("socket path '" + path + "': bind failed: " + std::strerror(bind_errno));
  }
  if (::chmod(path.c_str(), 0600) != 0 || ::listen(fd, 4) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(path.c_str());
    throw SocketPathError("socket path '" + path + "': " + std::strerror(e));
  }
  return fd;
}

}  // namespace ipusim::serve
