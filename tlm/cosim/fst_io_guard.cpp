#include "fst_io_guard.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace {

thread_local int first_error = 0;

void note(int error) {
  if (first_error == 0) first_error = error != 0 ? error : EIO;
}

}  // namespace

extern "C" size_t ipusim_fst_fwrite(const void* data, size_t size, size_t count, FILE* file) {
  errno = 0;
  const size_t written = std::fwrite(data, size, count, file);
  if (written < count) note(errno);
  return written;
}

extern "C" int ipusim_fst_fputc(int c, FILE* file) {
  errno = 0;
  const int r = std::fputc(c, file);
  if (r == EOF) note(errno);
  return r;
}

extern "C" int ipusim_fst_fflush(FILE* file) {
  errno = 0;
  const int r = std::fflush(file);
  if (r != 0) note(errno);
  return r;
}

extern "C" int ipusim_fst_fclose(FILE* file) {
  errno = 0;
  const int r = std::fclose(file);
  if (r != 0) note(errno);
  return r;
}

extern "C" void* ipusim_fst_mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  struct stat st {};
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    // Pages wholly past the end of the file are the ones that raise SIGBUS when touched
    // (the last page of a file reads zeros past its end).
    const off_t page = ::sysconf(_SC_PAGESIZE);
    const off_t backed = (st.st_size + page - 1) / page * page;
    if (backed < offset + static_cast<off_t>(length)) {
      note(ENOSPC);  // a write before this one failed, or the file would not be this short
      return ::mmap(addr, length, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
  }
  return ::mmap(addr, length, prot, flags, fd, offset);
}

namespace ipusim::cosim {

int take_fst_io_error() { return std::exchange(first_error, 0); }

}  // namespace ipusim::cosim
