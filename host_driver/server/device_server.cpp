// device_server.h. Everything runs on the thread that calls run(), in a Boost.Asio
// io_context: accepting, reading (readiness wait + recvmsg, to receive the memfds of
// MAP), answering, and INTERRUPT and CONSOLE_PENDING messages posted by the boards'
// interrupt handlers and the console. The console a client asks for (SET_CONSOLE) waits
// for its CONSOLE_READs in a ConsoleRelay (console_relay.h): the simulation waits on a
// full one, so a tile printing in a loop cannot grow the server.
#include "device_server.h"

#include <fcntl.h>
#include <ipu/hostif_regs.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <utility>

#include "console_relay.h"
#include "fd_passing.h"
#include "socket_path.h"
#include "wire_protocol.h"

namespace ipusim::serve {

namespace asio = boost::asio;
using asio::local::stream_protocol;

namespace {
constexpr size_t kMaxPendingFds = 4;  // a client sends one fd per MAP, with the MAP
constexpr size_t kMaxMappings = 1024;
}  // namespace

struct DeviceServer::Impl {
  struct Mapping {
    void* data;
    size_t bytes;
  };
  struct Session {
    explicit Session(stream_protocol::socket s, uint64_t id, asio::io_context& io)
        : socket(std::move(s)), id(id), hello_deadline(io), idle_check(io) {}
    stream_protocol::socket socket;
    uint64_t id;
    bool hello = false;
    asio::steady_timer hello_deadline;  // ServerOptions::hello_timeout
    asio::steady_timer idle_check;      // ServerOptions::idle_timeout
    // Since when the client has neither sent anything nor had a run in progress.
    std::chrono::steady_clock::time_point idle_since = std::chrono::steady_clock::now();
    std::vector<uint8_t> input;
    // Frames the socket has not taken yet (a client slow to read its replies). While any
    // wait, no more requests are read: the client cannot make the server buffer without
    // bound, and the server's thread never blocks on a client, so a signal always ends it.
    std::vector<uint8_t> output;
    uint64_t bytes_queued = 0, bytes_sent = 0;  // over the session: what is unsent lies between
    // Per board, where (in bytes_queued) its last INTERRUPT ends: while it is unsent no
    // other is queued (the client looks at IRQ_STATUS, which says what every one would),
    // so a client that does not read cannot grow the output for a whole run.
    std::map<uint32_t, uint64_t> interrupt_end;
    bool write_waiting = false;  // an async wait for room in the socket is pending
    bool read_waiting = false;   // an async wait for input is pending
    std::deque<int> fds;
    std::map<std::pair<uint32_t, uint64_t>, Mapping> mappings;  // by (board, bus address)
    bool set_link_faults = false;  // the session changed the links' faults: restored at its end
    // The console, while the client routes it to itself or drops it (null: the server's
    // own output).
    std::unique_ptr<ConsoleRelay> console;
  };
  // One per board, shared with its interrupt handler, which runs on a device thread.
  struct IrqState {
    std::atomic<uint64_t> count{0};
    std::atomic<bool> posted{false};
  };

  Impl(std::vector<host_if::DeviceLink*> b, std::string p, ServerOptions o)
      : boards(std::move(b)), path(std::move(p)), options(std::move(o)), acceptor(io), signals(io), parent(io) {
    if (boards.empty() || boards.size() > wire::kMaxBoards)
      throw std::invalid_argument("DeviceServer: " + std::to_string(boards.size()) + " boards, not 1 .. " +
                                  std::to_string(wire::kMaxBoards));
    for (size_t i = 0; i < boards.size(); ++i) irq.push_back(std::make_shared<IrqState>());
    const int fd = listen_on(path);
    acceptor.assign(stream_protocol(), fd);
  }

  std::vector<host_if::DeviceLink*> boards;
  std::string path;
  ServerOptions options;
  asio::io_context io;
  stream_protocol::acceptor acceptor;
  asio::signal_set signals;
  asio::posix::stream_descriptor parent;  // ServerOptions::parent_fd (a dup of it)
  std::unique_ptr<Session> session;
  uint64_t sessions = 0;
  std::vector<std::shared_ptr<IrqState>> irq;  // by board
  bool stopping = false;

  void log(const std::string& line) {
    if (options.log) *options.log << "ipusim serve: " << line << std::endl;
  }

  void start() {
    if (options.handle_signals) {
      signals.add(SIGINT);
      signals.add(SIGTERM);
      signals.async_wait([this](const boost::system::error_code& ec, int sig) {
        if (!ec) {
          log("signal " + std::to_string(sig) + ", shutting down");
          shutdown();
        }
      });
    }
    if (options.parent_fd >= 0) {
      const int fd = ::fcntl(options.parent_fd, F_DUPFD_CLOEXEC, 0);
      if (fd < 0) {  // nothing to watch (no standard input): as at its end
        log(std::string("the parent's descriptor: ") + std::strerror(errno) + ", shutting down");
        shutdown();
        return;
      }
      parent.assign(fd);
      watch_parent();
    }
    accept();
  }

  // Stops the server when the parent's descriptor reaches end of file or fails.
  void watch_parent() {
    parent.async_wait(asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
      if (ec == asio::error::operation_aborted || stopping) return;
      char buf[256];
      const ssize_t n = ec ? -1 : ::read(parent.native_handle(), buf, sizeof buf);
      if (n > 0 || (n < 0 && !ec && (errno == EINTR || errno == EAGAIN))) {
        watch_parent();
        return;
      }
      log("the parent process is gone, shutting down");
      shutdown();
    });
  }

  void accept() {
    acceptor.async_accept([this](const boost::system::error_code& ec, stream_protocol::socket s) {
      if (ec) {
        if (ec != asio::error::operation_aborted) log("accept failed: " + ec.message());
        if (!stopping && ec != asio::error::operation_aborted) accept();
        return;
      }
      if (session) {
        // One client at a time: tell the newcomer why, then drop it.
        const auto frame = wire::encode({0, wire::Error{wire::ErrorCode::kBusy, "another client is being served"}});
        wire::send_all(s.native_handle(), frame);
        boost::system::error_code ignored;
        s.close(ignored);
        log("refused a second client");
      } else {
        begin(std::move(s));
      }
      accept();
    });
  }

  void begin(stream_protocol::socket s) {
    s.non_blocking(true);
    session = std::make_unique<Session>(std::move(s), ++sessions, io);
    log("client " + std::to_string(session->id) + " connected");
    // The one client served holds the device: one that never says HELLO must not hold it
    // for ever while everyone else gets BUSY.
    const uint64_t id = session->id;
    session->hello_deadline.expires_after(options.hello_timeout);
    session->hello_deadline.async_wait([this, id](const boost::system::error_code& ec) {
      if (ec || !session || session->id != id || session->hello) return;
      refuse(0,
             "no HELLO within " + std::to_string(options.hello_timeout.count()) + " ms of connecting",
             wire::ErrorCode::kNotHello);
    });
    wait_read();
  }

  // Looks at the session every quarter of the idle timeout (at most a second apart): a
  // run in progress keeps it busy; a client that let the device sit idle
  // options.idle_timeout is told so and dropped. A zero timeout: never.
  void check_idle() {
    if (options.idle_timeout.count() <= 0) return;
    const uint64_t id = session->id;
    const auto period = std::clamp<std::chrono::milliseconds>(options.idle_timeout / 4, std::chrono::milliseconds(1),
                                                              std::chrono::milliseconds(1000));
    session->idle_check.expires_after(period);
    session->idle_check.async_wait([this, id](const boost::system::error_code& ec) {
      if (ec || !session || session->id != id) return;
      const auto now = std::chrono::steady_clock::now();
      if (run_in_progress()) session->idle_since = now;
      if (now - session->idle_since >= options.idle_timeout) {
        refuse(0,
               "no request for " + std::to_string(options.idle_timeout.count()) +
                   " ms and no run in progress: the device is released for other clients",
               wire::ErrorCode::kIdle);
        return;
      }
      check_idle();
    });
  }

  // A run started and not ended: running, paused between RUN_SUPERSTEPS batches or waiting
  // on a host stream. The last two wait on the client's own work (its next run() call, its
  // stream callback), which may take longer than the idle timeout.
  bool run_in_progress() const {
    for (host_if::DeviceLink* link : boards) {
      const uint32_t state = (link->read32(IPU_REG_STATUS) & IPU_STATUS_STATE_MASK) >> IPU_STATUS_STATE_SHIFT;
      if (state == IPU_STATE_RUNNING || state == IPU_STATE_PAUSED || state == IPU_STATE_STREAM_WAIT) return true;
    }
    return false;
  }

  void wait_read() {
    if (session->read_waiting) return;
    session->read_waiting = true;
    const uint64_t id = session->id;
    session->socket.async_wait(stream_protocol::socket::wait_read, [this, id](const boost::system::error_code& ec) {
      if (!session || session->id != id) return;
      session->read_waiting = false;
      if (ec) {
        end_session(ec == asio::error::operation_aborted ? "server stopping" : "socket error: " + ec.message());
        return;
      }
      // With replies still waiting for the client, reading resumes when they are taken (flush).
      if (read_available() && session->output.empty()) wait_read();
    });
  }

  // Returns false when the session ended. One receive per wake-up: back to the
  // io_context after it, so INTERRUPT messages the device's handler posted go out
  // between requests even while a client sends them back to back.
  bool read_available() {
    std::vector<uint8_t> chunk(8192);
    {
      std::vector<int> fds;
      const long n = wire::recv_some(session->socket.native_handle(), chunk, fds);
      for (int fd : fds) session->fds.push_back(fd);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      if (n < 0) return end_session(std::string("receive failed: ") + std::strerror(errno)), false;
      if (n == 0) return end_session("client disconnected"), false;
      session->idle_since = std::chrono::steady_clock::now();
      if (session->fds.size() > kMaxPendingFds) return refuse(0, "more file descriptors than MAP messages"), false;
      session->input.insert(session->input.end(), chunk.begin(), chunk.begin() + n);
      if (!process_input()) return false;
    }
    return true;
  }

  bool process_input() {
    size_t at = 0;
    bool alive = true;
    while (alive) {
      auto d = wire::decode(std::span(session->input).subspan(at));
      if (d.status == wire::Decoded::Status::kNeedMore) break;
      if (d.status == wire::Decoded::Status::kInvalid) {
        refuse(d.seq, d.error, d.code);  // kVersion for a peer of another major
        return false;
      }
      at += d.consumed;
      alive = handle(d.message);
    }
    if (alive) session->input.erase(session->input.begin(), session->input.begin() + long(at));
    return alive;
  }

  void send(uint32_t seq, wire::Body body) {
    const auto frame = wire::encode({seq, std::move(body)});
    session->output.insert(session->output.end(), frame.begin(), frame.end());
    session->bytes_queued += frame.size();
    flush();
  }

  // Writes what the socket takes now, without blocking; the rest waits for room.
  void flush() {
    std::vector<uint8_t>& out = session->output;
    size_t sent = 0;
    while (sent < out.size()) {
      const ssize_t n = ::send(session->socket.native_handle(), out.data() + sent, out.size() - sent,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0) {
        // The client is gone: reading (resumed below) sees it and ends the session.
        log(std::string("send failed: ") + std::strerror(errno));
        session->bytes_sent += out.size();  // dropped: nothing is left unsent
        out.clear();
        sent = 0;
        break;
      }
      sent += size_t(n);
    }
    session->bytes_sent += sent;
    out.erase(out.begin(), out.begin() + long(sent));
    if (out.empty()) return;
    if (session->write_waiting) return;
    session->write_waiting = true;
    const uint64_t id = session->id;
    session->socket.async_wait(stream_protocol::socket::wait_write, [this, id](const boost::system::error_code& ec) {
      if (!session || session->id != id) return;
      session->write_waiting = false;
      if (ec == asio::error::operation_aborted) return;  // the session or the server is ending
      // Reading may be paused while replies wait: the read side would never see this.
      if (ec) return end_session("socket error: " + ec.message());
      flush();
      if (session && session->id == id && session->output.empty()) wait_read();
    });
  }

  // Answers with ERROR and drops the client: after a bad frame the stream cannot be trusted.
  void refuse(uint32_t seq, const std::string& why, wire::ErrorCode code = wire::ErrorCode::kMalformed) {
    send(seq, wire::Error{code, why});
    end_session("refused: " + why);
  }

  // Returns false when the session ended. One handler per request (on() below), called by
  // the dispatch generated from hw/host_if/messages.yaml: a request declared there without
  // its handler does not compile; a message the server sends arriving from the client is
  // refused (not_a_request).
  bool handle(const wire::Message& m) {
    const uint32_t seq = m.seq;
    if (!session->hello && !std::holds_alternative<wire::Hello>(m.body)) {
      refuse(seq, "the first message must be HELLO", wire::ErrorCode::kNotHello);
      return false;
    }
    return wire::dispatch(*this, seq, m.body);
  }

  bool not_a_request(uint32_t seq, wire::Type type) {
    refuse(seq, std::string(wire::type_name(uint16_t(type))) + " is not a request");
    return false;
  }

  bool on(uint32_t seq, const wire::Hello& h) {
    if (session->hello) {
      refuse(seq, "HELLO twice");
      return false;
    }
    session->hello = true;
    session->hello_deadline.cancel();
    for (uint32_t b = 0; b < boards.size(); ++b) install_interrupt_handler(b);
    check_idle();
    log("client " + std::to_string(session->id) + " is '" + h.name + "', protocol " + std::to_string(h.major) + "." +
        std::to_string(h.minor));
    send(seq, wire::HelloReply{wire::kVersionMajor, wire::kVersionMinor, uint32_t(boards.size()), options.name});
    return true;
  }

  bool on(uint32_t seq, const wire::Read32& r) {
    if (auto* link = board_link(seq, r.board, "READ32")) send(seq, wire::Read32Reply{link->read32(r.offset)});
    return true;
  }

  bool on(uint32_t seq, const wire::Write32& w) {
    if (auto* link = board_link(seq, w.board, "WRITE32")) {
      link->write32(w.offset, w.value);
      send(seq, wire::Ok{});
    }
    return true;
  }

  bool on(uint32_t seq, const wire::Map& mp) { return map(seq, mp); }

  bool on(uint32_t seq, const wire::Unmap& u) {
    auto* link = board_link(seq, u.board, "UNMAP");
    if (!link) return true;
    auto it = session->mappings.find({u.board, u.bus_addr});
    if (it == session->mappings.end()) {
      send(seq, wire::Error{wire::ErrorCode::kUnmapFailed, "UNMAP: no mapping of board " + std::to_string(u.board) +
                                                               " at bus address " + std::to_string(u.bus_addr)});
      return true;
    }
    link->unmap_host_memory(u.bus_addr);
    ::munmap(it->second.data, it->second.bytes);
    session->mappings.erase(it);
    send(seq, wire::Ok{});
    return true;
  }

  bool on(uint32_t seq, const wire::SetTrace& tr) {
    auto* link = board_link(seq, tr.board, "SET_TRACE");
    if (!link) return true;
    try {
      link->set_trace_file(tr.path);
    } catch (const std::exception& e) {
      send(seq, wire::Error{wire::ErrorCode::kDevice, e.what()});
      return true;  // a refused path leaves the session intact
    }
    send(seq, wire::Ok{});
    return true;
  }

  bool on(uint32_t seq, const wire::Supersteps& q) { return supersteps(seq, q); }

  bool on(uint32_t seq, const wire::SetLinkFaults& lf) {
    auto* link = board_link(seq, lf.board, "SET_LINK_FAULTS");
    if (!link) return true;
    try {
      link->set_link_faults(lf.items);
    } catch (const std::exception& e) {
      send(seq, wire::Error{wire::ErrorCode::kDevice, e.what()});  // names the bad item; the session goes on
      return true;
    }
    session->set_link_faults = true;
    send(seq, wire::Ok{});
    return true;
  }

  bool on(uint32_t seq, const wire::LinkStatsRequest& q) { return link_stats(seq, q); }

  bool on(uint32_t seq, const wire::SetConsole& sc) {
    if (board_link(seq, sc.board, "SET_CONSOLE")) {
      route_console(sc.route);
      send(seq, wire::Ok{});
    }
    return true;
  }

  bool on(uint32_t seq, const wire::ConsoleRead& cr) {
    if (board_link(seq, cr.board, "CONSOLE_READ"))  // nothing waits when the server prints it
      send(seq, session->console ? session->console->read() : wire::ConsoleLines{});
    return true;
  }

  bool on(uint32_t seq, const wire::Bye&) {
    send(seq, wire::Ok{});
    end_session("client said BYE");
    return false;
  }

  // Board `board`'s link; nullptr, answered with ERROR NO_BOARD naming the request and the
  // index, for a board the system does not have. The stream is intact: the session goes on.
  host_if::DeviceLink* board_link(uint32_t seq, uint32_t board, const char* request) {
    if (board < boards.size()) return boards[board];
    send(seq, wire::Error{wire::ErrorCode::kNoBoard, std::string(request) + ": board " + std::to_string(board) +
                                                         ", the system has " + std::to_string(boards.size()) +
                                                         " board(s)"});
    return nullptr;
  }

  // A page of board q.board's IPU q.ipu's per-superstep totals: from q.first, as many as fit a reply.
  bool supersteps(uint32_t seq, const wire::Supersteps& q) {
    auto* link = board_link(seq, q.board, "SUPERSTEPS");
    if (!link) return true;
    std::vector<ipusim::records::SuperstepStats> all;
    try {
      all = link->supersteps(q.ipu);
    } catch (const std::exception& e) {
      send(seq, wire::Error{wire::ErrorCode::kDevice, e.what()});
      return true;
    }
    wire::SuperstepsReply reply;
    reply.total = uint32_t(all.size());
    const size_t first = std::min<size_t>(q.first, all.size());
    const size_t end = std::min(all.size(), first + wire::kMaxSuperstepsPerReply);
    reply.records.assign(all.begin() + long(first), all.begin() + long(end));
    send(seq, reply);
    return true;
  }

  // A page of the system's IPU-Link stats (through board q.board's link): from q.first,
  // as many as fit a reply.
  bool link_stats(uint32_t seq, const wire::LinkStatsRequest& q) {
    auto* link = board_link(seq, q.board, "LINK_STATS");
    if (!link) return true;
    std::vector<ipusim::records::LinkStats> all;
    try {
      all = link->link_stats();
    } catch (const std::exception& e) {
      send(seq, wire::Error{wire::ErrorCode::kDevice, e.what()});
      return true;
    }
    wire::LinkStatsReply reply;
    reply.total = uint32_t(all.size());
    const size_t first = std::min<size_t>(q.first, all.size());
    const size_t end = std::min(all.size(), first + wire::kMaxLinkStatsPerReply);
    reply.records.assign(all.begin() + long(first), all.begin() + long(end));
    send(seq, reply);
    return true;
  }

  bool map(uint32_t seq, const wire::Map& mp) {
    if (session->fds.empty()) {
      refuse(seq, "MAP without a file descriptor", wire::ErrorCode::kMapFailed);
      return false;
    }
    const int fd = session->fds.front();
    session->fds.pop_front();
    host_if::DeviceLink* link = board_link(seq, mp.board, "MAP");
    if (!link) {
      ::close(fd);  // the descriptor came with this MAP: it goes with it
      return true;
    }
    auto fail = [&](const std::string& why) {
      ::close(fd);
      send(seq, wire::Error{wire::ErrorCode::kMapFailed, "MAP of board " + std::to_string(mp.board) + " at bus address " +
                                                             std::to_string(mp.bus_addr) + ": " + why});
      return true;  // the stream is intact: the client may go on
    };
    if (session->mappings.size() >= kMaxMappings) return fail("too many mappings");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return fail("the descriptor is not a memory file");
    if (uint64_t(st.st_size) < mp.fd_offset || uint64_t(st.st_size) - mp.fd_offset < mp.bytes)
      return fail("the file holds " + std::to_string(st.st_size) + " bytes, fewer than offset + bytes");
    void* p = ::mmap(nullptr, mp.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(mp.fd_offset));
    if (p == MAP_FAILED) return fail(std::string("mmap failed: ") + std::strerror(errno));
    try {
      link->map_host_memory(mp.bus_addr, {static_cast<std::byte*>(p), mp.bytes});
    } catch (const std::exception& e) {
      ::munmap(p, mp.bytes);
      return fail(std::string("the device refused it: ") + e.what());
    }
    ::close(fd);
    session->mappings[{mp.board, mp.bus_addr}] = {p, mp.bytes};
    send(seq, wire::Ok{});
    return true;
  }

  // The console is the system's: the relay takes board 0's, whichever board the request
  // named.
  void route_console(wire::ConsoleRoute route) {
    if (route == wire::ConsoleRoute::kServer) {
      session->console.reset();
      return;
    }
    if (!session->console) {
      auto posted = std::make_shared<std::atomic<bool>>(false);
      const uint64_t id = session->id;
      session->console = std::make_unique<ConsoleRelay>(*boards.front(), [this, posted, id] {
        if (posted->exchange(true)) return;  // one CONSOLE_PENDING in flight says it
        asio::post(io, [this, posted, id] {
          *posted = false;
          if (session && session->id == id) send(0, wire::ConsolePending{0});
        });
      });
    }
    session->console->set_collecting(route == wire::ConsoleRoute::kClient);
  }

  void install_interrupt_handler(uint32_t board) {
    auto state = irq[board];
    auto* ctx = &io;
    const uint64_t id = session->id;
    boards[board]->set_interrupt_handler([this, state, ctx, id, board] {
      state->count.fetch_add(1);
      // Coalesce per board: one INTERRUPT message in flight tells the client to look at
      // that board's IRQ_STATUS.
      if (state->posted.exchange(true)) return;
      asio::post(*ctx, [this, state, id, board] {
        state->posted = false;
        if (!session || session->id != id) return;
        const auto unsent = session->interrupt_end.find(board);
        if (unsent != session->interrupt_end.end() && unsent->second > session->bytes_sent) return;
        send(0, wire::Interrupt{state->count.load(), board});
        if (session) session->interrupt_end[board] = session->bytes_queued;
      });
    });
  }

  void end_session(const std::string& why) {
    if (!session) return;
    // Stop the device first so that no DMA touches the memory about to be unmapped.
    for (host_if::DeviceLink* link : boards) {
      link->set_interrupt_handler({});
      link->set_trace_file("");  // the next client traces only if it asks
    }
    session->console.reset();  // the server prints the next client's console unless it asks
    for (host_if::DeviceLink* link : boards) link->write32(IPU_REG_CTRL, IPU_CTRL_RESET_MASK);
    if (session->set_link_faults) {
      // The next client starts with the config's faults, as a new in-process session does.
      try {
        boards.front()->set_link_faults(options.initial_link_faults);
      } catch (const std::exception& e) {
        log(std::string("restoring the link faults '") + options.initial_link_faults + "': " + e.what());
      }
    }
    for (auto& [key, m] : session->mappings) {
      try {
        boards[key.first]->unmap_host_memory(key.second);
      } catch (const std::exception& e) {
        log(std::string("unmap on disconnect: ") + e.what());
      }
      ::munmap(m.data, m.bytes);
    }
    for (int fd : session->fds) ::close(fd);
    boost::system::error_code ignored;
    session->socket.close(ignored);
    log("client " + std::to_string(session->id) + " gone (" + why + "); every board reset");
    session.reset();
  }

  void shutdown() {
    stopping = true;
    boost::system::error_code ignored;
    acceptor.close(ignored);
    signals.cancel(ignored);
    if (parent.is_open()) parent.close(ignored);
    end_session("server stopping");
    io.stop();
  }
};

DeviceServer::DeviceServer(std::vector<host_if::DeviceLink*> boards, const std::string& socket_path,
                           ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(boards), socket_path, std::move(options))) {}

DeviceServer::~DeviceServer() {
  impl_->end_session("server destroyed");
  ::unlink(impl_->path.c_str());
}

void DeviceServer::run() {
  impl_->start();
  impl_->io.run();
  impl_->end_session("server stopping");
  boost::system::error_code ignored;
  impl_->acceptor.close(ignored);
  ::unlink(impl_->path.c_str());
}

void DeviceServer::stop() {
  asio::post(impl_->io, [this] { impl_->shutdown(); });
}

uint64_t DeviceServer::sessions() const { return impl_->sessions; }

}  // namespace ipusim::serve
