#include "platform/platform_console.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace ipusim::platform {

std::string ConsoleCollector::format(ConsoleMode mode, uint32_t ipu, uint32_t tile,
                                     uint32_t thread, std::string_view text) {
  if (mode == ConsoleMode::Raw) return fmt::format("{}\n", text);
  if (thread == 0) return fmt::format("[ipu {} tile {}] {}\n", ipu, tile, text);
  return fmt::format("[ipu {} tile {} w {}] {}\n", ipu, tile, thread, text);
}

void ConsoleCollector::add(uint64_t stamp, uint32_t ipu, uint32_t tile, uint32_t thread,
                           std::string_view text) {
  std::lock_guard lock(mutex_);
  if (stamp > latest_stamp_) {
    print_buffered();
    latest_stamp_ = stamp;
  }
  buffer_.push_back(Line{stamp, ipu, tile, thread, seq_++, std::string(text)});
}

void ConsoleCollector::flush() {
  std::lock_guard lock(mutex_);
  print_buffered();
}

void ConsoleCollector::print_buffered() {
  std::sort(buffer_.begin(), buffer_.end(), [](const Line& a, const Line& b) {
    return std::tie(a.stamp, a.ipu, a.tile, a.seq) < std::tie(b.stamp, b.ipu, b.tile, b.seq);
  });
  if (out_ && !buffer_.empty() && before_print_) before_print_();
  for (const Line& l : buffer_) {
    if (sink_) {
      sink_(l.ipu, l.tile, l.thread, l.text);
    } else if (out_) {
      const std::string s = format(mode_, l.ipu, l.tile, l.thread, l.text);
      std::fwrite(s.data(), 1, s.size(), out_);
    }
    ++lines_;
  }
  buffer_.clear();
  if (out_ && !sink_) std::fflush(out_);
}

void ConsoleCollector::set_output(std::FILE* out) {
  flush();
  std::lock_guard<std::mutex> lock(mutex_);
  out_ = out;
}

void ConsoleCollector::set_sink(Sink sink) {
  flush();
  std::lock_guard<std::mutex> lock(mutex_);
  sink_ = std::move(sink);
}

}  // namespace ipusim::platform
