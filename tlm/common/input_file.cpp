#include "common/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace ipusim {

std::string read_input_file(const std::string& path, uint64_t max_bytes, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputFileError(errno == ENOENT ? "no such file" : std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputFileError("it is a directory");
  if (!S_ISREG(st.st_mode)) throw InputFileError("not a regular file (a device, a pipe or a socket)");
  if (uint64_t(st.st_size) > max_bytes)
    throw InputFileError(fmt::format("{} bytes, more than the {} a {} may have", st.st_size, max_bytes, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputFileError(std::strerror(errno));
  // Read at most one byte past the limit: a file that grows while it is read stays bounded.
  std::string bytes(size_t(st.st_size), '\0');
  in.read(bytes.data(), std::streamsize(bytes.size()));
  if (in.bad() || size_t(in.gcount()) != bytes.size()) throw InputFileError("read error");
  if (in.peek() != std::char_traits<char>::eof())
    throw InputFileError(fmt::format("it grew while it was read (a {} must not change)", what));
  return bytes;
}

}  // namespace ipusim
