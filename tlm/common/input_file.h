// Reading an input file whole (a config, an ELF), bounded: it must be a regular file no
// larger than a limit, so `/dev/zero`, a pipe or a directory given as a config or an
// ELF is an error naming why, never a read that grows memory for ever.
//
// Plain C++ (in ipusim_problem, with the problem record): the ISS and the config loader
// both use it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ipusim {

inline constexpr uint64_t kMaxConfigFileBytes = uint64_t{16} << 20;  // a config YAML file
inline constexpr uint64_t kMaxElfFileBytes = uint64_t{256} << 20;    // a firmware ELF (debug info included)

// Why an input file cannot be read ("no such file", "not a regular file (a device, a pipe
// or a socket)", "20971520 bytes, more than the 16777216 a config file may have", ...);
// what() names no path: the caller does, in its own format.
class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The bytes of `path`. `what` names the kind of file in the size error ("config file").
// Throws InputFileError.
std::string read_input_file(const std::string& path, uint64_t max_bytes, const char* what);

}  // namespace ipusim
