// The gdb stub's packets over a real TCP socket against the fake target: a test client
// plays gdb (rsp_client.h). Every wait is bounded; a harness cancels the server.
#include "debug/gdb_server.h"

#include <gtest/gtest.h>

#include <cstring>

#include "debug/rsp_connection.h"
#include "debug/target_xml.h"
#include "rsp_client.h"

namespace ipusim::debug::testing {
namespace {

using End = GdbServerResult::End;
constexpr const char* kGdbFeatures = "qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vContSupported+";

// A connected client past the handshake gdb does first.
struct Session : ::testing::Test {
  ServerHarness h;
  std::unique_ptr<RspClient> c;
  void SetUp() override {
    ASSERT_FALSE(h.listen_error) << *h.listen_error;
    c = std::make_unique<RspClient>(h.server.port());
    ASSERT_TRUE(c->connected());
    std::string reply = c->ask(kGdbFeatures);
    ASSERT_NE(reply.find("multiprocess+"), std::string::npos) << reply;
  }
  std::string hex(std::string_view s) { return rsp::to_hex(s); }
};

TEST(GdbServer, ListensOnLoopbackAndSaysWhere) {
  ServerHarness h(200ms);
  ASSERT_FALSE(h.listen_error);
  EXPECT_NE(h.server.port(), 0);
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::TimedOut);
  EXPECT_NE(h.log.str().find("ipusim: gdb: listening on 127.0.0.1:" + std::to_string(h.server.port()) + "\n"),
            std::string::npos)
      << h.log.str();
}

TEST(GdbServer, APortInUseIsAClearError) {
  ServerHarness first(2000ms);
  ASSERT_FALSE(first.listen_error);
  FakeTarget target;
  std::ostringstream log;
  GdbServerOptions o;
  o.port = first.server.port();
  o.log = &log;
  GdbServer second(target, o);
  auto error = second.listen();
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("cannot listen on 127.0.0.1:" + std::to_string(o.port)), std::string::npos) << *error;
  EXPECT_NE(error->find("in use"), std::string::npos) << *error;
  // serve() reports it too, and does not wait.
  auto r = second.serve();
  EXPECT_EQ(r.end, End::Error);
}

TEST(GdbServer, ACancelEndsTheWaitForGdb) {
  ServerHarness h(0ms);  // no timeout: only the cancel ends it
  ASSERT_FALSE(h.listen_error);
  h.cancel = true;
  auto r = h.finish(3000ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Cancelled);
}

TEST_F(Session, SupportedFeatures) {
  std::string reply = c->ask(kGdbFeatures);
  for (const char* f : {"PacketSize=4000", "qXfer:features:read+", "qXfer:threads:read+", "multiprocess+",
                        "vContSupported+", "QStartNoAckMode+", "swbreak+", "hwbreak+"})
    EXPECT_NE(reply.find(f), std::string::npos) << f << " in " << reply;
}

TEST_F(Session, AcksBadChecksumsAndResendsOnNack) {
  c->send_raw("$?#00");  // wrong checksum
  EXPECT_EQ(c->read_raw(300ms), "-");
  c->send_raw(rsp::frame("qC"));
  std::string raw = c->read_raw(300ms);
  EXPECT_EQ(raw, "+" + rsp::frame("QCp1.1"));
  c->send_raw("-");  // gdb did not get it: the same packet again
  EXPECT_EQ(c->read_raw(300ms), rsp::frame("QCp1.1"));
  c->send_raw("+");
}

TEST_F(Session, ExecFileOnlyWhenTheTargetKnowsIt) {
  EXPECT_EQ(c->ask(kGdbFeatures).find("exec-file"), std::string::npos);
  EXPECT_EQ(c->ask("qXfer:exec-file:read:1:0,100"), "E00");
  h.target.elf_path = "/fw/kernel.elf";
  EXPECT_NE(c->ask(kGdbFeatures).find(";qXfer:exec-file:read+"), std::string::npos);
  EXPECT_EQ(c->ask("qXfer:exec-file:read:2:0,100"), "l/fw/kernel.elf");
  EXPECT_EQ(c->ask("qXfer:exec-file:read::0,4"), "m/fw/");  // empty annex: the selected IPU
  EXPECT_EQ(c->ask("qXfer:exec-file:read:3:0,100"), "E00");  // no IPU 2
}

TEST_F(Session, NoAckModeStopsAcks) {
  c->send(std::string("QStartNoAckMode"));
  EXPECT_EQ(c->read_raw(300ms), "+" + rsp::frame("OK"));
  c->send_raw("+");
  c->set_no_ack();
  c->send_raw(rsp::frame("qC"));
  EXPECT_EQ(c->read_raw(300ms), rsp::frame("QCp1.1"));  // no '+' before it
}

TEST_F(Session, InitialStopAndCurrentThread) {
  EXPECT_EQ(c->ask("?"), "T05thread:p1.1;");
  EXPECT_EQ(c->ask("qC"), "QCp1.1");
  EXPECT_EQ(c->ask("qAttached:1"), "1");
  EXPECT_EQ(c->ask("qSymbol::"), "OK");
  EXPECT_EQ(c->ask("qSomethingNew"), "");
  EXPECT_EQ(c->ask("vMustReplyEmpty"), "");
}

TEST_F(Session, ThreadListsAndNames) {
  EXPECT_EQ(c->ask("qfThreadInfo"), "mp1.1,p1.2,p1.3c,p2.1");
  EXPECT_EQ(c->ask("qsThreadInfo"), "l");
  std::string xml;
  for (uint64_t off = 0;;) {
    std::string part = c->ask("qXfer:threads:read::" + rsp::hex(off) + ",40");
    ASSERT_FALSE(part.empty());
    xml += part.substr(1);
    off += part.size() - 1;
    if (part[0] == 'l') break;
    ASSERT_EQ(part[0], 'm');
  }
  EXPECT_NE(xml.find("<thread id=\"p1.3c\" name=\"tile 7 w3\">running</thread>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<thread id=\"p2.1\" name=\"tile 0 supervisor\">"), std::string::npos) << xml;
  EXPECT_EQ(c->ask("qThreadExtraInfo,p1.3c"), hex("running"));
  EXPECT_EQ(c->ask("Tp1.3c"), "OK");
  EXPECT_EQ(c->ask("Tp1.3d"), "E01");  // tile 7 worker 4: no such thread
  EXPECT_EQ(c->ask("Tp3.1"), "E01");
}

TEST_F(Session, TargetDescriptionInChunks) {
  std::string xml;
  for (uint64_t off = 0;;) {
    std::string part = c->ask("qXfer:features:read:target.xml:" + rsp::hex(off) + ",200");
    ASSERT_FALSE(part.empty());
    xml += part.substr(1);
    off += part.size() - 1;
    if (part[0] == 'l') break;
  }
  EXPECT_EQ(xml, target_xml(h.target.csrs()));
  EXPECT_EQ(c->ask("qXfer:features:read:other.xml:0,100"), "E00");
}

TEST_F(Session, RegistersOfTheSelectedThread) {
  EXPECT_EQ(c->ask("Hgp1.3c"), "OK");  // IPU 0, tile 7, worker 3
  std::string g = c->ask("g");
  ASSERT_EQ(g.size(), 33u * 8);
  EXPECT_EQ(g.substr(0, 8), "00000000");                // x0
  EXPECT_EQ(g.substr(8, 8), rsp::le32_hex(0x00070301));  // ra = 0xIITTSSNN
  EXPECT_EQ(g.substr(32 * 8), rsp::le32_hex(0x40200));   // pc: the third thread's loop
  EXPECT_EQ(c->ask("p20"), rsp::le32_hex(0x40200));
  float f3;
  uint32_t bits = h.target.thread_state[2].f[3];
  std::memcpy(&f3, &bits, 4);
  EXPECT_EQ(f3, 3.5f);
  EXPECT_EQ(c->ask("p24"), rsp::le32_hex(bits));                  // f3 = 33 + 3
  EXPECT_EQ(c->ask("p" + rsp::hex(65 + 0xcc0)), rsp::le32_hex(7));  // CSR tile
  EXPECT_EQ(c->ask("p" + rsp::hex(65 + 0xcc2)), rsp::le32_hex(3));  // CSR thread
  EXPECT_EQ(c->ask("p" + rsp::hex(65 + 0x123)), "E01");             // not described
  EXPECT_EQ(c->ask("Pa=" + rsp::le32_hex(0xdeadbeef)), "OK");
  EXPECT_EQ(h.target.thread_state[2].x[10], 0xdeadbeefu);
  EXPECT_EQ(c->ask("P" + rsp::hex(65 + 0xcc0) + "=" + rsp::le32_hex(1)), "E01");  // read-only
  // G: every general register and pc at once.
  std::string all;
  for (uint32_t r = 0; r < 33; ++r) all += rsp::le32_hex(r == 32 ? 0x40210 : 0x1000 + r);
  EXPECT_EQ(c->ask("G" + all), "OK");
  EXPECT_EQ(h.target.thread_state[2].x[5], 0x1005u);
  EXPECT_EQ(h.target.thread_state[2].pc, 0x40210u);
  EXPECT_EQ(c->ask("Gxyz"), "E01");
  // Another process's thread, and a thread that does not exist.
  EXPECT_EQ(c->ask("Hgp2.1"), "OK");
  EXPECT_EQ(c->ask("p1"), rsp::le32_hex(0x01000001));
  EXPECT_EQ(c->ask("Hgp1.3d"), "E01");
  EXPECT_EQ(c->ask("Hgp1.-1"), "OK");  // any thread of IPU 0: its first
  EXPECT_EQ(c->ask("p1"), rsp::le32_hex(0x00000001));
  EXPECT_EQ(c->ask("Hg0"), "OK");
}

TEST_F(Session, MemoryOfTheSelectedThreadsTile) {
  EXPECT_EQ(c->ask("M40100,4:01020304"), "OK");
  EXPECT_EQ(c->ask("m40100,4"), "01020304");
  // Binary write with bytes the framing reserves.
  EXPECT_EQ(c->ask(std::string("X40104,4:}#$*", 13)), "OK");
  EXPECT_EQ(c->ask("m40104,4"), "7d23242a");
  EXPECT_EQ(c->ask("X40104,0:"), "OK");  // gdb's probe
  // Per tile: tile 7 of IPU 0 does not see tile 0's bytes.
  EXPECT_EQ(c->ask("Hgp1.3c"), "OK");
  EXPECT_EQ(c->ask("m40100,4"), "00000000");
  // Outside SRAM.
  EXPECT_EQ(c->ask("m0,4"), "E01");
  EXPECT_EQ(c->ask("m7fffe,4"), "E01");
  EXPECT_EQ(c->ask("M0,1:00"), "E01");
  EXPECT_EQ(c->ask("M40100,2:00"), "E01");  // length and data disagree
  EXPECT_EQ(c->ask("mzz,4"), "E01");
  // A read larger than a packet is cut to what fits; gdb asks again for the rest.
  std::string big = c->ask("m40000,10000");
  EXPECT_EQ(big.size(), 2u * (0x4000 / 2 - 16));
}

TEST_F(Session, BreakpointsAndWatchpointsGoToTheSelectedIpu) {
  EXPECT_EQ(c->ask("Z0,40010,4"), "OK");
  EXPECT_EQ(c->ask("Hgp2.1"), "OK");
  EXPECT_EQ(c->ask("Z1,40020,2"), "OK");
  EXPECT_EQ(h.target.breakpoints, (std::set<std::pair<uint32_t, uint32_t>>{{0, 0x40010}, {1, 0x40020}}));
  EXPECT_EQ(c->ask("z1,40020,2"), "OK");
  EXPECT_EQ(c->ask("Z0,10,4"), "E01");  // outside the tile
  EXPECT_EQ(c->ask("Hgp1.1"), "OK");
  EXPECT_EQ(c->ask("Z2,50000,4"), "OK");
  EXPECT_EQ(c->ask("Z3,50010,2"), "OK");
  EXPECT_EQ(c->ask("Z4,50020,1"), "OK");
  EXPECT_EQ(h.target.watchpoints.size(), 3u);
  EXPECT_TRUE(h.target.watchpoints.count({0, WatchKind::Read, 0x50010, 2}));
  EXPECT_TRUE(h.target.watchpoints.count({0, WatchKind::Access, 0x50020, 1}));
  EXPECT_EQ(c->ask("z3,50010,2"), "OK");
  EXPECT_EQ(h.target.watchpoints.size(), 2u);
  EXPECT_EQ(c->ask("Z9,0,0"), "");
}

TEST_F(Session, VContActionsBecomeResumes) {
  EXPECT_EQ(c->ask("vCont?"), "vCont;c;C;s;S");
  EXPECT_EQ(c->ask("vCont;s:p1.3c"), "T05thread:p1.3c;");
  EXPECT_EQ(c->ask("vCont;s:p1.2;c"), "T05thread:p1.2;");
  EXPECT_EQ(c->ask("vCont;S05:p1.1;C05:p1.-1"), "T05thread:p1.1;");
  ASSERT_EQ(h.target.resumes.size(), 3u);
  EXPECT_EQ(h.target.resumes[0].step, (ThreadRef{0, 7, 3}));
  EXPECT_FALSE(h.target.resumes[0].others);
  EXPECT_EQ(h.target.resumes[1].step, (ThreadRef{0, 0, 1}));
  EXPECT_TRUE(h.target.resumes[1].others);
  EXPECT_EQ(h.target.resumes[2].step, (ThreadRef{0, 0, 0}));
  EXPECT_TRUE(h.target.resumes[2].others);
  EXPECT_EQ(h.target.thread_state[2].pc, 0x40204u);  // stepped once
  EXPECT_EQ(c->ask("vCont;s:p1.3d"), "E01");
  EXPECT_EQ(c->ask("vCont;t"), "");
  // A breakpoint ahead of thread 1: continue stops there, naming the thread.
  EXPECT_EQ(c->ask("Z0,40010,4"), "OK");
  EXPECT_EQ(c->ask("vCont;c"), "T05thread:p1.1;swbreak:;");
  EXPECT_FALSE(h.target.resumes.back().step);
  EXPECT_TRUE(h.target.resumes.back().others);
  EXPECT_EQ(h.target.thread_state[0].pc, 0x40010u);
  // The legacy packets: s steps the Hc thread, c runs everything.
  EXPECT_EQ(c->ask("Hcp1.3c"), "OK");
  EXPECT_EQ(c->ask("s"), "T05thread:p1.3c;");
  EXPECT_EQ(h.target.resumes.back().step, (ThreadRef{0, 7, 3}));
  EXPECT_EQ(c->ask("z0,40010,4"), "OK");
  EXPECT_EQ(c->ask("Z2,50000,4"), "OK");
  EXPECT_EQ(c->ask("c"), "T05thread:p1.1;watch:50000;");
  EXPECT_EQ(h.target.thread_state[0].pc, FakeTarget::kStorePc);
}

TEST_F(Session, ContinuingOneThreadRunsOnlyItsTile) {
  // gdb's software single-step over a breakpoint: vCont;c:T alone.
  EXPECT_EQ(c->ask("Z0,40104,4"), "OK");
  EXPECT_EQ(c->ask("vCont;c:p1.2"), "T05thread:p1.2;swbreak:;");
  ASSERT_EQ(h.target.resumes.size(), 1u);
  EXPECT_EQ(h.target.resumes[0].only, (ThreadRef{0, 0, 1}));
  EXPECT_FALSE(h.target.resumes[0].step);
  EXPECT_EQ(c->ask("vCont;c:p1.-1"), "T05thread:p1.2;swbreak:;");
  EXPECT_FALSE(h.target.resumes[1].only);  // a whole IPU named: everything runs
}

TEST_F(Session, ScriptedStopReplies) {
  StopEvent read_watch;
  read_watch.kind = StopEvent::Kind::Watchpoint;
  read_watch.thread = {0, 7, 3};
  read_watch.watch = WatchKind::Read;
  read_watch.address = 0x50010;
  StopEvent access = read_watch;
  access.watch = WatchKind::Access;
  StopEvent catch_sync;
  catch_sync.kind = StopEvent::Kind::Catch;
  catch_sync.thread = {1, 0, 0};
  catch_sync.text = "tile 0 reached sync 4";
  h.target.script = {read_watch, access, catch_sync};
  EXPECT_EQ(c->ask("vCont;c"), "T05thread:p1.3c;rwatch:50010;");
  EXPECT_EQ(c->ask("vCont;c"), "T05thread:p1.3c;awatch:50010;");
  c->send("vCont;c");
  EXPECT_EQ(c->receive(), "O" + hex("tile 0 reached sync 4\n"));
  EXPECT_EQ(c->receive(), "T05thread:p2.1;");
  // The stop selects the stopped thread for registers.
  EXPECT_EQ(c->ask("p1"), rsp::le32_hex(0x01000001));
}

TEST_F(Session, CtrlCInterruptsARunningTarget) {
  h.target.block_until_interrupt = true;
  c->send("vCont;c");
  EXPECT_FALSE(c->receive(200ms));  // still running
  c->send_raw("\x03");
  EXPECT_EQ(c->receive(3000ms), "T02thread:p1.1;");
}

TEST_F(Session, AFaultThenEveryProcessTerminates) {
  EXPECT_EQ(c->ask("qfThreadInfo"), "mp1.1,p1.2,p1.3c,p2.1");  // gdb knows both IPUs
  StopEvent fault;
  fault.kind = StopEvent::Kind::Fault;
  fault.thread = {0, 7, 3};
  fault.text = "tile 7 w3: misaligned load at pc 0x40204";
  h.target.script = {fault};
  c->send("vCont;c");
  EXPECT_EQ(c->receive(), "O" + hex("tile 7 w3: misaligned load at pc 0x40204\n"));
  EXPECT_EQ(c->receive(), "T0bthread:p1.3c;");
  // Registers and memory stay readable after the fault.
  EXPECT_EQ(c->ask("p1"), rsp::le32_hex(0x00070301));
  EXPECT_EQ(c->ask("vCont;c"), "X0b;process:1");
  EXPECT_EQ(c->ask("vCont;c"), "X0b;process:2");
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::RunOver);
}

TEST_F(Session, ALongFaultTextComesInPiecesThatFitAPacket) {
  StopEvent fault;
  fault.kind = StopEvent::Kind::Fault;
  fault.thread = {0, 0, 0};
  fault.text = std::string(10000, 'x');
  h.target.script = {fault};
  c->send("vCont;c");
  std::string text;
  for (;;) {
    auto p = c->receive();
    ASSERT_TRUE(p);
    if ((*p)[0] != 'O') {
      EXPECT_EQ(*p, "T0bthread:p1.1;");
      break;
    }
    EXPECT_LE(p->size(), 0x4000u);
    auto bytes = rsp::from_hex(p->substr(1));
    ASSERT_TRUE(bytes);
    text.append(bytes->begin(), bytes->end());
  }
  EXPECT_EQ(text, std::string(10000, 'x') + "\n");
}

TEST_F(Session, TheRunExitsOneProcessAtATime) {
  EXPECT_EQ(c->ask("qfThreadInfo"), "mp1.1,p1.2,p1.3c,p2.1");
  StopEvent exited;
  exited.kind = StopEvent::Kind::Exited;
  exited.thread = {1, 0, 0};
  exited.exit_code = 3;
  h.target.script = {exited};
  EXPECT_EQ(c->ask("vCont;c"), "W03;process:2");
  EXPECT_EQ(c->ask("vCont;c"), "W03;process:1");
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::RunOver);
}

TEST_F(Session, MonitorCatchCommands) {
  c->send("qRcmd," + hex("catch sync 5"));
  EXPECT_EQ(c->receive(), "O" + hex("catch sync of ipu 0 tile 5\n"));
  EXPECT_EQ(c->receive(), "OK");
  ASSERT_EQ(h.target.catches_.size(), 1u);
  EXPECT_EQ(h.target.catches_[0].tile, 5u);
  c->send("qRcmd," + hex("catch exchange"));
  EXPECT_EQ(c->receive(), "O" + hex("catch exchange of any tile\n"));
  EXPECT_EQ(c->receive(), "OK");
  EXPECT_EQ(h.target.catches_.size(), 2u);
  c->send("qRcmd," + hex("catch none"));
  c->receive();
  EXPECT_EQ(c->receive(), "OK");
  EXPECT_TRUE(h.target.catches_.empty());
  c->send("qRcmd," + hex("help"));
  auto help = c->receive();
  ASSERT_TRUE(help);
  auto text = rsp::from_hex(help->substr(1));
  ASSERT_TRUE(text);
  EXPECT_NE(std::string(text->begin(), text->end()).find("catch exchange [TILE]"), std::string::npos);
  EXPECT_EQ(c->receive(), "OK");
}

TEST_F(Session, DetachLetsTheRunFinish) {
  EXPECT_EQ(c->ask("Z0,40010,4"), "OK");
  c->send("qRcmd," + hex("catch sync"));
  c->receive();
  c->receive();
  h.target.max_instructions = 1000;
  EXPECT_EQ(c->ask("D;1"), "OK");
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Detached);
  // The breakpoint and the catch were taken out, and the run went to its end.
  EXPECT_TRUE(h.target.breakpoints.empty());
  EXPECT_TRUE(h.target.catches_.empty());
  ASSERT_FALSE(h.target.resumes.empty());
  EXPECT_GT(h.target.thread_state[0].pc + h.target.thread_state[1].pc, 0u);
}

TEST_F(Session, DetachingOneIpuKeepsDebuggingTheOther) {
  EXPECT_EQ(c->ask("qfThreadInfo"), "mp1.1,p1.2,p1.3c,p2.1");  // gdb knows both IPUs
  EXPECT_EQ(c->ask("D;1"), "OK");
  EXPECT_TRUE(h.target.resumes.empty());  // nothing runs yet: IPU 1 is still debugged
  EXPECT_EQ(c->ask("Hgp2.1"), "OK");
  EXPECT_EQ(c->ask("p1"), rsp::le32_hex(0x01000001));
  EXPECT_EQ(c->ask("D;2"), "OK");
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Detached);
  EXPECT_FALSE(h.target.resumes.empty());
  EXPECT_EQ(c->ask("D;zz"), "<no reply>");
}

TEST_F(Session, KillEndsTheSession) {
  EXPECT_EQ(c->ask("vKill;1"), "OK");
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Killed);
  EXPECT_TRUE(c->peer_closed(2000ms));
}

TEST_F(Session, LegacyKillHasNoReply) {
  c->send("k");
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Killed);
}

TEST_F(Session, ADroppedConnectionEndsTheSession) {
  c->close();
  auto r = h.finish();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Disconnected);
  EXPECT_NE(h.log.str().find("session over: disconnected"), std::string::npos) << h.log.str();
}

TEST_F(Session, ADroppedConnectionWhileRunningStopsTheTarget) {
  h.target.block_until_interrupt = true;
  c->send("vCont;c");
  EXPECT_FALSE(c->receive(200ms));
  c->close();
  auto r = h.finish(3000ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Disconnected);
}

TEST_F(Session, ACancelWhileRunningStopsTheTarget) {
  h.target.block_until_interrupt = true;
  c->send("vCont;c");
  EXPECT_FALSE(c->receive(200ms));
  h.cancel = true;
  auto r = h.finish(3000ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, End::Cancelled);
}

}  // namespace
}  // namespace ipusim::debug::testing
