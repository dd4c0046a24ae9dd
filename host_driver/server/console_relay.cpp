// ConsoleRelay (console_relay.h).
#include "console_relay.h"

#include <algorithm>
#include <utility>

namespace ipusim::serve {

ConsoleRelay::ConsoleRelay(host_if::DeviceLink& link, std::function<void()> pending)
    : link_(link), queue_(std::make_shared<wire::ConsoleQueue>(kQueueBytes)) {
  queue_->set_pending(std::move(pending));
  link_.set_console_handler([q = queue_](const host_if::ConsoleLine& l) { q->push(l); });
}

ConsoleRelay::~ConsoleRelay() {
  queue_->set_collecting(false);
  link_.set_console_handler({});
}

wire::ConsoleLines ConsoleRelay::read() {
  wire::ConsoleLines reply;
  size_t bytes = wire::kConsoleLinesHeaderBytes;
  for (;;) {
    if (pieces_.empty()) {
      for (host_if::ConsoleLine& l : queue_->take(kTakeBytes)) {
        size_t at = 0;
        do {  // an empty line is one empty piece
          const size_t n = std::min(wire::kMaxText, l.text.size() - at);
          pieces_.push_back({l.ipu, l.tile, l.thread, at + n < l.text.size(), l.text.substr(at, n)});
          at += n;
        } while (at < l.text.size());
      }
      if (pieces_.empty()) break;
    }
    const size_t need = wire::kConsoleRecordHeaderBytes + pieces_.front().text.size();
    if (bytes + need > wire::kMaxPayload) break;
    bytes += need;
    reply.records.push_back(std::move(pieces_.front()));
    pieces_.pop_front();
  }
  reply.dropped = queue_->dropped();
  reply.more = !pieces_.empty() || !queue_->empty();
  return reply;
}

}  // namespace ipusim::serve
