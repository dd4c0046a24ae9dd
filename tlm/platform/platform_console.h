// Console lines of every tile, printed in a deterministic order.
//
// Order: by stamp, then IPU, then tile, then the order the tile emitted them. The
// platform stamps a line with the number of the tile engine's batch that ran the compute
// stretch emitting it (tile/tile_engine.h); the tiles released by one sync compute in one
// batch, so they print that superstep's lines in tile order, whatever host thread ran
// which tile.
//
// Streaming: a line is printed as soon as nothing can come before it any more: when a
// line with a later stamp arrives (batch numbers never go back), and when the engine says
// that every line of a batch up to a tile has arrived (release(), the engine's console
// ready: tile_engine.h, "Console"). flush() prints the rest (end of run). So the
// collector holds at most the lines of one batch that wait for an earlier tile: a tile's
// console buffer (tile::kConsoleBufferBytes) per tile.
//
// A sink instead of a FILE (a host driver's console, host_if/device_link.h) receives the
// same lines in the same order, on the thread that made them final (a tile engine's host
// thread or the model thread), with the collector's mutex held: a sink that waits (a full
// queue) holds the tiles' console, and with it the simulation, until it returns; the
// simulated cycles are the same either way.
//
// Write errors: the first failed write or flush of the FILE (a full disk, a closed pipe)
// is kept (write_error()), the error hook is called once, and later lines are counted
// but not written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
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
  // Every line of stamp `stamp` ordered up to (ipu, tile) has arrived: prints them and
  // everything before.
  void release(uint64_t stamp, uint32_t ipu, uint32_t tile);
  // Every line of stamp `stamp` has arrived.
  void release(uint64_t stamp);
  void flush();
  // Prints what is buffered, then sends later lines to `out` (null: none).
  void set_output(std::FILE* out);
  // Prints what is buffered, then sends later lines to `sink` rather than `out` (empty:
  // back to `out`).
  void set_sink(Sink sink);
  // Called (under the collector's lock) before lines are printed: a progress line on
  // the same terminal blanks itself first (PlatformOptions::progress_hide).
  void set_before_print(std::function<void()> hook) { before_print_ = std::move(hook); }
  // Called once, on the thread that printed, with the collector's lock held, when
  // writing `out` first fails (its argument: the OS error's text).
  void set_write_error_hook(std::function<void(const std::string&)> hook) { write_error_hook_ = std::move(hook); }
  // Lines the tiles printed (written, or lost after a write error).
  uint64_t lines() const { return lines_; }
  // A checkpoint's restore: the lines printed before it (docs/checkpoints.md).
  void restore_lines(uint64_t lines) { lines_ = lines; }
  // The first write error on `out` ("No space left on device"), if any.
  std::optional<std::string> write_error() const;

  // The text printed for one line, newline included.
  static std::string format(ConsoleMode mode, uint32_t ipu, uint32_t tile, uint32_t thread,
                            std::string_view text);

 private:
  using Key = std::tuple<uint64_t, uint32_t, uint32_t>;  // stamp, ipu, tile
  struct Line {
    uint32_t thread;
    std::string text;
  };
  // With mutex_ held: prints every buffered line whose key is <= `through`.
  void print_through(const Key& through);
  void write(const Key& key, const Line& line);
  void write_failed(int err);

  std::FILE* out_;
  Sink sink_;
  ConsoleMode mode_;
  std::function<void()> before_print_;
  std::function<void(const std::string&)> write_error_hook_;
  mutable std::mutex mutex_;
  // A tile's lines of one stamp arrive in emission order.
  std::map<Key, std::vector<Line>> buffer_;
  uint64_t latest_stamp_ = 0;
  uint64_t lines_ = 0;
  std::optional<std::string> write_error_;
};

}  // namespace ipusim::platform
