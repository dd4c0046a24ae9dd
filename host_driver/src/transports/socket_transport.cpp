// Socket transport (socket_transport.h). One connection carries every board of the
// system; the driver's per-board transports are views of it that add their board index to
// each request. Requests are serialised: one in flight at a time, its reply matched by
// seq; the reader thread hands replies to the waiting caller and runs the board's
// interrupt handler for INTERRUPT messages and the console's for CONSOLE_PENDING.
#include "socket_transport.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "fd_passing.h"
#include "ipudrv/errors.h"
#include "wire_protocol.h"

namespace ipudrv::detail {
namespace {

namespace wire = ipusim::wire;
using boost::asio::local::stream_protocol;

// A reply that takes longer than this means the server is stuck: register accesses
// are answered without waiting for the simulation.
constexpr auto kReplyTimeout = std::chrono::seconds(60);

class SocketConnection;

// Host memory of one board: a memfd MAPped to that board (its DMA reaches it).
class SocketMemory : public MappedHostMemory {
 public:
  SocketMemory(std::shared_ptr<SocketConnection> c, uint32_t board, uint64_t bus, size_t bytes);
  ~SocketMemory() override;

 private:
  std::shared_ptr<SocketConnection> c_;
  uint32_t board_;
};

// The one connection to `ipusim serve`: shared by the board views, said BYE to when the
// last of them (and of their host memory) goes.
class SocketConnection {
 public:
  SocketConnection(const std::string& path, SocketOptions options)
      : owner_(std::move(options.owner)), name_(options.name.empty() ? "unix:" + path : options.name), socket_(io_) {
    boost::system::error_code ec;
    socket_.connect(stream_protocol::endpoint(path), ec);
    if (ec) throw TransportError(name_ + ": cannot connect: " + ec.message());
    reader_ = std::thread([this] { read_loop(); });
  }

  ~SocketConnection() {
    try {
      if (!closed()) session_request(wire::Bye{});
    } catch (...) {
      // The server went away first: nothing to say goodbye to.
    }
    ::shutdown(socket_.native_handle(), SHUT_RDWR);
    reader_.join();
  }

  // Says HELLO; the server's answer sizes the table of interrupt handlers (one per board).
  SocketHello hello() {
    auto reply = session_request(wire::Hello{wire::kVersionMajor, wire::kVersionMinor, "ipudrv"});
    const auto* h = std::get_if<wire::HelloReply>(&reply);
    if (!h) throw ProtocolError(name_ + ": HELLO answered with " + wire::type_name(uint16_t(wire::type_of(reply))));
    {
      std::lock_guard lock(handler_mutex_);
      handlers_.resize(h->boards);
    }
    boards_ = h->boards;
    server_minor_ = h->minor;
    return {h->boards, h->name};
  }
  // "unix:PATH", and the board when the system has more than one.
  std::string describe(uint32_t board) const {
    return name_ + (boards_ > 1 ? " board " + std::to_string(board) : "");
  }

  // Sends `body` and waits for its reply; an ERROR reply is a ProtocolError (`board` names
  // the board in messages).
  wire::Body request(uint32_t board, wire::Body body, int fd = -1) { return request_as(describe(board), std::move(body), fd); }
  void expect_ok(uint32_t board, const wire::Body& reply, const char* what) {
    if (!std::holds_alternative<wire::Ok>(reply))
      throw ProtocolError(describe(board) + ": " + what + " answered with " + wire::type_name(uint16_t(wire::type_of(reply))));
  }
  void set_interrupt_handler(uint32_t board, std::function<void()> handler) {
    std::lock_guard lock(handler_mutex_);
    if (board < handlers_.size()) handlers_[board] = std::move(handler);
  }
  bool closed() {
    std::lock_guard lock(reply_mutex_);
    return closed_;
  }
  // A server older than the console messages refuses them as unknown types (and drops the
  // session): they are sent only to one whose HELLO_REPLY announced them.
  bool server_has_console() const { return server_minor_ >= wire::kConsoleMinor; }
  void set_console_pending(std::function<void()> pending) {
    std::lock_guard lock(handler_mutex_);
    console_pending_ = std::move(pending);
  }

 private:
  // HELLO and BYE: the session's, not a board's.
  wire::Body session_request(wire::Body body) { return request_as(name_, std::move(body), -1); }

  wire::Body request_as(const std::string& who, wire::Body body, int fd) {
    std::lock_guard req(request_mutex_);
    std::unique_lock lock(reply_mutex_);
    if (closed_) throw TransportError(who + ": connection closed" + (close_reason_.empty() ? "" : ": " + close_reason_));
    const uint32_t seq = ++seq_;
    reply_.reset();
    lock.unlock();
    const auto frame = wire::encode(wire::Message{seq, std::move(body)});
    if (!wire::send_all(socket_.native_handle(), frame, fd)) {
      // The server may have said why before it closed (e.g. busy with another client).
      const std::string error = std::strerror(errno);
      lock.lock();
      reply_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return closed_; });
      if (reply_)
        if (const auto* e = std::get_if<wire::Error>(&reply_->body))
          throw TransportError(who + ": the server refused the session: " + e->text);
      if (!close_reason_.empty()) throw TransportError(who + ": " + close_reason_);
      throw TransportError(who + ": send failed: " + error);
    }
    lock.lock();
    if (!reply_cv_.wait_for(lock, kReplyTimeout, [&] { return reply_.has_value() || closed_; }))
      throw TimeoutError(who + ": no reply within " + std::to_string(kReplyTimeout.count()) + " s");
    if (!reply_) throw TransportError(who + ": connection closed" + (close_reason_.empty() ? "" : ": " + close_reason_));
    wire::Message m = std::move(*reply_);
    reply_.reset();
    if (const auto* e = std::get_if<wire::Error>(&m.body))
      throw ProtocolError(who + ": the server refused the request: " + e->text);
    if (m.seq != seq) throw ProtocolError(who + ": reply seq " + std::to_string(m.seq) + ", expected " + std::to_string(seq));
    return std::move(m.body);
  }

  void read_loop() {
    std::vector<uint8_t> buffer;
    std::vector<uint8_t> chunk(4096);
    std::vector<int> fds;
    std::string reason;
    for (;;) {
      const long n = wire::recv_some(socket_.native_handle(), chunk, fds);
      for (int fd : fds) ::close(fd);  // the server never sends descriptors
      fds.clear();
      if (n <= 0) {
        reason = n == 0 ? "the server closed it" : std::string("receive failed: ") + std::strerror(errno);
        break;
      }
      buffer.insert(buffer.end(), chunk.begin(), chunk.begin() + n);
      bool bad = false;
      for (;;) {
        auto d = wire::decode(buffer);
        if (d.status == wire::Decoded::Status::kNeedMore) break;
        if (d.status == wire::Decoded::Status::kInvalid) {
          reason = "invalid message from the server: " + d.error;
          bad = true;
          break;
        }
        buffer.erase(buffer.begin(), buffer.begin() + long(d.consumed));
        deliver(std::move(d.message));
      }
      if (bad) break;
    }
    std::lock_guard lock(reply_mutex_);
    closed_ = true;
    if (close_reason_.empty()) close_reason_ = reason;  // a refusal said first is the reason
    reply_cv_.notify_all();
  }

  void deliver(wire::Message m) {
    if (const auto* irq = std::get_if<wire::Interrupt>(&m.body)) {
      // A board the server did not announce has no handler: such an INTERRUPT is dropped
      // (the run loop's safety poll does not depend on it).
      std::lock_guard lock(handler_mutex_);
      if (irq->board < handlers_.size() && handlers_[irq->board]) handlers_[irq->board]();
      return;
    }
    if (std::holds_alternative<wire::ConsolePending>(m.body)) {
      std::lock_guard lock(handler_mutex_);
      if (console_pending_) console_pending_();
      return;
    }
    std::lock_guard lock(reply_mutex_);
    if (const auto* e = std::get_if<wire::Error>(&m.body); e && m.seq == 0) {
      // Unsolicited (a busy server refusing the session as it accepts): it may come before
      // the HELLO it would answer, so it is kept as the reason the connection closes, not
      // as a reply the next request would discard.
      close_reason_ = "the server refused the session: " + e->text;
      reply_cv_.notify_all();
      return;
    }
    reply_ = std::move(m);
    reply_cv_.notify_all();
  }

  std::shared_ptr<void> owner_;  // first: released after everything below is gone
  std::string name_;
  boost::asio::io_context io_;
  stream_protocol::socket socket_;
  std::thread reader_;
  std::mutex request_mutex_;  // one request in flight
  std::mutex reply_mutex_;
  std::condition_variable reply_cv_;
  std::optional<wire::Message> reply_;
  bool closed_ = false;
  std::string close_reason_;
  uint32_t seq_ = 0;
  uint32_t boards_ = 1;  // set by hello(), before any view exists
  uint16_t server_minor_ = 0;  // likewise
  std::mutex handler_mutex_;
  std::vector<std::function<void()>> handlers_;  // by board
  std::function<void()> console_pending_;
};

// One board of the system behind the connection: the driver's transport of that board.
class SocketBoard : public Transport {
 public:
  SocketBoard(std::shared_ptr<SocketConnection> c, uint32_t board) : c_(std::move(c)), board_(board) {}
  ~SocketBoard() override { c_->set_interrupt_handler(board_, {}); }

  uint32_t read32(uint32_t offset) override {
    auto reply = c_->request(board_, wire::Read32{offset, board_});
    if (const auto* r = std::get_if<wire::Read32Reply>(&reply)) return r->value;
    throw ProtocolError(describe() + ": READ32 answered with " + wire::type_name(uint16_t(wire::type_of(reply))));
  }
  void write32(uint32_t offset, uint32_t value) override {
    c_->expect_ok(board_, c_->request(board_, wire::Write32{offset, value, board_}), "WRITE32");
  }
  std::unique_ptr<HostMemory> alloc_host_memory(size_t bytes) override {
    const size_t size = round_to_pages(bytes);
    return std::make_unique<SocketMemory>(c_, board_, allocate_bus_range(size), size);
  }
  void set_interrupt_handler(std::function<void()> handler) override {
    c_->set_interrupt_handler(board_, std::move(handler));
  }
  std::string describe() const override { return c_->describe(board_); }
  void set_trace_file(const std::string& path) override {
    if (path.size() > wire::kMaxText) throw UsageError("set_trace: a path of at most " + std::to_string(wire::kMaxText) + " bytes");
    try {
      c_->expect_ok(board_, c_->request(board_, wire::SetTrace{path, board_}), "SET_TRACE");
    } catch (const ProtocolError& e) {
      throw UsageError(std::string("set_trace: ") + e.what());  // the server could not open it
    }
  }
  std::vector<SuperstepStats> supersteps(uint32_t ipu) override {
    std::vector<SuperstepStats> out;
    for (;;) {  // a page per request: a reply holds at most kMaxSuperstepsPerReply
      auto reply = c_->request(board_, wire::Supersteps{ipu, uint32_t(out.size()), board_});
      const auto* r = std::get_if<wire::SuperstepsReply>(&reply);
      if (!r) throw ProtocolError(describe() + ": SUPERSTEPS answered with " + wire::type_name(uint16_t(wire::type_of(reply))));
      out.insert(out.end(), r->records.begin(), r->records.end());
      if (out.size() >= r->total || r->records.empty()) return out;
    }
  }
  void set_link_faults(const std::string& items) override {
    if (items.size() > wire::kMaxText)
      throw UsageError("set_link_faults: items of at most " + std::to_string(wire::kMaxText) + " bytes over " + describe());
    try {
      c_->expect_ok(board_, c_->request(board_, wire::SetLinkFaults{items, board_}), "SET_LINK_FAULTS");
    } catch (const ProtocolError& e) {
      throw UsageError(std::string("set_link_faults: ") + e.what());  // the device named the bad item
    }
  }
  std::vector<LinkStats> link_stats() override {
    std::vector<LinkStats> out;
    for (;;) {  // a page per request, as supersteps()
      auto reply = c_->request(board_, wire::LinkStatsRequest{uint32_t(out.size()), board_});
      const auto* r = std::get_if<wire::LinkStatsReply>(&reply);
      if (!r) throw ProtocolError(describe() + ": LINK_STATS answered with " + wire::type_name(uint16_t(wire::type_of(reply))));
      out.insert(out.end(), r->records.begin(), r->records.end());
      if (out.size() >= r->total || r->records.empty()) return out;
    }
  }
  void set_console(ConsoleRoute route) override {
    if (!c_->server_has_console()) return;  // it prints them itself (docs/host_driver.md)
    const wire::ConsoleRoute r = route == ConsoleRoute::kCollect ? wire::ConsoleRoute::kClient
                                 : route == ConsoleRoute::kDrop  ? wire::ConsoleRoute::kDrop
                                                                 : wire::ConsoleRoute::kServer;
    c_->expect_ok(board_, c_->request(board_, wire::SetConsole{r, board_}), "SET_CONSOLE");
  }
  void set_console_pending(std::function<void()> pending) override { c_->set_console_pending(std::move(pending)); }
  // One CONSOLE_READ: its records, a long line's pieces joined (a line cut between two
  // replies is finished by the next one).
  ConsoleTake take_console() override {
    ConsoleTake t;
    if (!c_->server_has_console()) return t;
    auto reply = c_->request(board_, wire::ConsoleRead{board_});
    auto* r = std::get_if<wire::ConsoleLines>(&reply);
    if (!r) throw ProtocolError(describe() + ": CONSOLE_READ answered with " + wire::type_name(uint16_t(wire::type_of(reply))));
    for (wire::ConsoleRecord& c : r->records) {
      if (!partial_) partial_ = ConsoleLine{c.ipu, c.tile, c.thread, {}};
      partial_->text += c.text;
      if (!c.continued) t.lines.push_back(std::move(*std::exchange(partial_, std::nullopt)));
    }
    t.dropped = r->dropped;
    t.more = r->more;
    return t;
  }

 private:
  std::shared_ptr<SocketConnection> c_;
  uint32_t board_;
  std::optional<ConsoleLine> partial_;  // a line whose last piece has not come yet
};

SocketMemory::SocketMemory(std::shared_ptr<SocketConnection> c, uint32_t board, uint64_t bus, size_t bytes)
    : MappedHostMemory(bus, bytes), c_(std::move(c)), board_(board) {
  const int fd = ::memfd_create("ipudrv-host-memory", MFD_CLOEXEC);
  if (fd < 0) throw TransportError(std::string("host memory: memfd_create failed: ") + std::strerror(errno));
  if (::ftruncate(fd, off_t(size_)) != 0) {
    ::close(fd);
    throw TransportError("host memory: cannot size a memfd to " + std::to_string(size_) + " bytes");
  }
  void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    ::close(fd);
    throw TransportError("host memory: mmap of " + std::to_string(size_) + " bytes failed");
  }
  data_ = static_cast<std::byte*>(p);
  try {
    c_->expect_ok(board_, c_->request(board_, wire::Map{bus_, size_, 0, board_}, fd), "MAP");
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);  // the mappings on both sides keep the memory
}

SocketMemory::~SocketMemory() {
  try {
    if (!c_->closed()) c_->expect_ok(board_, c_->request(board_, wire::Unmap{bus_, board_}), "UNMAP");
  } catch (...) {
    // A dead connection: the server drops every mapping of the session itself.
  }
}

}  // namespace

std::vector<std::unique_ptr<Transport>> make_socket_transports(const std::string& socket_path, SocketHello* hello,
                                                                SocketOptions options) {
  auto c = std::make_shared<SocketConnection>(socket_path, std::move(options));
  const SocketHello h = c->hello();
  if (hello) *hello = h;
  std::vector<std::unique_ptr<Transport>> boards;
  for (uint32_t b = 0; b < h.boards; ++b) boards.push_back(std::make_unique<SocketBoard>(c, b));
  return boards;
}

}  // namespace ipudrv::detail
