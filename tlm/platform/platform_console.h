// Console lines of every tile, printed in a deterministic order.
//
// Order: by stamp, then IPU, then tile, then the order the tile emitted them. The
// platform stamps a line with the number of the tile engine's batch that ran the compute
// stretch emitting it (tile/tile_engine.h); the tiles released by one sync compute in one
// batch, so they print that superstep's lines in tile order, whatever host thread ran
// which tile.
//
// Streaming: batch numbers never go back, so when a line arrives with a later stamp than
// any seen, every buffered line is final and is printed. flush() prints the rest (end of
// run).
//
// A sink instead of a FILE (a host driver's console, host_if/device_link.h) receives the
// same lines in the same order, on the thread that made them final (a tile engine's host
// thread or the model thread), with the collector's mutex held: a sink that waits (a full
// queue) holds the tiles' console, and with it the simulation, until it returns; the
// simulated cycles are the same either way.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::platform {

enum class ConsoleMode {
  Tagged,  // "[ipu I tile T] text", workers "[ipu I tile T w K] text"
  Raw,     // "text"
};

class ConsoleCollector {
 public:
  // One final line: IPU (the system's), tile, thread (0: supervisor), text without newline.
  using Sink = std::function<void(uint32_t ipu, uint32_t tile, uint32_t thread, std::string_view text)>;

  // Lines go to `out` (not owned); nothing is printed if `out` is null.
  ConsoleCollector(std::FILE* out, ConsoleMode mode) : out_(out), mode_(mode) {}

  // Safe to call from several host threads.
  void add(uint64_t stamp, uint32_t ipu, uint32_t tile, uint32_t thread, std::string_view text);
  void flush();
  // Prints what is buffered, then sends later lines to `out` (null: none).
  void set_output(std::FILE* out);
  // Prints what is buffered, then sends later lines to `sink` rather than `out` (empty:
  // back to `out`).
  void set_sink(Sink sink);
  // Called (under the collector's lock) before lines are printed: a progress line on
  // the same terminal blanks itself first (PlatformOptions::progress_hide).
  void set_before_print(std::function<void()> hook) { before_print_ = std::move(hook); }
  uint64_t lines() const { return lines_; }

  // The text printed for one line, newline included.
  static std::string format(ConsoleMode mode, uint32_t ipu, uint32_t tile, uint32_t thread,
                            std::string_view text);

 private:
  struct Line {
    uint64_t stamp;
    uint32_t ipu, tile, thread;
    uint64_t seq;  // arrival order: a tile's lines arrive in emission order
    std::string text;
  };
  void print_buffered();  // with mutex_ held

  std::FILE* out_;
  Sink sink_;
  ConsoleMode mode_;
  std::function<void()> before_print_;
  std::mutex mutex_;
  std::vector<Line> buffer_;
  uint64_t latest_stamp_ = 0;
  uint64_t seq_ = 0;
  uint64_t lines_ = 0;
};

}  // namespace ipusim::platform
