// Whole runs of small in-memory programs on the platform: console order, exit codes,
// tile ranges, the ideal sync barrier (IPU and group), faults, deadlocks, the host
// socket, time keeping, the instruction trace and elaboration cost. Each case
// elaborates, so each runs in its own process.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "platform/platform.h"
#include "test_system.h"

namespace ipusim {
namespace {

using platform::Platform;
using platform::PlatformOptions;
using platform::RunResult;
using tile::TileState;
using namespace test;  // Asm, quiet_options, registers

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// "hello <tile in hex>\n", then halt with exit code tile * 7.
Asm hello_program() {
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.print("hello ");
  a.print_hex(a1);
  a.newline();
  a.slli(a2, a1, 3);
  a.sub(a2, a2, a1);  // 8 * tile - tile
  a.halt(a2);
  return a;
}

// The run's steps follow its state machine (common/run_state.h): once run, the platform is
// ended, and a second run() or a load() is an error naming the state and the event, not
// a silent no-op.
TEST(PlatformRun, ASecondRunOrALoadAfterTheRunIsARunStateError) {
  Platform platform(test::small_system(2, 1), quiet_options());
  EXPECT_EQ(platform.run_state(), RunState::Idle);
  platform.load(test::program(hello_program()));
  EXPECT_EQ(platform.run_state(), RunState::Loaded);
  EXPECT_EQ(platform.loaded_tiles(), 2u);
  const RunResult r = platform.run();
  EXPECT_EQ(r.end.kind, RunEndKind::Halted);
  EXPECT_EQ(platform.run_state(), RunState::Ended);
  EXPECT_EQ(platform.loaded_tiles(), 2u);  // the results still name them
  try {
    platform.run();
    ADD_FAILURE() << "a second run() was taken";
  } catch (const RunStateError& e) {
    EXPECT_EQ(e.state(), RunState::Ended);
    EXPECT_EQ(e.event(), RunEvent::Start);
  }
  try {
    platform.load(test::program(hello_program()));
    ADD_FAILURE() << "a load() after the run was taken";
  } catch (const RunStateError& e) {
    EXPECT_EQ(e.event(), RunEvent::Boot);
  }
  EXPECT_THROW(platform.finish_run(), RunStateError);  // no run in progress
  EXPECT_THROW(platform.hold_run(RunEndKind::Paused), RunStateError);
  platform.reset_run();  // one reset: no tile booted, the machine idle
  EXPECT_EQ(platform.run_state(), RunState::Idle);
  EXPECT_EQ(platform.loaded_tiles(), 0u);
}

TEST(PlatformRun, HelloPrintsOneLinePerTileInOrder) {
  const config::SystemConfig system = test::small_system(4, 2);
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  Platform platform(system, options);
  platform.load(test::program(hello_program()));
  const RunResult r = platform.run();

  EXPECT_FALSE(r.end.fault());
  EXPECT_FALSE(r.end.deadlock());
  EXPECT_EQ(out.text(),
            "[ipu 0 tile 0] hello 00000000\n[ipu 0 tile 1] hello 00000001\n"
            "[ipu 0 tile 2] hello 00000002\n[ipu 0 tile 3] hello 00000003\n"
            "[ipu 1 tile 0] hello 00000000\n[ipu 1 tile 1] hello 00000001\n"
            "[ipu 1 tile 2] hello 00000002\n[ipu 1 tile 3] hello 00000003\n");
  ASSERT_EQ(r.tiles.size(), 8u);
  EXPECT_EQ(r.ipus, 2u);
  EXPECT_EQ(r.console_lines, 8u);
  uint64_t sum = 0;
  for (const auto& t : r.tiles) {
    EXPECT_EQ(t.state, TileState::Halted);
    EXPECT_EQ(t.exit_code, int32_t(7 * t.tile));
    EXPECT_EQ(t.instructions, r.tiles[0].instructions) << "every tile runs the same path";
    // One thread issues once every 6 cycles.
    EXPECT_GE(t.cycles, 6 * (t.instructions - 1));
    EXPECT_LE(t.cycles, 6 * t.instructions + 6);
    sum += t.instructions;
  }
  EXPECT_EQ(r.instructions, sum);
  EXPECT_GT(r.instructions, 8u * 60);
  EXPECT_EQ(r.exit_status(), 7) << "tile 1 is the lowest with a non-zero code";
  // SystemC time ends at the last tile's halt, converted once from cycles.
  EXPECT_EQ(sc_core::sc_time_stamp(), TileClock(system.board.chip.clock_hz).time_of(r.tile_cycles));
  EXPECT_DOUBLE_EQ(r.simulated_seconds, double(r.tile_cycles) / 1.325e9);
}

TEST(PlatformRun, RawConsoleHasNoTags) {
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  options.console = platform::ConsoleMode::Raw;
  Platform platform(test::small_system(2), options);
  platform.load(test::program(hello_program()));
  platform.run();
  EXPECT_EQ(out.text(), "hello 00000000\nhello 00000001\n");
}

TEST(PlatformRun, TileSelectionRunsOnlyThoseTiles) {
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  Platform platform(test::small_system(8, 2), options);
  platform.load(test::program(hello_program()), platform::TileSelection::parse("1,5-6", 8));
  const RunResult r = platform.run();
  EXPECT_EQ(out.text(),
            "[ipu 0 tile 1] hello 00000001\n[ipu 0 tile 5] hello 00000005\n"
            "[ipu 0 tile 6] hello 00000006\n[ipu 1 tile 1] hello 00000001\n"
            "[ipu 1 tile 5] hello 00000005\n[ipu 1 tile 6] hello 00000006\n");
  ASSERT_EQ(r.tiles.size(), 6u);
  EXPECT_EQ(r.tiles[2].tile, 6u);
  EXPECT_EQ(platform.ipu(0).tile(0).state(), TileState::Idle);
  EXPECT_EQ(platform.ipu(0).tile(0).instructions(), 0u);
  EXPECT_EQ(r.exit_status(), 7);
}

// Each tile spins tile * 64 iterations, prints "a", syncs over `zone`, prints "b", halts.
Asm skewed_sync_program(uint32_t zone, bool skew_by_ipu = false) {
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.slli(a2, a1, 6);
  if (skew_by_ipu) {
    a.csrr(a3, IPU_CSR_IPU);
    a.slli(a3, a3, 12);
    a.add(a2, a2, a3);
  }
  a.spin(a2);
  a.print("a");
  a.newline();
  a.addi(a0, zero, int32_t(zone));
  a.sync(a0);
  a.print("b");
  a.newline();
  a.halt(zero);
  return a;
}

TEST(PlatformRun, IpuSyncReleasesEveryTileAfterTheSlowestArrival) {
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  const config::SystemConfig system = test::small_system(4);
  Platform platform(system, options);
  platform.load(test::program(skewed_sync_program(1)));
  const RunResult r = platform.run();
  ASSERT_FALSE(r.end.fault()) << *r.end.fault();
  ASSERT_FALSE(r.end.deadlock()) << *r.end.deadlock();
  // Superstep by superstep, tile by tile.
  EXPECT_EQ(out.text(),
            "[ipu 0 tile 0] a\n[ipu 0 tile 1] a\n[ipu 0 tile 2] a\n[ipu 0 tile 3] a\n"
            "[ipu 0 tile 0] b\n[ipu 0 tile 1] b\n[ipu 0 tile 2] b\n[ipu 0 tile 3] b\n");
  ASSERT_EQ(r.tiles.size(), 4u);
  for (const auto& t : r.tiles) EXPECT_EQ(t.syncs, 1u);
  // Tiles at the same distance from the controller (0 and 3 at the ends, 1 and 2 in the
  // middle) are released together and run the same code after it.
  EXPECT_EQ(r.tiles[0].cycles, r.tiles[3].cycles);
  EXPECT_EQ(r.tiles[1].cycles, r.tiles[2].cycles);
  // Tile 3 spun 3 * 64 * 2 more instructions than tile 0 and arrived last, at an end of
  // the row: its sync costs exactly sync.latency_max_cycles (docs/sync.md).
  EXPECT_EQ(r.tiles[3].sync_stall_cycles, system.board.chip.sync.latency_max_cycles);
  EXPECT_GT(r.tiles[0].sync_stall_cycles, r.tiles[1].sync_stall_cycles);
  EXPECT_GE(r.tiles[0].sync_stall_cycles, 6u * 3 * 64 * 2);
  EXPECT_LT(r.tiles[0].instructions, r.tiles[3].instructions);
}

TEST(PlatformRun, GroupSyncSpansIpus) {
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  Platform platform(test::small_system(2, 2), options);
  platform.load(test::program(skewed_sync_program(2, /*skew_by_ipu=*/true)));
  const RunResult r = platform.run();
  ASSERT_FALSE(r.end.fault()) << *r.end.fault();
  ASSERT_FALSE(r.end.deadlock()) << *r.end.deadlock();
  ASSERT_EQ(r.tiles.size(), 4u);
  for (const auto& t : r.tiles) EXPECT_EQ(t.cycles, r.tiles[3].cycles);
  EXPECT_GE(r.tiles[0].sync_stall_cycles, 6u * 4096 * 2) << "IPU 0 waits for IPU 1";
  ASSERT_EQ(lines_of(out.text()).size(), 8u);
  EXPECT_EQ(lines_of(out.text())[4], "[ipu 0 tile 0] b");
}

TEST(PlatformRun, FaultStopsTheRunAndNamesTheTile) {
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.addi(a2, zero, 2);
  a.bne(a1, a2, "skip");  // only tile 2 takes the faulting load
  a.lw(a3, 0, zero);
  a.label("skip");
  a.li(a2, 100000);  // the other tiles would halt far later
  a.spin(a2);
  a.print("late");
  a.newline();
  a.halt(zero);
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  Platform platform(test::small_system(4), options);
  platform.load(test::program(a));
  const RunResult r = platform.run();

  ASSERT_TRUE(r.end.fault());
  EXPECT_FALSE(r.end.deadlock());
  EXPECT_NE(ipusim::to_text(*r.end.fault()).find("tile 2 (ipu 0)"), std::string::npos) << *r.end.fault();
  EXPECT_NE(ipusim::to_text(*r.end.fault()).find("access fault"), std::string::npos) << *r.end.fault();
  EXPECT_NE(ipusim::to_text(*r.end.fault()).find("pc 0x0004000c"), std::string::npos) << *r.end.fault();
  ASSERT_EQ(r.tiles.size(), 4u);
  EXPECT_EQ(r.tiles[2].state, TileState::Faulted);
  ASSERT_TRUE(r.tiles[2].fault);
  EXPECT_EQ(*r.tiles[2].fault, *r.end.fault());
  // The simulation stopped at the fault: no tile reached its (much later) halt time,
  // though its core ran ahead to it.
  EXPECT_EQ(r.tiles[0].state, TileState::Running);
  EXPECT_EQ(platform.ipu(0).tile(0).state(), TileState::Halted);
  // Cycles count only what simulated time reached, though tile 0's core ran ahead.
  EXPECT_EQ(r.tile_cycles, r.tiles[2].cycles);
  EXPECT_EQ(r.tiles[0].cycles, 0u);
  EXPECT_GT(r.tiles[0].instructions, 100000u);
  EXPECT_EQ(sc_core::sc_time_stamp(),
            TileClock(1.325e9).time_of(r.tiles[2].cycles));
}

TEST(PlatformRun, SyncThatNeverCompletesIsADeadlock) {
  Asm a;
  a.csrr(a1, IPU_CSR_TILE);
  a.beq(a1, zero, "skip");  // tile 0 halts without syncing
  a.addi(a0, zero, 1);
  a.sync(a0);
  a.label("skip");
  a.halt(zero);
  Platform platform(test::small_system(3), quiet_options());
  platform.load(test::program(a));
  const RunResult r = platform.run();
  EXPECT_FALSE(r.end.fault());
  ASSERT_TRUE(r.end.deadlock());
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("sync deadlock: 2 tile(s) wait"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("ipu 0 tile 1 (zone 1, since cycle"), std::string::npos) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("1 tile(s) never arrive: ipu 0 tile 0 (halted at cycle"), std::string::npos)
      << *r.end.deadlock();
  EXPECT_EQ(r.tiles[1].state, TileState::AtSync);
}

// Found by the issue's hostile user (issue 37): a budget stop of a multi-IPU hang where no
// tile computes said "0 tile(s) still running" and named no tile. The stop names the
// tiles that wait, where and on what (Platform::waiting_tiles, RunBudget::problem). The
// tiles here wait across IPUs in two zones (IPU 0 and tile 0 of IPU 1 at the group sync,
// tile 1 of IPU 1 at its IPU's sync); this one the sync controllers see as a deadlock, and
// the budget's text is checked on the same waiting tiles.
TEST(PlatformRun, ABudgetStopWithNoTileRunningNamesTheWaitingTiles) {
  Asm a;
  a.csrr(s0, IPU_CSR_IPU);
  a.csrr(s1, IPU_CSR_TILE);
  a.and_(s0, s0, s1);  // 1 only for tile 1 of IPU 1
  a.addi(t0, zero, IPU_SYNC_GROUP);
  a.beq(s0, zero, "sync");
  a.addi(t0, zero, IPU_SYNC_IPU);
  a.label("sync");
  a.sync(t0);
  a.halt(zero);
  Platform platform(test::small_system(2, 2), quiet_options());
  platform.budget().set_limits({.max_cycles = 200000});
  platform.load(test::program(a));
  const RunResult r = platform.run();
  ASSERT_TRUE(r.end.deadlock());
  ASSERT_TRUE(r.end.cycle);
  const std::vector<platform::WaitingTile> waiting = platform.waiting_tiles(*r.end.cycle);
  ASSERT_EQ(waiting.size(), 4u);
  EXPECT_EQ(waiting[3].ipu, 1u);
  EXPECT_EQ(waiting[3].tile, 1u);
  EXPECT_EQ(waiting[3].what, "at sync (zone 1)");
  EXPECT_EQ(waiting[0].what, "at sync (zone 2)");
  EXPECT_EQ(waiting[0].pc, waiting[3].pc);  // the one sync instruction
  platform::StopRequest stop;
  stop.kind = RunEndKind::Budget;
  stop.cycle = 200000;
  const Problem p = platform.budget().problem(stop, {}, 0, waiting);
  const std::string text = ipusim::to_text(p);
  EXPECT_NE(text.find("the run used up its budget of 200000 cycles with 0 tile(s) still running: 4 tile(s) wait, and "
                      "nothing they wait on can come: ipu 0 tile 0 at sync (zone 2) pc 0x"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; ipu 1 tile 1 at sync (zone 1) pc 0x"), std::string::npos) << text;
  EXPECT_EQ(p.ipu, 0u);
  EXPECT_EQ(p.tile, 0u);
  EXPECT_EQ(p.pc, waiting[0].pc);
}

// Drives a tile's host socket from outside.
struct HostInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<HostInitiator> socket{"socket"};
  explicit HostInitiator(sc_core::sc_module_name name) : sc_module(name) {}

  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, std::vector<uint8_t>& data,
                                  bool debug = false, unsigned* debug_bytes = nullptr,
                                  uint8_t* byte_enables = nullptr) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data.data());
    p.set_data_length(unsigned(data.size()));
    p.set_streaming_width(unsigned(data.size()));
    p.set_byte_enable_ptr(byte_enables);
    p.set_byte_enable_length(byte_enables ? unsigned(data.size()) : 0);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (debug) {
      *debug_bytes = socket->transport_dbg(p);
    } else {
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      socket->b_transport(p, delay);
    }
    return p.get_response_status();
  }
};

TEST(TileHostSocket, ReadsAndWritesSramWithTlmErrors) {
  Platform platform(test::small_system(2), quiet_options());
  platform.load(test::program(hello_program()), platform::TileSelection::parse("0", 2));
  HostInitiator host("host");
  HostInitiator idle_host("idle_host");
  host.socket.bind(platform.ipu(0).tile(0).mem_socket);
  idle_host.socket.bind(platform.ipu(0).tile(1).mem_socket);
  // Multi-sockets install their callbacks at the end of elaboration. Nothing runs: the
  // tiles start only in Platform::run().
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  const uint32_t addr = iss::kSramBase + 0x7000;
  std::vector<uint8_t> in{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(host.access(tlm::TLM_WRITE_COMMAND, addr, in), tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t> out(8, 0);
  unsigned n = 99;
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, addr, out, true, &n), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(n, 8u);
  EXPECT_EQ(out, in);
  // The program image is in SRAM: the first word is `csrr a1, tile`.
  std::vector<uint8_t> word(4);
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, iss::kSramBase, word), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(word, (std::vector<uint8_t>{0xf3, 0x25, 0x00, 0xcc}));

  std::vector<uint8_t> bytes(8);
  // Straddling the end of the 64 KiB SRAM, below it, and far beyond 32 bits.
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, iss::kSramBase + 64 * 1024 - 4, bytes),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(host.access(tlm::TLM_WRITE_COMMAND, 0x100, bytes), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, uint64_t(1) << 40, bytes),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  n = 99;
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, 0x100, bytes, true, &n),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(n, 0u);
  uint8_t enables[8] = {0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0};
  EXPECT_EQ(host.access(tlm::TLM_WRITE_COMMAND, addr, bytes, false, nullptr, enables),
            tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  // A tile with no program has no SRAM to reach.
  EXPECT_EQ(idle_host.access(tlm::TLM_READ_COMMAND, addr, bytes), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // The failed write changed nothing.
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, addr, out), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(out, in);
}

// The exchange fabric's direct path (docs/exchange.md, "Delivery"): a tile grants DMI
// where its b_transport would succeed, and ends the grants when its program goes.
struct DmiInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<DmiInitiator> socket{"socket"};
  int invalidations = 0;
  explicit DmiInitiator(sc_core::sc_module_name name) : sc_module(name) {
    socket.register_invalidate_direct_mem_ptr(this, &DmiInitiator::invalidate);
  }
  void invalidate(sc_dt::uint64, sc_dt::uint64) { ++invalidations; }
  bool ask(tlm::tlm_command cmd, uint64_t addr, tlm::tlm_dmi& dmi) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    return socket->get_direct_mem_ptr(p, dmi);
  }
};

TEST(TileHostSocket, GrantsDmiWhereItsAccessesSucceedAndEndsItOnUnboot) {
  Platform platform(test::small_system(2), quiet_options());
  platform.load(test::program(hello_program()), platform::TileSelection::parse("0", 2));
  DmiInitiator dmi_host("dmi_host");
  DmiInitiator idle_host("idle_host");
  HostInitiator host("host");
  dmi_host.socket.bind(platform.ipu(0).tile(0).mem_socket);
  host.socket.bind(platform.ipu(0).tile(0).mem_socket);
  idle_host.socket.bind(platform.ipu(0).tile(1).mem_socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const uint64_t top = iss::kSramBase + 64 * 1024 - 1;

  tlm::tlm_dmi read;
  ASSERT_TRUE(dmi_host.ask(tlm::TLM_READ_COMMAND, iss::kSramBase + 0x10, read));
  EXPECT_TRUE(read.is_read_allowed());
  EXPECT_FALSE(read.is_write_allowed());
  EXPECT_EQ(read.get_start_address(), iss::kSramBase);
  EXPECT_EQ(read.get_end_address(), top);
  EXPECT_EQ(std::vector<uint8_t>(read.get_dmi_ptr(), read.get_dmi_ptr() + 4),
            (std::vector<uint8_t>{0xf3, 0x25, 0x00, 0xcc}))
      << "the program's first word, `csrr a1, tile`";

  tlm::tlm_dmi write;
  ASSERT_TRUE(dmi_host.ask(tlm::TLM_WRITE_COMMAND, top, write));
  EXPECT_TRUE(write.is_write_allowed());
  EXPECT_GT(write.get_start_address(), iss::kSramBase) << "the code is not writable";
  EXPECT_EQ(write.get_end_address(), top);
  std::vector<uint8_t> refused(4);
  EXPECT_EQ(host.access(tlm::TLM_WRITE_COMMAND, write.get_start_address() - 4, refused),
            tlm::TLM_ADDRESS_ERROR_RESPONSE)
      << "the grant starts right after the code";
  const uint32_t addr = iss::kSramBase + 0x7000;
  const uint8_t in[4] = {9, 8, 7, 6};
  std::memcpy(write.get_dmi_ptr() + (addr - write.get_start_address()), in, 4);
  std::vector<uint8_t> out(4);
  EXPECT_EQ(host.access(tlm::TLM_READ_COMMAND, addr, out), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(out, (std::vector<uint8_t>{9, 8, 7, 6}));

  tlm::tlm_dmi none;
  EXPECT_FALSE(dmi_host.ask(tlm::TLM_WRITE_COMMAND, iss::kSramBase, none)) << "a write into code";
  EXPECT_FALSE(dmi_host.ask(tlm::TLM_READ_COMMAND, top + 1, none)) << "beyond SRAM";
  EXPECT_FALSE(idle_host.ask(tlm::TLM_READ_COMMAND, iss::kSramBase, none)) << "a tile with no SRAM";

  EXPECT_EQ(dmi_host.invalidations, 0);
  platform.ipu(0).tile(0).unboot();
  EXPECT_EQ(dmi_host.invalidations, 1) << "the program's grants end with it";
  platform.ipu(0).tile(0).unboot();
  EXPECT_EQ(dmi_host.invalidations, 1) << "no grant was out";
}

TEST(PlatformRun, InstructionTraceHasOneLinePerRetiredInstruction) {
  const std::string path = ::testing::TempDir() + "platform_run_itrace.txt";
  PlatformOptions options = quiet_options();
  options.itrace_path = path;
  options.disassemble = [](uint32_t, uint32_t insn) { return insn == 0x0606000b ? "HALT" : "insn"; };
  Platform platform(test::small_system(2), options);
  const Asm a = hello_program();
  platform.load(test::program(a));
  const RunResult r = platform.run();
  std::ifstream in(path);
  // ipu tile thread cycle pc <symbol> insn disasm [; effects]: this program has no symbols.
  const std::regex format(R"((\d+) (\d+) (\d+) (\d+) 0x([0-9a-f]{8}) <\?> 0x([0-9a-f]{8}) (\S+)( ; .*)?)");
  uint64_t count = 0;
  std::set<uint32_t> tiles;
  std::string last_disasm;
  for (std::string line; std::getline(in, line); ++count) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, format)) << line;
    EXPECT_EQ(m[1], "0");
    tiles.insert(uint32_t(std::stoul(m[2])));
    EXPECT_EQ(m[3], "0");
    const uint32_t pc = uint32_t(std::stoul(m[5], nullptr, 16));
    const uint32_t insn = uint32_t(std::stoul(m[6], nullptr, 16));
    ASSERT_GE(pc, Asm::kCodeBase);
    ASSERT_LT((pc - Asm::kCodeBase) / 4, a.code().size());
    EXPECT_EQ(insn, a.code()[(pc - Asm::kCodeBase) / 4]) << line;
    if (count == 0) {
      EXPECT_EQ(pc, Asm::kCodeBase);
    }
    last_disasm = m[7];
  }
  EXPECT_EQ(count, r.instructions);
  EXPECT_EQ(tiles, (std::set<uint32_t>{0, 1}));
  EXPECT_EQ(last_disasm, "HALT");
}

TEST(PlatformScale, Gc200SizedChipElaboratesQuicklyAndPrintsEveryTile) {
  config::SystemConfig system = test::small_system(1472, 1, 624 * 1024);
  test::CapturedFile out;
  PlatformOptions options;
  options.console_out = out.file();
  const auto start = std::chrono::steady_clock::now();
  Platform platform(system, options);
  platform.load(test::program(hello_program()));
  const double elaboration =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const RunResult r = platform.run();
  EXPECT_LT(elaboration, 2.0);
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 1472u);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), 1472u);
  EXPECT_EQ(lines[1471], "[ipu 0 tile 1471] hello 000005bf");
  EXPECT_EQ(r.tiles.size(), 1472u);
}

}  // namespace
}  // namespace ipusim
