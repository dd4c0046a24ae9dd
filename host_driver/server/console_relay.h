// The tiles' console of one `ipusim serve` session whose client asked for it (SET_CONSOLE
// DROP or CLIENT): while it lives, the system's console goes to a bounded queue
// (console_queue.h) instead of the server's stdout, and CONSOLE_READ takes it from there
// a reply at a time, a line longer than a wire text in pieces. Its end gives the console
// back to the server's own output. docs/host_driver.md, "Console".
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>

#include "console_queue.h"
#include "host_if/device_link.h"
#include "wire_protocol.h"

namespace ipusim::serve {

class ConsoleRelay {
 public:
  // Takes the console of `link` (board 0's: the console is the system's). `pending` is
  // called on a device thread when lines begin to wait (it must be short).
  ConsoleRelay(host_if::DeviceLink& link, std::function<void()> pending);
  // Stops collecting first (a device thread waiting for room holds the console that
  // set_console_handler needs), then gives the console back.
  ~ConsoleRelay();
  ConsoleRelay(const ConsoleRelay&) = delete;
  ConsoleRelay& operator=(const ConsoleRelay&) = delete;

  // CLIENT: collect (a full queue makes the simulation wait); DROP: drop and count.
  void set_collecting(bool on) { queue_->set_collecting(on); }
  // One CONSOLE_LINES reply: as many waiting records as a payload holds.
  wire::ConsoleLines read();

 private:
  static constexpr size_t kQueueBytes = size_t{256} << 10;  // console text waiting for the client
  static constexpr size_t kTakeBytes = 4096;                // taken from the queue at a time

  host_if::DeviceLink& link_;
  std::shared_ptr<wire::ConsoleQueue> queue_;  // shared with the device's handler
  std::deque<wire::ConsoleRecord> pieces_;     // taken from the queue, not sent yet
};

}  // namespace ipusim::serve
