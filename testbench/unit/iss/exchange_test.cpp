// Exchange posting (docs/xipu.md, custom-0 funct3 = 2): the phase opened by a released
// sync and closed by xwait, the postings' content in order, the Exchange stop and
// release_exchange with exact cycles, the implicit exchange of a sync / halt with
// postings pending, and every posting fault. The harness tile is tile 3 of IPU 1 with
// 16 tiles per IPU and 2 IPUs: global tile id 19 of 32.
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kCycle = 0xc00, kSuperstep = 0xcc8;
using Kind = ExchangePost::Kind;

// Runs to the first sync (which must be zone 1 or 2) and releases it in the same cycle.
void open_phase(Harness& h) {
  ASSERT_EQ(h.run().reason, StopReason::Sync) << h.fault_message();
  h.core.release_sync(h.core.cycle());
}

TEST(IssExchange, PostsInOrderAndReleaseTiming) {
  Asm a;
  a.addi(t0, zero, 1);    // 0
  a.sync(t0);             // 6: Sync stop at 12; released at 100
  a.lui(s0, 0x50);        // 100: s0 = 0x50000
  a.addi(a0, zero, 5);    // 106
  a.addi(a1, zero, 3);    // 112
  a.xdst(a0, a1);         // 118: tiles 5..7
  a.addi(a0, zero, 30);   // 124
  a.addi(a1, zero, 1);    // 130
  a.xdst(a0, a1);         // 136: and tile 30
  a.addi(a2, zero, 64);   // 142
  a.send(s0, a2);         // 148: pc 0x40028
  a.addi(t1, zero, 2);    // 154
  a.xsrc(t1);             // 160
  a.addi(s1, s0, 128);    // 166
  a.addi(a3, zero, 32);   // 172
  a.recv(s1, a3);         // 178: pc 0x4003c
  a.addi(s1, s1, 64);     // 184
  a.recv(s1, zero);       // 190: a zero-length receive, same source (pc 0x40044)
  a.xwait();              // 196: Exchange stop at 202; released at 500
  a.csrr(a4, kCycle);     // 500
  a.csrr(a5, kSuperstep); // 506
  a.halt(zero);           // 512 -> 518
  for (uint32_t q : {1u, 1000u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q));
    ASSERT_EQ(h.run().reason, StopReason::Sync);
    EXPECT_EQ(h.core.cycle(), 12u);
    EXPECT_TRUE(h.core.exchange_posts().empty());
    h.core.release_sync(100);
    ASSERT_EQ(h.run().reason, StopReason::Exchange) << h.fault_message();
    EXPECT_EQ(h.core.cycle(), 202u);
    EXPECT_EQ(h.core.run().reason, StopReason::Exchange);  // not released: the same stop
    const std::vector<ExchangePost>& posts = h.core.exchange_posts();
    ASSERT_EQ(posts.size(), 3u);
    EXPECT_EQ(posts[0].kind, Kind::Send);
    EXPECT_EQ(posts[0].addr, 0x50000u);
    EXPECT_EQ(posts[0].len, 64u);
    EXPECT_EQ(posts[0].peers, (std::vector<uint32_t>{5, 6, 7, 30}));
    EXPECT_EQ(posts[0].pc, 0x40028u);
    EXPECT_EQ(posts[0].cycle, 148u);
    EXPECT_EQ(posts[1].kind, Kind::Recv);
    EXPECT_EQ(posts[1].addr, 0x50080u);
    EXPECT_EQ(posts[1].len, 32u);
    EXPECT_EQ(posts[1].peers, (std::vector<uint32_t>{2}));
    EXPECT_EQ(posts[1].pc, 0x4003cu);
    EXPECT_EQ(posts[1].cycle, 178u);
    EXPECT_EQ(posts[2].kind, Kind::Recv);
    EXPECT_EQ(posts[2].addr, 0x500c0u);
    EXPECT_EQ(posts[2].len, 0u);
    EXPECT_EQ(posts[2].peers, (std::vector<uint32_t>{2}));
    EXPECT_EQ(posts[2].pc, 0x40044u);
    EXPECT_EQ(posts[2].cycle, 190u);

    EXPECT_THROW(h.core.release_sync(300), std::logic_error);  // the stop is an exchange
    EXPECT_THROW(h.core.release_exchange(201), std::invalid_argument);
    h.core.release_exchange(500);
    EXPECT_TRUE(h.core.exchange_posts().empty());
    EXPECT_THROW(h.core.release_exchange(600), std::logic_error);  // nothing pending now
    h.run_ok();
    EXPECT_EQ(h.x(a4), 500u);
    EXPECT_EQ(h.x(a5), 1u);  // the exchange is no sync
    EXPECT_EQ(h.core.cycle(), 518u);
    const ThreadStats s = h.core.thread_stats(0);
    EXPECT_EQ(s.instret, 22u);
    EXPECT_EQ(s.stall_cycles, 88u);            // the sync: 12 -> 100
    EXPECT_EQ(s.exchange_stall_cycles, 298u);  // the exchange: 202 -> 500
  }
}

// xwait first waits for the workers (like join); that wait is ordinary stall, the
// exchange after it is exchange stall. Identical for every quantum.
TEST(IssExchange, XwaitWaitsForWorkers) {
  Asm a;
  a.la(t0, "worker");     // 0, 6
  a.addi(t1, zero, 1);    // 12
  a.sync(t1);             // 18: Sync stop at 24, released at 24
  a.run(zero, t0, zero);  // 24: the worker issues from 30
  a.addi(a0, zero, 4);    // 30
  a.addi(a1, zero, 1);    // 36
  a.xdst(a0, a1);         // 42
  a.lui(s0, 0x50);        // 48
  a.addi(a2, zero, 16);   // 54
  a.send(s0, a2);         // 60
  a.xwait();              // 66: waits for the worker's exit at 288
  a.halt(zero);           // released at 300 -> 306
  a.label("worker");
  a.li(t2, 20);           // 30, 36
  a.label("loop");
  a.addi(t2, t2, -1);
  a.bne(t2, zero, "loop");  // 40 instructions: 42..276
  a.wexit(zero);            // 282 -> exit 288
  for (uint32_t q : {1u, 3u, 1000u}) {
    SCOPED_TRACE(q);
    Harness h(a, test_params(q));
    open_phase(h);
    ASSERT_EQ(h.run().reason, StopReason::Exchange) << h.fault_message();
    EXPECT_EQ(h.core.cycle(), 288u);
    ASSERT_EQ(h.core.exchange_posts().size(), 1u);
    EXPECT_EQ(h.core.exchange_posts()[0].cycle, 60u);
    h.core.release_exchange(300);
    h.run_ok();
    EXPECT_EQ(h.core.cycle(), 306u);
    EXPECT_EQ(h.core.thread_stats(0).stall_cycles, 216u);  // 72 -> 288
    EXPECT_EQ(h.core.thread_stats(0).exchange_stall_cycles, 12u);
    EXPECT_EQ(h.core.thread_stats(1).instret, 43u);
  }
}

// A sync (or halt) with postings pending does the exchange first: the tile stops with
// Exchange in the cycle the sync would issue; once released the same sync issues and
// stops with Sync.
TEST(IssExchange, SyncAndHaltWithPostingsPendingExchangeFirst) {
  Asm a;
  a.addi(t0, zero, 1);     // 0
  a.sync(t0);              // 6: Sync at 12, released at 50
  a.lui(s0, 0x50);         // 50
  a.addi(a0, zero, 7);     // 56
  a.addi(a1, zero, 1);     // 62
  a.xdst(a0, a1);          // 68
  a.addi(a2, zero, 8);     // 74
  a.send(s0, a2);          // 80
  a.sync(t0);              // 86: Exchange stop at 86; released at 120, issues: Sync at 126
  a.csrr(a3, kSuperstep);  // released at 200
  a.lui(s1, 0x51);         // 206
  a.xsrc(a0);              // 212
  a.addi(a4, zero, 4);     // 218
  a.recv(s1, a4);          // 224
  a.halt(zero);            // 230: Exchange stop at 230; released at 260, issues: Halted at 266
  Harness h2(a);
  ASSERT_EQ(h2.run().reason, StopReason::Sync);
  h2.core.release_sync(50);
  StopInfo s = h2.run();
  ASSERT_EQ(s.reason, StopReason::Exchange) << h2.fault_message();
  EXPECT_EQ(h2.core.cycle(), 86u);
  ASSERT_EQ(h2.core.exchange_posts().size(), 1u);
  EXPECT_EQ(h2.core.exchange_posts()[0].peers, (std::vector<uint32_t>{7}));
  EXPECT_EQ(h2.core.registers(0).pc, 0x40020u);  // still on the sync: it has not issued
  h2.core.release_exchange(120);
  s = h2.run();
  ASSERT_EQ(s.reason, StopReason::Sync) << h2.fault_message();
  EXPECT_EQ(s.sync_zone, 1u);
  EXPECT_EQ(h2.core.cycle(), 126u);
  h2.core.release_sync(200);
  s = h2.run();
  ASSERT_EQ(s.reason, StopReason::Exchange) << h2.fault_message();
  EXPECT_EQ(h2.core.cycle(), 230u);
  ASSERT_EQ(h2.core.exchange_posts().size(), 1u);
  EXPECT_EQ(h2.core.exchange_posts()[0].kind, Kind::Recv);
  EXPECT_EQ(h2.core.exchange_posts()[0].addr, 0x51000u);
  EXPECT_EQ(h2.core.exchange_posts()[0].peers, (std::vector<uint32_t>{7}));
  h2.core.release_exchange(260);
  h2.run_ok();
  EXPECT_EQ(h2.core.cycle(), 266u);
  EXPECT_EQ(h2.x(a3), 2u);
  const ThreadStats st = h2.core.thread_stats(0);
  EXPECT_EQ(st.instret, 15u);
  EXPECT_EQ(st.stall_cycles, 38u + 74u);
  EXPECT_EQ(st.exchange_stall_cycles, 34u + 30u);
}

// sync 0 (the workers' zone) with postings pending exchanges too; it opens no phase.
TEST(IssExchange, SyncZeroWithPostingsExchangesAndOpensNoPhase) {
  Asm a;
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.lui(s0, 0x50);
  a.addi(a0, zero, 7);
  a.addi(a1, zero, 1);
  a.xdst(a0, a1);
  a.send(s0, zero);
  a.sync(zero);           // exchange, then a join: no Sync stop
  a.xdst(a0, a1);
  a.label("bad");
  a.send(s0, zero);       // the phase closed at the implicit exchange
  a.halt(zero);
  Harness h(a);
  open_phase(h);
  ASSERT_EQ(h.run().reason, StopReason::Exchange) << h.fault_message();
  h.core.release_exchange(h.core.cycle());
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "send during compute");
  EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
}

TEST(IssExchange, XwaitOutsideAPhaseIsAJoin) {
  Asm a;
  a.la(t0, "worker");     // 0, 6
  a.run(zero, t0, zero);  // 12: worker from 18, exits at 30
  a.xwait();              // 18: no phase: waits for the worker only, resumes at 30
  a.csrr(a0, kCycle);     // 30
  a.halt(zero);
  a.label("worker");
  a.addi(a1, zero, 1);
  a.wexit(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 30u);
  EXPECT_EQ(h.core.thread_stats(0).exchange_stall_cycles, 0u);
}

// In a phase xwait always stops, also with nothing posted, so the platform sees every
// tile's exchange point; after it the phase is closed.
TEST(IssExchange, XwaitWithNothingPostedStopsAndClosesThePhase) {
  Asm a;
  a.addi(t0, zero, 2);
  a.sync(t0);
  a.xwait();
  a.lui(s0, 0x50);
  a.addi(a0, zero, 1);
  a.xsrc(a0);
  a.label("bad");
  a.recv(s0, zero);
  a.halt(zero);
  Harness h(a);
  ASSERT_EQ(h.run().reason, StopReason::Sync);
  EXPECT_EQ(h.stop.sync_zone, 2u);
  h.core.release_sync(h.core.cycle());
  ASSERT_EQ(h.run().reason, StopReason::Exchange);
  EXPECT_TRUE(h.core.exchange_posts().empty());
  h.core.release_exchange(h.core.cycle());
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "send during compute");
  EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
  EXPECT_NE(h.stop.fault->detail.find("recv of 0 bytes into 0x00050000 from tile 1 outside an exchange phase"),
            std::string::npos)
      << h.fault_message();
}

// The destination set is a set (sorted, no repeats), emptied by each send; xdst and
// xsrc are allowed in compute (they post nothing); a send may read code.
TEST(IssExchange, DestinationSetAndSource) {
  Asm a;
  a.addi(a0, zero, 7);
  a.addi(a1, zero, 2);
  a.xdst(a0, a1);          // {7, 8}, before the phase opens
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.addi(a0, zero, 5);
  a.addi(a1, zero, 3);
  a.xdst(a0, a1);          // {5..8}
  a.xdst(a0, zero);        // adds nothing
  a.li(t1, 1000);
  a.xdst(t1, zero);        // adds nothing, names no tile: no fault
  a.lui(s0, 0x40);         // the code itself
  a.addi(a2, zero, 16);
  a.send(s0, a2);
  a.addi(a0, zero, 31);
  a.addi(a1, zero, 1);
  a.xdst(a0, a1);
  a.send(s0, zero);        // to {31} only: the set emptied at the last send
  a.addi(a0, zero, 9);
  a.xsrc(a0);
  a.lui(s1, 0x50);
  a.recv(s1, a2);
  a.recv(s1, a2);          // the source stays until the next xsrc
  a.label("bad");
  a.send(s0, a2);          // empty set
  a.halt(zero);
  Harness h(a);
  open_phase(h);
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "exchange misuse");
  EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
  EXPECT_EQ(h.stop.fault->detail,
            "send of 16 bytes at 0x00040000 to no tile: the destination set is empty (xdst first)");
  const std::vector<ExchangePost>& posts = h.core.exchange_posts();
  ASSERT_EQ(posts.size(), 4u);
  EXPECT_EQ(posts[0].peers, (std::vector<uint32_t>{5, 6, 7, 8}));
  EXPECT_EQ(posts[0].addr, 0x40000u);
  EXPECT_EQ(posts[1].peers, (std::vector<uint32_t>{31}));
  EXPECT_EQ(posts[2].peers, (std::vector<uint32_t>{9}));
  EXPECT_EQ(posts[3].peers, (std::vector<uint32_t>{9}));
  EXPECT_EQ(posts[3].kind, Kind::Recv);
}

TEST(IssExchange, ResetForgetsTheExchange) {
  Asm a;
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.addi(a0, zero, 4);
  a.addi(a1, zero, 1);
  a.xdst(a0, a1);
  a.lui(s0, 0x50);
  a.send(s0, zero);
  a.xwait();
  a.halt(zero);
  Harness h(a);
  open_phase(h);
  ASSERT_EQ(h.run().reason, StopReason::Exchange);
  h.reset();
  EXPECT_TRUE(h.core.exchange_posts().empty());
  EXPECT_THROW(h.core.release_exchange(1000), std::logic_error);
  ASSERT_EQ(h.run().reason, StopReason::Sync);
  h.core.release_sync(h.core.cycle());
  ASSERT_EQ(h.run().reason, StopReason::Exchange);
  EXPECT_EQ(h.core.exchange_posts().size(), 1u);
}

struct ExchangeFault {
  const char* name;
  bool in_phase;        // open an exchange phase (sync 1, released) before the body
  void (*emit)(Asm&);   // the faulting instruction must be labelled "bad"
  const char* kind;
  const char* detail;   // the whole detail
  const char* disasm;
  uint32_t thread = 0;
};

// s0 = 0x50000 and a2 = 8 are set before every body.
const ExchangeFault kExchangeFaults[] = {
    {"send in compute", false,
     [](Asm& a) { a.addi(a0, zero, 7); a.addi(a1, zero, 1); a.xdst(a0, a1); a.label("bad"); a.send(s0, a2); },
     "send during compute",
     "send of 8 bytes at 0x00050000 to tile 7 outside an exchange phase (this is tile 19; a sync of zone 1 or "
     "2 opens the phase, xwait closes it)",
     "send s0, a2"},
    {"recv in compute", false, [](Asm& a) { a.addi(a0, zero, 5); a.xsrc(a0); a.label("bad"); a.recv(s0, a2); },
     "send during compute",
     "recv of 8 bytes into 0x00050000 from tile 5 outside an exchange phase (this is tile 19; a sync of zone 1 "
     "or 2 opens the phase, xwait closes it)",
     "recv s0, a2"},
    {"send to nobody", true, [](Asm& a) { a.label("bad"); a.send(s0, a2); }, "exchange misuse",
     "send of 8 bytes at 0x00050000 to no tile: the destination set is empty (xdst first)", "send s0, a2"},
    {"recv from nobody", true, [](Asm& a) { a.label("bad"); a.recv(s0, a2); }, "exchange misuse",
     "recv of 8 bytes into 0x00050000 from no tile: no source tile (xsrc first)", "recv s0, a2"},
    {"misaligned send", true,
     [](Asm& a) {
       a.addi(a0, zero, 4); a.addi(a1, zero, 2); a.xdst(a0, a1); a.addi(s0, s0, 2); a.label("bad"); a.send(s0, a2);
     },
     "misaligned access", "send of 8 bytes at 0x00050002 to tiles 4..5: the buffer is not 4-byte aligned",
     "send s0, a2"},
    {"misaligned recv", true,
     [](Asm& a) { a.addi(a0, zero, 4); a.xsrc(a0); a.addi(s0, s0, 1); a.label("bad"); a.recv(s0, a2); },
     "misaligned access", "recv of 8 bytes into 0x00050001 from tile 4: the buffer is not 4-byte aligned",
     "recv s0, a2"},
    {"length not a multiple of 4", true,
     [](Asm& a) { a.addi(a0, zero, 4); a.addi(a1, zero, 1); a.xdst(a0, a1); a.addi(a2, zero, 6); a.label("bad"); a.send(s0, a2); },
     "exchange misuse", "send of 6 bytes at 0x00050000 to tile 4: the length is not a multiple of 4",
     "send s0, a2"},
    {"length beyond SRAM", true,
     [](Asm& a) { a.addi(a0, zero, 4); a.xsrc(a0); a.li(a2, 0x40004); a.label("bad"); a.recv(s0, a2); },
     "exchange misuse",
     "recv of 262148 bytes into 0x00050000 from tile 4: the length exceeds the SRAM size (262144 bytes)",
     "recv s0, a2"},
    {"buffer past SRAM", true,
     [](Asm& a) {
       a.addi(a0, zero, 4); a.addi(a1, zero, 1); a.xdst(a0, a1); a.li(s0, 0x7fff0); a.addi(a2, zero, 32);
       a.label("bad"); a.send(s0, a2);
     },
     "access fault",
     "send of 32 bytes at 0x0007fff0 to tile 4: the buffer lies outside SRAM [0x00040000, 0x00080000)",
     "send s0, a2"},
    {"null buffer", true,
     [](Asm& a) { a.addi(a0, zero, 4); a.xsrc(a0); a.label("bad"); a.recv(zero, a2); }, "access fault",
     "recv of 8 bytes into 0x00000000 from tile 4: the buffer lies outside SRAM [0x00040000, 0x00080000)",
     "recv zero, a2"},
    {"recv into code", true,
     [](Asm& a) { a.addi(a0, zero, 4); a.xsrc(a0); a.lui(s0, 0x40); a.label("bad"); a.recv(s0, a2); },
     "access fault", "recv of 8 bytes into 0x00040000 from tile 4: the buffer overlaps code [0x00040000, 0x",
     "recv s0, a2"},
    {"destination past the system", true,
     [](Asm& a) { a.addi(a0, zero, 30); a.addi(a1, zero, 3); a.label("bad"); a.xdst(a0, a1); }, "exchange misuse",
     "destination tiles 30..32 are not all tiles of the system (global ids 0..31: 2 IPU(s) x 16 tiles)",
     "xdst a0, a1"},
    {"huge destination range", true,
     [](Asm& a) { a.addi(a0, zero, 1); a.addi(a1, zero, -1); a.label("bad"); a.xdst(a0, a1); }, "exchange misuse",
     "destination tiles 1..4294967295 are not all tiles of the system (global ids 0..31: 2 IPU(s) x 16 tiles)",
     "xdst a0, a1"},
    {"source past the system", true, [](Asm& a) { a.addi(a0, zero, 32); a.label("bad"); a.xsrc(a0); },
     "exchange misuse",
     "source tile 32 is not a tile of the system (global ids 0..31: 2 IPU(s) x 16 tiles)", "xsrc a0"},
    {"worker send", true,
     [](Asm& a) {
       a.la(t0, "worker"); a.run(zero, t0, zero); a.join(); a.halt(zero);
       a.label("worker"); a.label("bad"); a.send(s0, a2);
     },
     "illegal instruction", "send is supervisor-only (the supervisor drives the exchange)", "send s0, a2", 1},
    {"worker xdst", false,
     [](Asm& a) {
       a.la(t0, "worker"); a.run(zero, t0, zero); a.join(); a.halt(zero);
       a.label("worker"); a.label("bad"); a.xdst(a0, a1);
     },
     "illegal instruction", "xdst is supervisor-only (the supervisor drives the exchange)", "xdst a0, a1", 1},
    {"worker xwait", true,
     [](Asm& a) {
       a.la(t0, "worker"); a.run(zero, t0, zero); a.join(); a.halt(zero);
       a.label("worker"); a.label("bad"); a.xwait();
     },
     "illegal instruction", "xwait is supervisor-only (the supervisor drives the exchange)", "xwait", 1},
};

TEST(IssExchange, PostingFaults) {
  for (const ExchangeFault& c : kExchangeFaults) {
    SCOPED_TRACE(c.name);
    Asm a;
    if (c.in_phase) {
      a.addi(t0, zero, 1);
      a.sync(t0);
    }
    a.lui(s0, 0x50);
    a.addi(a2, zero, 8);
    c.emit(a);
    a.halt(zero);
    Harness h(a);
    if (c.in_phase) open_phase(h);
    h.run();
    expect_fault_at_bad(h.stop, a, c.kind, c.detail, c.disasm, c.thread);
    EXPECT_TRUE(h.core.exchange_posts().empty());
    EXPECT_EQ(h.core.run().reason, StopReason::Fault);  // a fault is final
  }
}

TEST(IssExchange, FaultMessageNamesBothTiles) {
  Asm a;
  a.lui(s0, 0x50);
  a.addi(a2, zero, 8);
  a.addi(a0, zero, 7);
  a.addi(a1, zero, 1);
  a.xdst(a0, a1);
  a.send(s0, a2);  // pc 0x40014
  Harness h(a);
  h.run();
  EXPECT_EQ(h.fault_message(),
            "tile 3 (ipu 1) thread 0 pc 0x00040014: send during compute: send of 8 bytes at 0x00050000 to tile 7 "
            "outside an exchange phase (this is tile 19; a sync of zone 1 or 2 opens the phase, xwait closes it) "
            "[send s0, a2 = 0x02c4200b]");
}

}  // namespace
