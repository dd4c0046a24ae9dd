// The tiles' console on its way to the program (docs/host_driver.md, "Console"). The
// device queues the lines (console_queue.h: in this process, or in `ipusim serve` for its
// client) while a run collects them; the run loop takes them and calls the program's
// handler on its own thread, so the handler sees them in the device's order (the order
// `ipusim run` prints them) and never on a device thread. A run's lines are all queued
// before its RUN_DONE, so the last take after it leaves none behind.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "device_impl.h"

namespace ipudrv {
namespace {

// Pages one round of the run loop takes before it looks at the registers again.
constexpr int kPagesPerRound = 64;

void print_to(std::FILE* out, const ConsoleLine& line) {
  const std::string s = format_console_line(line);
  std::fwrite(s.data(), 1, s.size(), out);
  std::fflush(out);
}

// IPUSIM_CONSOLE overrides the default: stdout (unset), stderr, none.
ConsoleHandler default_console() {
  const char* v = std::getenv("IPUSIM_CONSOLE");
  const std::string mode = v ? v : "stdout";
  if (mode == "stdout") return print_console_line;
  if (mode == "stderr") return [](const ConsoleLine& l) { print_to(stderr, l); };
  if (mode == "none") return {};
  throw UsageError("IPUSIM_CONSOLE: '" + mode + "' is not stdout, stderr or none");
}

// The console collected for one run: the device's route is kCollect while it lasts, and
// every line is delivered before the run returns, also when it throws (a device error's
// run printed up to its fault).
class Collection {
 public:
  explicit Collection(DeviceImpl& d) : d_(d), on_(bool(d.console)) {
    d_.console_threw = false;
    if (on_) d_.boards.front()->t->set_console(detail::ConsoleRoute::kCollect);
  }
  // Stops collecting (a run that goes on after a timeout drops its later lines rather than
  // wait for a reader that is gone), then delivers what waits.
  void finish() {
    if (!std::exchange(on_, false)) return;
    d_.boards.front()->t->set_console(detail::ConsoleRoute::kDrop);
    d_.deliver_console(true);
  }
  ~Collection() {
    try {
      finish();
    } catch (...) {
      // Unwinding already (the run's own error is the one to report): a handler's or the
      // link's failure here is lost with the remaining lines.
    }
  }

 private:
  DeviceImpl& d_;
  bool on_;
};

}  // namespace

std::string format_console_line(const ConsoleLine& l) {
  if (l.thread == 0) return "[ipu " + std::to_string(l.ipu) + " tile " + std::to_string(l.tile) + "] " + l.text + "\n";
  return "[ipu " + std::to_string(l.ipu) + " tile " + std::to_string(l.tile) + " w " + std::to_string(l.thread) + "] " +
         l.text + "\n";
}

void print_console_line(const ConsoleLine& line) { print_to(stdout, line); }

void DeviceImpl::open_console() {
  console = default_console();
  detail::Transport& t = *boards.front()->t;  // the system's console: board 0's transport
  t.set_console_pending([this] {
    console_pending = true;
    irq.fire();  // the run loop waits on it
  });
  t.set_console(detail::ConsoleRoute::kDrop);  // held by the driver: nothing printed elsewhere
}

void DeviceImpl::close_console() {
  try {
    boards.front()->t->set_console_pending({});
  } catch (...) {
    // A dead link calls nothing any more.
  }
}

void DeviceImpl::deliver_console(bool all) {
  if (!console_pending.exchange(false) && !all) return;
  detail::Transport& t = *boards.front()->t;
  for (int page = 0; all || page < kPagesPerRound; ++page) {
    detail::ConsoleTake take = t.take_console();
    console_dropped = take.dropped;
    // A handler that threw has left run() with its exception: the lines still waiting
    // are taken and dropped, never handed to it again.
    if (console && !console_threw) {
      try {
        for (const ConsoleLine& l : take.lines) console(l);
      } catch (...) {
        console_threw = true;
        throw;
      }
    }
    if (!take.more) return;
  }
  console_pending = true;  // more waits: the next round takes it
  irq.fire();
}

RunResult DeviceImpl::run_locked(const RunOptions& options, std::chrono::steady_clock::time_point deadline,
                                 bool abort_at_deadline) {
  Collection collection(*this);
  RunResult result = run_loop(options, deadline, abort_at_deadline);
  collection.finish();
  return result;
}

void Device::set_console(ConsoleHandler handler) {
  auto lock = impl_->lock_api("set_console");
  impl_->console = std::move(handler);
}

uint64_t Device::console_lines_dropped() { return impl_->console_dropped; }

}  // namespace ipudrv
