// The real gdb (gdb-multiarch, batch mode) against the stub and the fake target: what a
// firmware developer types, and what gdb prints back. gdb runs under `timeout`, so a gdb
// that waits for ever fails the test instead of hanging it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <regex>

#include "child_process.h"
#include "rsp_client.h"
#include "test_elf.h"

namespace ipusim::debug::testing {
namespace {

constexpr const char* kGdb = "/usr/bin/gdb-multiarch";

// Runs gdb with `commands` against `port`; its stdout and stderr together.
// `osabi`: without an ELF, gdb-multiarch assumes GNU/Linux and single-steps in software
// (a breakpoint at the next pc); a bare-metal ELF, or `set osabi none`, makes it use
// vCont;s.
// `interrupt_after`: a SIGINT to gdb after that many seconds, as Ctrl-C at the terminal.
std::string run_gdb(uint16_t port, const std::string& commands, const std::string& osabi = "none",
                    double interrupt_after = 0, const std::string& connect = "target remote") {
  std::string dir = ::testing::TempDir();
  std::string script = dir + "gdb_e2e_" + std::to_string(port) + ".gdb";
  {
    std::ofstream out(script);
    out << "set pagination off\nset confirm off\nset width 0\n";
    if (osabi != "elf") out << "set architecture riscv:rv32\nset osabi " << osabi << "\n";
    out << connect << " 127.0.0.1:" << port << "\n" << commands;
  }
  std::string cmd = std::string("timeout -k 5 60 ") + kGdb + " -batch -nx -x " + script + " 2>&1";
  if (interrupt_after > 0) {
    // --foreground: timeout passes the SIGINT to gdb only, not again to its process
    // group; a second SIGINT makes gdb give up waiting and disconnect.
    cmd = std::string("timeout --foreground -k 5 60 ") + kGdb + " -batch -nx -x " + script + " 2>&1";
    cmd = "{ " + cmd + " & p=$!; sleep " + std::to_string(interrupt_after) + "; kill -INT $p; wait $p; }";
  }
  ipusim::proc::Command command = ipusim::proc::Command::shell(cmd);
  command.in = ipusim::proc::Stream::inherit();
  command.err = ipusim::proc::Stream::inherit();  // the script sends gdb's to stdout
  command.timeout_seconds = 90;                   // past timeout(1)'s 60 + 5
  const ipusim::proc::Outcome o = ipusim::proc::run(command);
  if (!o.started) return "<" + o.start_error + ">";
  std::string text = o.out;
  const int status = o.wait_status;
  text += "\n<exit " + std::to_string(status) + ">\n";
  return text;
}

class GdbE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kGdb, X_OK) != 0) GTEST_SKIP() << kGdb << " is not installed";
    ASSERT_FALSE(h.listen_error);
  }
  // The packets, when something failed (gdb's own output is in the failure's trace);
  // IPUSIM_GDB_E2E_VERBOSE=1 prints gdb's output always.
  void TearDown() override {
    if (HasFailure()) std::cerr << h.log.str();
  }
  std::string gdb(const std::string& commands, const std::string& osabi = "none", double interrupt_after = 0,
                  const std::string& connect = "target remote") {
    std::string out = run_gdb(h.server.port(), commands, osabi, interrupt_after, connect);
    if (std::getenv("IPUSIM_GDB_E2E_VERBOSE")) std::cerr << out;
    return out;
  }
  ServerHarness h{30000ms, true};
};

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST_F(GdbE2e, ThreadsRegistersMemoryBreakpointStepWatchpoint) {
  // A word the fake's tile 0 holds, for x/4wx.
  uint32_t words[4] = {0x11223344, 0xcafef00d, 0, 0xffffffff};
  std::memcpy(h.target.sram(0, 0).data() + 0x100, words, sizeof words);
  std::string out = gdb("info threads\n"
                            "info registers\n"
                            "x/4wx 0x40100\n"
                            "break *0x40010\n"
                            "continue\n"
                            "stepi\n"
                            "print/x $pc\n"
                            "watch *(int*)0x50000\n"
                            "continue\n"
                            "print/x $pc\n"
                            "info registers tile\n"
                            "detach\n");
  SCOPED_TRACE(out);
  // Threads of both IPUs (inferiors), with the target's names.
  EXPECT_TRUE(has(out, "Thread 1.1 \"tile 0 supervisor\""));
  EXPECT_TRUE(has(out, "Thread 1.60 \"tile 7 w3\""));
  // Registers the fake holds: 0xIITTSSNN.
  EXPECT_TRUE(std::regex_search(out, std::regex("ra\\s+0x1\\s")));
  EXPECT_TRUE(std::regex_search(out, std::regex("a0\\s+0xa\\s")));
  EXPECT_TRUE(std::regex_search(out, std::regex("pc\\s+0x40000\\s")));
  // Memory.
  EXPECT_TRUE(has(out, "0x40100:\t0x11223344\t0xcafef00d\t0x00000000\t0xffffffff"));
  // The breakpoint, the step, the watchpoint.
  EXPECT_TRUE(has(out, "Breakpoint 1 at 0x40010"));
  EXPECT_TRUE(std::regex_search(out, std::regex("Breakpoint 1, 0x0*40010 in")));
  EXPECT_TRUE(has(out, "$1 = 0x40014"));
  EXPECT_TRUE(has(out, "Hardware watchpoint 2: *(int*)0x50000"));
  EXPECT_TRUE(has(out, "Old value = 0"));
  EXPECT_TRUE(has(out, "New value = 1"));
  EXPECT_TRUE(has(out, "$2 = 0x40024"));
  EXPECT_TRUE(std::regex_search(out, std::regex("tile\\s+0x0\\s")));
  auto r = h.finish(10000ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, GdbServerResult::End::Detached);
}

TEST_F(GdbE2e, StepiWithSoftwareSingleStep) {
  // gdb-multiarch's default OS ABI without an ELF is GNU/Linux, which steps by putting a
  // breakpoint at the next pc and continuing one thread (vCont;c:p1.1).
  std::string out = gdb("break *0x40010\ncontinue\nstepi\nprint/x $pc\ndetach\n", "GNU/Linux");
  SCOPED_TRACE(out);
  EXPECT_TRUE(std::regex_search(out, std::regex("Breakpoint 1, 0x0*40010 in")));
  EXPECT_TRUE(has(out, "$1 = 0x40014"));
}

TEST_F(GdbE2e, AFaultIsASigsegvWithTheProblemText) {
  StopEvent fault;
  fault.kind = StopEvent::Kind::Fault;
  fault.thread = {0, 7, 3};
  fault.text = "ipu 0 tile 7 thread 3: misaligned load of 0x50001 at pc 0x40204";
  h.target.script = {fault};
  std::string out = gdb("continue\nprint/x $ra\ncontinue\n");
  SCOPED_TRACE(out);
  EXPECT_TRUE(has(out, "ipu 0 tile 7 thread 3: misaligned load of 0x50001 at pc 0x40204"));
  // gdb names the thread by its per-inferior number here (1.3), by the stub's id in
  // `info threads` ("Thread 1.60").
  EXPECT_TRUE(has(out, "Thread 1.3 \"tile 7 w3\" received signal SIGSEGV"));
  EXPECT_TRUE(has(out, "$1 = 0x70301"));  // the faulted thread's registers are readable
  EXPECT_TRUE(has(out, "Program terminated with signal SIGSEGV, Segmentation fault."));
}

TEST_F(GdbE2e, TheEndOfTheRunExitsEachInferior) {
  h.target.max_instructions = 100;
  std::string out = gdb("info threads\ncontinue\ninferior 2\ncontinue\n");
  SCOPED_TRACE(out);
  EXPECT_TRUE(has(out, "[New inferior 2]"));
  EXPECT_TRUE(has(out, "[Inferior 1 (process 1) exited normally]"));
  EXPECT_TRUE(has(out, "[Inferior 2 (process 2) exited normally]"));
  auto r = h.finish(10000ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, GdbServerResult::End::RunOver);
}

TEST_F(GdbE2e, MonitorCatchAndItsStop) {
  StopEvent caught;
  caught.kind = StopEvent::Kind::Catch;
  caught.thread = {0, 7, 3};
  caught.text = "ipu 0 tile 7 reached sync 2";
  h.target.script = {caught};
  std::string out = gdb("monitor catch sync 7\nmonitor catch\ncontinue\ndetach\ninferior 2\ndetach\n");
  SCOPED_TRACE(out);
  EXPECT_TRUE(has(out, "catch sync of ipu 0 tile 7"));
  EXPECT_TRUE(has(out, "ipu 0 tile 7 reached sync 2"));
  EXPECT_TRUE(has(out, "Thread 1.3 \"tile 7 w3\" received signal SIGTRAP"));
  ASSERT_FALSE(h.target.catch_calls.empty());
  ASSERT_EQ(h.target.catch_calls[0].size(), 1u);
  EXPECT_EQ(h.target.catch_calls[0][0].tile, 7u);
  EXPECT_TRUE(h.target.catches_.empty());  // the detach took it out
}

TEST_F(GdbE2e, ExtendedRemoteConnectsAndRunsToTheEnd) {
  h.target.max_instructions = 100;
  std::string out = gdb("info threads\ncontinue\n", "none", 0, "target extended-remote");
  SCOPED_TRACE(out);
  EXPECT_TRUE(has(out, "Thread 1.60 \"tile 7 w3\""));
  EXPECT_TRUE(has(out, "[Inferior 1 (process 1) exited normally]"));
}

TEST_F(GdbE2e, ExecFileGivesEveryInferiorTheElf) {
  // With qXfer:exec-file:read gdb loads the ELF into every inferior it adds, so the
  // architecture comes from the ELF (no `set architecture`) and IPU 1's registers read.
  testelf::Image image;
  image.code.assign(FakeTarget::kLoop, 0x00000013);  // nops over every thread's loop
  image.symbols = {{"loop0", 0x40000}, {"loop3", 0x40300}};
  auto bytes = testelf::build(image);
  std::string elf = ::testing::TempDir() + "gdb_e2e_fake.elf";
  std::ofstream(elf, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                             static_cast<std::streamsize>(bytes.size()));
  h.target.elf_path = elf;
  std::string out = gdb("info inferiors\ninferior 2\ninfo registers pc\ninferior 1\n"
                        "break *0x40010\ncontinue\ndetach\n",
                        "elf");
  SCOPED_TRACE(out);
  EXPECT_FALSE(has(out, "Truncated register"));
  EXPECT_TRUE(std::regex_search(out, std::regex("2 +process 2 .*gdb_e2e_fake\\.elf")));
  EXPECT_TRUE(std::regex_search(out, std::regex("pc +0x40300")));
  EXPECT_TRUE(std::regex_search(out, std::regex("Breakpoint 1, 0x0*40010 in")));
}

TEST_F(GdbE2e, CtrlCStopsARunningSystem) {
  h.target.block_until_interrupt = true;  // runs until interrupt(), 10 s at most
  std::string out = gdb("continue\nprint/x $pc\ndetach\n", "none", 1.5);
  SCOPED_TRACE(out);
  EXPECT_TRUE(has(out, "received signal SIGINT, Interrupt."));
  EXPECT_TRUE(has(out, "$1 = 0x40000"));
}

}  // namespace
}  // namespace ipusim::debug::testing
