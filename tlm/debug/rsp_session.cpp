#include "debug/rsp_session.h"

#include <fmt/format.h>

#include <thread>

#include "debug/monitor.h"
#include "debug/rsp_connection.h"
#include "debug/rsp_packet.h"
#include "debug/target_xml.h"
#include "debug/thread_ids.h"

namespace ipusim::debug {
namespace {

using End = GdbServerResult::End;

constexpr size_t kPacketSize = 0x4000;             // what qSupported offers
constexpr size_t kMaxMemory = kPacketSize / 2 - 16; // bytes per m reply (two hex digits each)
constexpr size_t kThreadsPerChunk = 64;            // ids per qfThreadInfo / qsThreadInfo reply
constexpr int kSigInt = 2, kSigTrap = 5, kSigSegv = 11;

bool starts(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// "ADDR,LEN" -> both; nullopt if malformed.
std::optional<std::pair<uint64_t, uint64_t>> addr_len(std::string_view text) {
  size_t comma = text.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  auto a = rsp::parse_hex(text.substr(0, comma));
  auto l = rsp::parse_hex(text.substr(comma + 1));
  if (!a || !l) return std::nullopt;
  return std::pair{*a, *l};
}

// Runs `work` while a thread turns a cancel into interrupt() (after a detach, when no
// socket is left to watch).
void with_cancel(RspConnection& conn, DebugTarget& target, const std::function<void()>& work) {
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (conn.cancelled()) {
        target.interrupt();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  work();
  done = true;
  watcher.join();
}

}  // namespace

RspSession::RspSession(DebugTarget& target, RspConnection& connection)
    : target_(target), conn_(connection), csrs_(target.csrs()), xml_(target_xml(csrs_)) {
  g_thread_ = target_.initial_stop().thread;
}

std::string RspSession::id(const ThreadRef& t) const { return format_thread_id(t, multiprocess_); }

void RspSession::output(const std::string& text) {
  // In pieces, so no O packet outgrows the PacketSize gdb was promised.
  constexpr size_t kPiece = kPacketSize / 4;
  for (size_t at = 0; at < text.size(); at += kPiece) conn_.send("O" + rsp::to_hex(std::string_view(text).substr(at, kPiece)));
}

GdbServerResult::End RspSession::run() {
  while (!end_) {
    auto packet = conn_.receive();
    if (!packet) return conn_.cancelled() ? End::Cancelled : End::Disconnected;
    auto reply = handle(*packet);
    if (reply && !conn_.send(*reply) && !end_) return End::Disconnected;
  }
  return *end_;
}

std::vector<ThreadRef> RspSession::live_threads() const {
  std::vector<ThreadRef> out;
  for (const auto& t : target_.threads())
    if (!exited_ipus_.count(t.ipu)) out.push_back(t);
  return out;
}

std::optional<ThreadRef> RspSession::pick(std::optional<uint32_t> ipu, std::optional<uint32_t> tile,
                                          std::optional<uint32_t> slot) const {
  if (ipu && tile && slot) {
    ThreadRef t{*ipu, *tile, *slot};
    if (target_.alive(t)) return t;
    return std::nullopt;
  }
  for (const auto& t : live_threads())
    if ((!ipu || t.ipu == *ipu) && (!tile || t.tile == *tile)) return t;
  return std::nullopt;
}

std::optional<std::string> RspSession::handle(std::string_view p) {
  if (p.empty()) return "";
  switch (p[0]) {
    case '?': return stop_reply(target_.initial_stop(), true);
    case 'q': return query(p);
    case 'Q':
      if (p == "QStartNoAckMode") {
        // The OK still goes out under the ack rules; from then on, none.
        conn_.send("OK");
        conn_.set_no_ack();
        return std::nullopt;
      }
      return "";
    case 'H': return set_thread(p);
    case 'T': {
      auto pat = parse_thread_id(p.substr(1));
      if (!pat || !pat->ipu || !pat->tile) return "E01";
      if (exited_ipus_.count(*pat->ipu)) return "E01";
      return target_.alive({*pat->ipu, *pat->tile, *pat->slot}) ? "OK" : "E01";
    }
    case 'g': return registers_read();
    case 'G': return registers_write(p.substr(1));
    case 'p': return register_read(p);
    case 'P': return register_write(p);
    case 'm': return memory_read(p);
    case 'M': return memory_write(p, false);
    case 'X': return memory_write(p, true);
    case 'Z': return point(p, true);
    case 'z': return point(p, false);
    case 'v': return v_packet(p);
    case 'c': return resume(Resume{});
    case 's': return resume(Resume{c_thread_.value_or(g_thread_), false, std::nullopt});
    case 'C': return resume(Resume{});  // the signal means nothing to a tile
    case 'S': return resume(Resume{c_thread_.value_or(g_thread_), false, std::nullopt});
    case 'D': detach(p); return std::nullopt;  // detach() sends its OK
    case 'k': end_ = End::Killed; return std::nullopt;
    case '!': return "OK";  // extended mode: nothing changes (there is nothing to vRun)
    default: return "";
  }
}

std::string RspSession::query(std::string_view p) {
  if (starts(p, "qSupported")) {
    multiprocess_ = p.find("multiprocess+") != std::string_view::npos;
    swbreak_ = p.find("swbreak+") != std::string_view::npos;
    std::string reply = fmt::format(
        "PacketSize={:x};qXfer:features:read+;qXfer:threads:read+;multiprocess+;vContSupported+;"
        "QStartNoAckMode+;swbreak+;hwbreak+",
        kPacketSize);
    if (!target_.executable(g_thread_.ipu).empty()) reply += ";qXfer:exec-file:read+";
    return reply;
  }
  if (starts(p, "qXfer:features:read:")) {
    std::string_view rest = p.substr(20);
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return "E00";
    if (rest.substr(0, colon) != "target.xml") return "E00";
    auto window = addr_len(rest.substr(colon + 1));
    if (!window) return "E00";
    return xfer_window(xml_, window->first, window->second);
  }
  if (starts(p, "qXfer:exec-file:read:")) {
    // Annex: the pid in hex, or empty for the selected thread's process.
    std::string_view rest = p.substr(21);
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return "E00";
    uint32_t ipu = g_thread_.ipu;
    if (colon > 0) {
      auto pid = rsp::parse_hex(rest.substr(0, colon));
      if (!pid || *pid == 0 || *pid > target_.ipus()) return "E00";
      ipu = static_cast<uint32_t>(*pid - 1);
    }
    auto window = addr_len(rest.substr(colon + 1));
    std::string path = target_.executable(ipu);
    if (!window || path.empty()) return "E00";
    return xfer_window(path, window->first, window->second);
  }
  if (starts(p, "qXfer:threads:read::")) {
    auto window = addr_len(p.substr(20));
    if (!window) return "E00";
    if (window->first == 0) threads_xml_ = thread_list_xml();  // a fresh snapshot per read
    return xfer_window(threads_xml_, window->first, window->second);
  }
  if (p == "qfThreadInfo" || p == "qsThreadInfo") {
    if (p[1] == 'f') {
      listing_ = live_threads();
      listing_next_ = 0;
    }
    if (listing_next_ >= listing_.size()) return "l";
    std::string reply = "m";
    for (size_t n = 0; n < kThreadsPerChunk && listing_next_ < listing_.size(); ++n, ++listing_next_) {
      if (n) reply += ',';
      reply += id(listing_[listing_next_]);
      known_ipus_.insert(listing_[listing_next_].ipu);
    }
    return reply;
  }
  if (starts(p, "qThreadExtraInfo,")) {
    auto pat = parse_thread_id(p.substr(17));
    if (!pat || !pat->ipu || !pat->tile) return "E01";
    return rsp::to_hex(target_.extra_info({*pat->ipu, *pat->tile, *pat->slot}));
  }
  if (p == "qC") return "QC" + id(g_thread_);
  if (starts(p, "qAttached")) return "1";  // so gdb detaches, not kills, when it quits
  if (starts(p, "qSymbol")) return "OK";   // no symbols wanted
  if (starts(p, "qRcmd,")) return monitor(p.substr(6));
  return "";
}

std::string RspSession::thread_list_xml() {
  std::string xml = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (const auto& t : live_threads()) {
    known_ipus_.insert(t.ipu);
    xml += fmt::format("<thread id=\"{}\" name=\"{}\">{}</thread>\n", id(t), xml_escape(target_.name(t)),
                       xml_escape(target_.extra_info(t)));
  }
  return xml + "</threads>\n";
}

std::string RspSession::set_thread(std::string_view p) {
  if (p.size() < 2 || (p[1] != 'g' && p[1] != 'c')) return "";
  auto pat = parse_thread_id(p.substr(2));
  if (!pat) return "E01";
  if (p[1] == 'c') {
    if (pat->any() || !pat->tile) {
      c_thread_.reset();
      return "OK";
    }
    c_thread_ = pick(pat->ipu, pat->tile, pat->slot);
    return c_thread_ ? "OK" : "E01";
  }
  if (pat->any()) return "OK";  // any thread: keep the one selected
  auto t = pick(pat->ipu, pat->tile, pat->slot);
  if (!t) return "E01";
  g_thread_ = *t;
  return "OK";
}

std::string RspSession::registers_read() {
  std::string reply;
  for (uint32_t r = 0; r <= kRegPc; ++r) {
    auto v = target_.read_register(g_thread_, r);
    reply += v ? rsp::le32_hex(*v) : "xxxxxxxx";
  }
  return reply;
}

std::string RspSession::registers_write(std::string_view data) {
  if (data.empty() || data.size() % 8 != 0) return "E01";
  bool ok = true;
  for (uint32_t r = 0; r <= kRegPc && (r + 1) * 8 <= data.size(); ++r) {
    std::string_view field = data.substr(r * 8, 8);
    if (field == "xxxxxxxx") continue;
    auto v = rsp::parse_le32_hex(field);
    if (!v) return "E01";
    // x0 is hardwired: gdb writes back what g read, which is fine to skip.
    if (r != 0 && !target_.write_register(g_thread_, r, *v)) ok = false;
  }
  return ok ? "OK" : "E01";
}

std::string RspSession::register_read(std::string_view p) {
  auto regno = rsp::parse_hex(p.substr(1));
  if (!regno || *regno > UINT32_MAX || !described_register(csrs_, static_cast<uint32_t>(*regno))) return "E01";
  auto v = target_.read_register(g_thread_, static_cast<uint32_t>(*regno));
  return v ? rsp::le32_hex(*v) : "xxxxxxxx";
}

std::string RspSession::register_write(std::string_view p) {
  size_t eq = p.find('=');
  if (eq == std::string_view::npos) return "E01";
  auto regno = rsp::parse_hex(p.substr(1, eq - 1));
  auto v = rsp::parse_le32_hex(p.substr(eq + 1));
  if (!regno || !v || *regno > UINT32_MAX) return "E01";
  return target_.write_register(g_thread_, static_cast<uint32_t>(*regno), *v) ? "OK" : "E01";
}

std::string RspSession::memory_read(std::string_view p) {
  auto al = addr_len(p.substr(1));
  if (!al || al->first > UINT32_MAX) return "E01";
  size_t len = std::min<uint64_t>(al->second, kMaxMemory);  // gdb asks again for the rest
  if (al->first + len > uint64_t{UINT32_MAX} + 1) return "E01";
  std::vector<uint8_t> bytes(len);
  if (!target_.read_memory(g_thread_, static_cast<uint32_t>(al->first), bytes)) return "E01";
  return rsp::to_hex(bytes);
}

std::string RspSession::memory_write(std::string_view p, bool binary) {
  size_t colon = p.find(':');
  if (colon == std::string_view::npos) return "E01";
  auto al = addr_len(p.substr(1, colon - 1));
  if (!al || al->first > UINT32_MAX || al->first + al->second > uint64_t{UINT32_MAX} + 1) return "E01";
  std::string_view data = p.substr(colon + 1);
  std::vector<uint8_t> bytes;
  if (binary) {
    bytes.assign(data.begin(), data.end());  // the parser has undone the escapes
  } else {
    auto decoded = rsp::from_hex(data);
    if (!decoded) return "E01";
    bytes = std::move(*decoded);
  }
  if (bytes.size() != al->second) return "E01";
  if (bytes.empty()) return "OK";  // gdb's probe for X support
  return target_.write_memory(g_thread_, static_cast<uint32_t>(al->first), bytes) ? "OK" : "E01";
}

std::string RspSession::point(std::string_view p, bool insert) {
  // Z<type>,<addr>,<kind>
  if (p.size() < 3 || p[2] != ',') return "E01";
  char type = p[1];
  auto al = addr_len(p.substr(3));
  if (!al || al->first > UINT32_MAX || al->second > UINT32_MAX) return "E01";
  uint32_t ipu = g_thread_.ipu;  // gdb selects a thread of the inferior first (Hg)
  uint32_t addr = static_cast<uint32_t>(al->first), kind = static_cast<uint32_t>(al->second);
  if (type == '0' || type == '1') {
    // Z1 (hbreak) is the same stop: the simulator needs no code patch for either.
    bool ok = insert ? target_.insert_breakpoint(ipu, addr) : target_.remove_breakpoint(ipu, addr);
    if (ok && insert) breakpoints_.insert({ipu, addr});
    if (ok && !insert) breakpoints_.erase({ipu, addr});
    return ok ? "OK" : "E01";
  }
  if (type < '2' || type > '4') return "";
  WatchKind w = type == '2' ? WatchKind::Write : type == '3' ? WatchKind::Read : WatchKind::Access;
  bool ok = insert ? target_.insert_watchpoint(ipu, w, addr, kind) : target_.remove_watchpoint(ipu, w, addr, kind);
  auto key = std::tuple{ipu, static_cast<int>(w), addr, kind};
  if (ok && insert) watchpoints_.insert(key);
  if (ok && !insert) watchpoints_.erase(key);
  return ok ? "OK" : "E01";
}

std::string RspSession::v_packet(std::string_view p) {
  if (p == "vCont?") return "vCont;c;C;s;S";
  if (starts(p, "vCont;")) {
    Resume how;
    how.others = false;
    bool any_action = false;
    bool continue_all = false;
    std::optional<ThreadRef> continue_one;
    std::string_view rest = p.substr(6);
    while (!rest.empty()) {
      size_t semi = rest.find(';');
      std::string_view action = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
      if (action.empty()) return "E01";
      char kind = action[0];
      size_t colon = action.find(':');
      std::optional<ThreadPattern> pat;
      if (colon != std::string_view::npos) {
        pat = parse_thread_id(action.substr(colon + 1));
        if (!pat) return "E01";
      }
      if (kind == 'c' || kind == 'C') {
        // Whether gdb names one IPU (c:p1.-1, schedule-multiple off) or all, every IPU
        // runs: syncs and exchanges span them, so one cannot run without the others.
        // One thread named (c:p1.2: gdb steps it over a breakpoint, with a breakpoint of
        // its own on the next instruction) runs alone: its tile only, the others held
        // where they are, so their own hits at this cycle are still reported after it.
        if (pat && pat->tile && pat->slot && !continue_all) {
          continue_one = pick(pat->ipu, pat->tile, pat->slot);
          if (!continue_one) return "E01";
        } else {
          continue_all = true;
          continue_one.reset();
        }
        any_action = true;
      } else if (kind == 's' || kind == 'S') {
        if (how.step) continue;  // all-stop: one stepped thread is enough
        std::optional<ThreadRef> t =
            pat ? pick(pat->ipu, pat->tile, pat->slot) : std::optional<ThreadRef>(c_thread_.value_or(g_thread_));
        if (!t) return "E01";
        how.step = *t;
        any_action = true;
      } else {
        return "";  // t, r: not offered in vCont?
      }
    }
    if (!any_action) return "E01";
    if (how.step) {
      how.others = continue_all || continue_one.has_value();
    } else {
      how.others = true;
      if (!continue_all) how.only = continue_one;
    }
    return resume(how);
  }
  if (starts(p, "vKill")) {
    end_ = End::Killed;
    return "OK";
  }
  return "";  // vMustReplyEmpty, vFile, vRun, ...
}

std::string RspSession::monitor(std::string_view hex_command) {
  auto bytes = rsp::from_hex(hex_command);
  if (!bytes) return "E01";
  std::string line(bytes->begin(), bytes->end());
  auto before = catches_;
  std::string text = run_monitor_command(line, g_thread_.ipu, catches_);
  if (before.size() != catches_.size()) target_.set_catches(catches_);
  output(text);
  return "OK";
}

void RspSession::detach(std::string_view p) {
  // gdb detaches inferior by inferior ("D;1", "D;2"): the system runs on only when gdb
  // has let go of every IPU it knows; until then the others stay debugged.
  if (starts(p, "D;")) {
    auto pid = rsp::parse_hex(p.substr(2));
    if (!pid || *pid == 0 || *pid > uint64_t{UINT32_MAX} + 1) {
      conn_.send("E01");
      return;
    }
    detached_ipus_.insert(static_cast<uint32_t>(*pid - 1));
    bool all = true;
    for (uint32_t ipu : known_ipus_)
      if (!detached_ipus_.count(ipu) && !exited_ipus_.count(ipu)) all = false;
    if (!all) {
      conn_.send("OK");
      return;
    }
  }
  // Take out what gdb put in (gdb removes its own first; this covers a gdb that does
  // not), then let the run finish undisturbed.
  for (auto [ipu, addr] : breakpoints_) target_.remove_breakpoint(ipu, addr);
  for (auto [ipu, kind, addr, len] : watchpoints_)
    target_.remove_watchpoint(ipu, static_cast<WatchKind>(kind), addr, len);
  breakpoints_.clear();
  watchpoints_.clear();
  if (!catches_.empty()) target_.set_catches({});
  catches_.clear();
  conn_.send("OK");
  end_ = End::Detached;
  // Bounded: a target that keeps reporting stops that nothing asked for must not keep
  // the stub for ever.
  for (int stops = 0; !final_ && stops < 10000 && !conn_.cancelled(); ++stops) {
    StopEvent e;
    with_cancel(conn_, target_, [&] { e = target_.resume(Resume{}); });
    if (e.kind == StopEvent::Kind::Fault || e.kind == StopEvent::Kind::Exited) break;
    if (e.kind == StopEvent::Kind::Interrupt) break;  // a cancel
  }
}

std::string RspSession::resume(const Resume& how) {
  if (final_) return exit_reply();
  StopEvent e;
  conn_.watch_while([&] { e = target_.resume(how); }, [&] { target_.interrupt(); });
  if (conn_.closed()) end_ = End::Disconnected;
  else if (conn_.cancelled()) end_ = End::Cancelled;
  return stop_reply(e, false);
}

std::string RspSession::stop_reply(const StopEvent& e, bool initial) {
  using K = StopEvent::Kind;
  if (e.kind == K::Fault || e.kind == K::Exited) {
    if (!final_) {
      final_ = e;
      known_ipus_.insert(e.thread.ipu);
      // The stopping IPU's exit first, then the others gdb knows.
      pending_exits_.push_back(e.thread.ipu);
      for (uint32_t ipu : known_ipus_)
        if (ipu != e.thread.ipu) pending_exits_.push_back(ipu);
      if (!initial) output(e.text.empty() || e.text.back() == '\n' ? e.text : e.text + "\n");
    }
    if (e.kind == K::Exited || initial) return exit_reply();
  }
  g_thread_ = e.thread;
  known_ipus_.insert(e.thread.ipu);
  int signal = kSigTrap;
  std::string extra;
  switch (e.kind) {
    case K::Breakpoint:
      if (swbreak_) extra = "swbreak:;";
      break;
    case K::Watchpoint: {
      const char* name = e.watch == WatchKind::Write ? "watch" : e.watch == WatchKind::Read ? "rwatch" : "awatch";
      extra = fmt::format("{}:{:x};", name, e.address);
      break;
    }
    case K::Interrupt:
      signal = initial ? kSigTrap : kSigInt;  // gdbserver's convention for the first stop
      break;
    case K::Catch:
      if (!initial) output(e.text.empty() || e.text.back() == '\n' ? e.text : e.text + "\n");
      break;
    case K::Fault:
      signal = kSigSegv;
      break;
    case K::Step:
    case K::Exited:
      break;
  }
  return fmt::format("T{:02x}thread:{};{}", signal, id(e.thread), extra);
}

std::string RspSession::exit_reply() {
  if (pending_exits_.empty()) {
    end_ = End::RunOver;
    return "W00";
  }
  uint32_t ipu = pending_exits_.front();
  pending_exits_.erase(pending_exits_.begin());
  exited_ipus_.insert(ipu);
  if (pending_exits_.empty()) end_ = End::RunOver;
  std::string process = multiprocess_ ? fmt::format(";process:{:x}", ipu + 1) : "";
  if (final_->kind == StopEvent::Kind::Fault) return fmt::format("X{:02x}{}", kSigSegv, process);
  return fmt::format("W{:02x}{}", final_->exit_code & 0xff, process);
}

}  // namespace ipusim::debug
