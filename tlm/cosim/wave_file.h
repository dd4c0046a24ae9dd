// The trace files the RTL wrappers write their waves with: Verilator's VerilatedVcdC and
// VerilatedFstC, made safe on a full disk (docs/cosim.md "Waveforms").
//
// Left to themselves, a VCD writer whose write fails calls vl_fatal, which runs the flush
// callbacks and so waits for the lock the writer already holds (the process hangs), and an
// FST writer maps the files it failed to write and dies of SIGBUS (fst_io_guard.h). Here
// the first failed write is noted and the file written no further; close() removes the
// file (a cut waveform is unreadable), and Waves::close() names it with the OS's reason.
// The same members as the classes they stand for, so either is the wrappers' `Trace`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "verilated.h"  // a file that includes SystemC includes cosim/verilated_sc.h first
#include "verilated_fst_c.h"
#include "verilated_vcd_c.h"

namespace ipusim::cosim {

// After a file's close: why writing `path` failed ("No space left on device"), once,
// or nothing (it did not fail, or this was asked before).
std::optional<std::string> take_wave_write_failure(const std::string& path);

// A VerilatedVcdFile that notes the first failed write and drops everything after it,
// telling the writer each write went through (so it never reaches vl_fatal).
class CheckedVcdFile : public VerilatedVcdFile {
 public:
  ssize_t write(const char* data, ssize_t length) override;
  int error() const { return error_; }

 private:
  int error_ = 0;
};

namespace detail {
struct VcdFileMember {  // constructed before, destroyed after, the writer that uses it
  CheckedVcdFile file;
};
}  // namespace detail

class VcdWaveFile : private detail::VcdFileMember, public VerilatedVcdC {
 public:
  VcdWaveFile() : VerilatedVcdC(&file) {}
  ~VcdWaveFile() override { close(); }
  void open(const char* path) override;
  void dump(uint64_t time) {
    if (file.error() == 0) VerilatedVcdC::dump(time);
  }
  void close();

 private:
  std::string path_;
};

class FstWaveFile : public VerilatedFstC {
 public:
  ~FstWaveFile() override { close(); }
  void open(const char* path);
  void dump(uint64_t time);
  void flush();
  void close();

 private:
  void check();
  std::string path_;
  int error_ = 0;
};

}  // namespace ipusim::cosim
