#include "cosim/wave_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "cosim/fst_io_guard.h"

namespace ipusim::cosim {
namespace {

// Failures by file, from the thread that closed the file to the Waves that names it.
std::mutex failures_mutex;
std::map<std::string, std::string>& failures() {
  static std::map<std::string, std::string> by_path;
  return by_path;
}

void failed(const std::string& path, int error) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  const std::lock_guard lock(failures_mutex);
  failures().emplace(path, std::strerror(error));
}

}  // namespace

std::optional<std::string> take_wave_write_failure(const std::string& path) {
  const std::lock_guard lock(failures_mutex);
  auto it = failures().find(path);
  if (it == failures().end()) return std::nullopt;
  std::string why = std::move(it->second);
  failures().erase(it);
  return why;
}

ssize_t CheckedVcdFile::write(const char* data, ssize_t length) {
  if (error_ != 0) return length;
  ssize_t done = 0;
  while (done < length) {
    errno = 0;
    const ssize_t n = VerilatedVcdFile::write(data + done, length - done);
    if (n > 0) {
      done += n;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      continue;
    } else {
      error_ = n < 0 && errno != 0 ? errno : ENOSPC;  // 0 bytes taken: nothing more will be
      break;
    }
  }
  return length;
}

void VcdWaveFile::open(const char* path) {
  path_ = path;
  VerilatedVcdC::open(path);
}

void VcdWaveFile::close() {
  if (!isOpen()) return;
  VerilatedVcdC::close();
  if (file.error() != 0) failed(path_, file.error());
}

void FstWaveFile::open(const char* path) {
  path_ = path;
  take_fst_io_error();  // another writer's, on this thread, outside our calls
  VerilatedFstC::open(path);
  check();
}

void FstWaveFile::dump(uint64_t time) {
  if (error_ != 0) return;
  VerilatedFstC::dump(time);
  check();
}

void FstWaveFile::flush() {
  if (error_ != 0) return;
  VerilatedFstC::flush();
  check();
}

void FstWaveFile::close() {
  if (!isOpen()) return;
  take_fst_io_error();
  // Even after a failure: the writer frees its memory and temporary files here.
  VerilatedFstC::close();
  check();
  if (error_ != 0) failed(path_, error_);
}

void FstWaveFile::check() {
  const int e = take_fst_io_error();
  if (error_ == 0) error_ = e;
}

}  // namespace ipusim::cosim
