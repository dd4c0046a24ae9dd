#include "platform/platform_console.h"

#include <cerrno>
#include <cstring>
#include <limits>

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
    print_through(Key{latest_stamp_, std::numeric_limits<uint32_t>::max(), std::numeric_limits<uint32_t>::max()});
    latest_stamp_ = stamp;
  }
  buffer_[Key{stamp, ipu, tile}].push_back(Line{thread, std::string(text)});
}

void ConsoleCollector::release(uint64_t stamp, uint32_t ipu, uint32_t tile) {
  std::lock_guard lock(mutex_);
  print_through(Key{stamp, ipu, tile});
}

void ConsoleCollector::release(uint64_t stamp) {
  release(stamp, std::numeric_limits<uint32_t>::max(), std::numeric_limits<uint32_t>::max());
}

void ConsoleCollector::flush() {
  std::lock_guard lock(mutex_);
  print_through(Key{std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint32_t>::max(),
                    std::numeric_limits<uint32_t>::max()});
}

void ConsoleCollector::print_through(const Key& through) {
  auto it = buffer_.begin();
  if (it == buffer_.end() || it->first > through) return;
  const bool to_file = out_ && !sink_;
  if (to_file && before_print_) before_print_();
  for (; it != buffer_.end() && it->first <= through; it = buffer_.erase(it))
    for (const Line& l : it->second) write(it->first, l);
  if (to_file && !write_error_ && std::fflush(out_) != 0) write_failed(errno);
}

void ConsoleCollector::write(const Key& key, const Line& l) {
  ++lines_;
  const auto [stamp, ipu, tile] = key;
  if (sink_) {
    sink_(ipu, tile, l.thread, l.text);
  } else if (out_ && !write_error_) {
    const std::string s = format(mode_, ipu, tile, l.thread, l.text);
    if (std::fwrite(s.data(), 1, s.size(), out_) != s.size()) write_failed(errno);
  }
}

void ConsoleCollector::write_failed(int err) {
  write_error_ = err != 0 ? std::strerror(err) : "write error";
  if (write_error_hook_) write_error_hook_(*write_error_);
}

std::optional<std::string> ConsoleCollector::write_error() const {
  std::lock_guard lock(mutex_);
  return write_error_;
}

void ConsoleCollector::set_output(std::FILE* out) {
  flush();
  std::lock_guard<std::mutex> lock(mutex_);
  out_ = out;
  write_error_.reset();
}

void ConsoleCollector::set_sink(Sink sink) {
  flush();
  std::lock_guard<std::mutex> lock(mutex_);
  sink_ = std::move(sink);
}

}  // namespace ipusim::platform
