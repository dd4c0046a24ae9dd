// The protocol state of one gdb connection (selected threads, ack mode, catches, which
// IPUs' exits gdb has been told) and a handler per packet, over a DebugTarget.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "debug/debug_target.h"
#include "debug/gdb_server.h"

namespace ipusim::debug {

class RspConnection;

class RspSession {
 public:
  RspSession(DebugTarget& target, RspConnection& connection);
  // Serves packets until the session ends.
  GdbServerResult::End run();

 private:
  // One packet -> its reply (nullopt: no reply, as for `k`). May set end_.
  std::optional<std::string> handle(std::string_view packet);
  std::string query(std::string_view packet);           // q...
  std::string set_thread(std::string_view packet);      // H...
  std::string registers_read();                          // g
  std::string registers_write(std::string_view data);   // G
  std::string register_read(std::string_view packet);   // p
  std::string register_write(std::string_view packet);  // P
  std::string memory_read(std::string_view packet);     // m
  std::string memory_write(std::string_view packet, bool binary);  // M, X
  std::string point(std::string_view packet, bool insert);         // Z, z
  std::string v_packet(std::string_view packet);        // v...
  std::string monitor(std::string_view hex_command);    // qRcmd
  void detach(std::string_view packet);                  // D, D;pid
  // Resumes and returns the stop reply (after any O packets).
  std::string resume(const Resume& how);
  std::string stop_reply(const StopEvent& e, bool initial);
  // After the run is over: the next IPU's exit for gdb (W / X); ends the session after
  // the last.
  std::string exit_reply();
  std::string thread_list_xml();

  // The thread a pattern names (nullopt parts: the first matching thread that exists).
  std::optional<ThreadRef> pick(std::optional<uint32_t> ipu, std::optional<uint32_t> tile,
                                std::optional<uint32_t> slot) const;
  std::string id(const ThreadRef& t) const;
  void output(const std::string& text);  // an O packet for gdb's console

  DebugTarget& target_;
  RspConnection& conn_;
  std::vector<DebugTarget::CsrDesc> csrs_;
  std::string xml_;
  bool multiprocess_ = false;
  ThreadRef g_thread_;                    // Hg: registers and memory
  std::optional<ThreadRef> c_thread_;     // Hc: the legacy `s` steps it; nullopt: any
  std::vector<ThreadRef> listing_;        // qfThreadInfo's snapshot, sent in chunks
  size_t listing_next_ = 0;
  std::string threads_xml_;               // qXfer:threads:read's snapshot
  std::vector<Catch> catches_;
  // What gdb inserted, so a detach can take it all out before the run goes on.
  std::set<std::pair<uint32_t, uint32_t>> breakpoints_;
  std::set<std::tuple<uint32_t, int, uint32_t, uint32_t>> watchpoints_;
  std::optional<StopEvent> final_;        // the Fault / Exited that ended the run
  std::vector<uint32_t> pending_exits_;   // IPUs whose exit gdb has not been told
  std::set<uint32_t> known_ipus_;         // IPUs gdb has seen a thread of (its inferiors)
  std::set<uint32_t> detached_ipus_;      // D;pid while gdb still debugs other IPUs
  std::set<uint32_t> exited_ipus_;        // IPUs whose exit gdb was told: their threads are gone
  std::vector<ThreadRef> live_threads() const;  // the target's, less those of exited_ipus_
  bool swbreak_ = false;                  // gdb takes "swbreak:" in stop replies
  std::optional<GdbServerResult::End> end_;
};

}  // namespace ipusim::debug
