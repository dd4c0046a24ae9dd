// Where the RTL blocks' waveforms go (`ipusim run --waves FILE`, docs/cosim.md "Waveforms").
//
// One Waves per platform, null when waves are off, so a block that runs as RTL costs
// nothing for tracing unless asked. The format follows FILE's extension: `.fst` (compact,
// slow to write) or `.vcd` (large, quick to write); anything else is refused.
//
// Every RTL instance writes its own file: Verilator's trace writers need time to go forward,
// and each instance runs at its own place in simulated time (a sync controller replays a
// superstep's arrivals once it has them all; tiles run ahead of SystemC time). An instance
// is named at elaboration (add("ipu0.sync")); after freeze() path() gives its file: with
// one instance FILE itself, with more FILE's stem + "." + instance + extension
// (w.fst -> w.ipu0.sync.fst, w.ipu1.sync.fst).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ipusim::cosim {

enum class WaveFormat { Vcd, Fst };

class Waves {
 public:
  // Throws std::invalid_argument naming the file unless it ends in .fst or .vcd (after a name).
  explicit Waves(std::string file);

  WaveFormat format() const { return format_; }
  const std::string& file() const { return file_; }

  // At elaboration, every RTL instance that traces; a name used twice is a logic_error.
  void add(const std::string& instance);
  // After elaboration: every instance is known, so the file names are fixed.
  void freeze() { frozen_ = true; }
  // The file of an instance (logic_error before freeze() or for an unknown instance).
  std::string path(const std::string& instance) const;
  // Every file, in the order the instances were added (after freeze()).
  std::vector<std::string> paths() const;

  // The end of the run: every instance that opened its file closes it (an FST file is
  // readable only once closed), through the closer it registered when it opened it;
  // after that no instance traces. `ipusim run` calls it before it names the files (its
  // platform is never destroyed); an instance destroyed first closes its own file and
  // forgets its closer.
  size_t on_close(std::function<void()> closer);
  void forget(size_t id);
  void close();
  // After close(): the first file (in instance order) whose writing failed, as "writing
  // the waveform 'FILE' failed: REASON (the file is removed)" (wave_file.h), or nothing.
  const std::optional<std::string>& write_error() const { return write_error_; }

 private:
  std::string file_, stem_, extension_;
  WaveFormat format_;
  std::vector<std::string> instances_;
  std::set<std::string> names_;
  bool frozen_ = false;
  std::vector<std::function<void()>> closers_;  // by id; empty: forgotten or run
  std::optional<std::string> write_error_;
};

}  // namespace ipusim::cosim
