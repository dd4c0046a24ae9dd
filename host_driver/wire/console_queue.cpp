// ConsoleQueue (console_queue.h).
#include "console_queue.h"

#include <utility>

namespace ipusim::wire {

void ConsoleQueue::push(host_if::ConsoleLine line) {
  std::function<void()> notify;
  {
    std::unique_lock lock(mutex_);
    // An empty queue takes any line, so one longer than the capacity still passes.
    room_.wait(lock, [&] { return !collecting_ || lines_.empty() || bytes_ + line.text.size() <= capacity_; });
    if (!collecting_) {
      ++dropped_;
      return;
    }
    if (lines_.empty()) notify = pending_;
    bytes_ += line.text.size();
    lines_.push_back(std::move(line));
  }
  if (notify) notify();
}

std::vector<host_if::ConsoleLine> ConsoleQueue::take(size_t max_bytes) {
  std::vector<host_if::ConsoleLine> out;
  {
    std::lock_guard lock(mutex_);
    size_t taken = 0;
    while (!lines_.empty() && (out.empty() || taken + lines_.front().text.size() <= max_bytes)) {
      taken += lines_.front().text.size();
      bytes_ -= lines_.front().text.size();
      out.push_back(std::move(lines_.front()));
      lines_.pop_front();
    }
  }
  if (!out.empty()) room_.notify_all();
  return out;
}

bool ConsoleQueue::empty() const {
  std::lock_guard lock(mutex_);
  return lines_.empty();
}

void ConsoleQueue::set_collecting(bool on) {
  {
    std::lock_guard lock(mutex_);
    collecting_ = on;
  }
  room_.notify_all();
}

uint64_t ConsoleQueue::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void ConsoleQueue::set_pending(std::function<void()> pending) {
  std::lock_guard lock(mutex_);
  pending_ = std::move(pending);
}

}  // namespace ipusim::wire
