// The server of `ipusim serve` seen from a raw wire client: socket creation rules,
// validation answered with ERROR (never a crash), one client at a time, fd passing (the
// device's DMA lands in the client's memfd), a client vanishing mid-run leaves the
// device reset and reusable, a system of several boards on one socket (board indices
// routed, a board past the system's an ERROR that names it), a peer of another protocol
// major refused as such, and SIGTERM removes the socket (child process).
#include <fcntl.h>
#include <ipu/hostif_regs.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "child_process.h"
#include "driver_backend.h"
#include "fd_passing.h"
#include "raw_client.h"
#include "socket_path.h"
#include "wire_protocol.h"

namespace drvtest {
namespace {

namespace proc = ipusim::proc;

wire::ErrorCode error_code(const std::optional<wire::Message>& m) {
  if (!m || !std::holds_alternative<wire::Error>(m->body)) return wire::ErrorCode(0);
  return std::get<wire::Error>(m->body).code;
}

std::string error_text(const std::optional<wire::Message>& m);

class Serve : public ::testing::Test {
 protected:
  fakedev::FakeDevice device;
  std::string path = scratch_socket("sv");
};

TEST_F(Serve, SocketIsOwnerOnlyWhateverTheUmask) {
  const mode_t old = ::umask(0);
  {
    ServerThread s(device, path);
    struct stat st {};
    ASSERT_EQ(::lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  ::umask(old);
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "the socket is removed when the server goes";
}

TEST_F(Serve, RefusesToReplaceAFileOrALiveServer) {
  std::ofstream(path) << "precious";
  try {
    ipusim::serve::DeviceServer s(device, path);
    FAIL();
  } catch (const ipusim::serve::SocketPathError& e) {
    EXPECT_NE(std::string(e.what()).find("not a socket"), std::string::npos) << e.what();
  }
  std::string content;
  std::ifstream(path) >> content;
  EXPECT_EQ(content, "precious");
  ::unlink(path.c_str());

  ServerThread live(device, path);
  EXPECT_THROW(ipusim::serve::DeviceServer(device, path), ipusim::serve::SocketPathError);
}

TEST_F(Serve, ReplacesAStaleSocket) {
  const int fd = ipusim::serve::listen_on(path);
  ::close(fd);  // a server that died without removing its socket
  ServerThread s(device, path);
  RawClient c(path);
  ASSERT_TRUE(c.connected());
  c.hello();
}

TEST_F(Serve, RequestsBeforeHelloAreRefused) {
  ServerThread s(device, path);
  RawClient c(path);
  c.send(1, wire::Read32{IPU_REG_ID});
  EXPECT_EQ(error_code(c.next()), wire::ErrorCode::kNotHello);
  EXPECT_TRUE(c.closed_by_server());
}

// A message only the server sends (a reply, INTERRUPT, ...) is no request: refused by
// name, and the client dropped; the next client is served.
TEST_F(Serve, AServerMessageFromTheClientIsRefusedAsNoRequest) {
  ServerThread s(device, path);
  const std::vector<std::pair<wire::Body, std::string>> cases = {
      {wire::Ok{}, "OK is not a request"},
      {wire::Interrupt{1, 0}, "INTERRUPT is not a request"},
      {wire::LinkStatsReply{0, {}}, "LINK_STATS_REPLY is not a request"},
  };
  for (const auto& [body, says] : cases) {
    RawClient c(path);
    c.hello();
    c.send(7, body);
    const auto m = c.next();
    EXPECT_EQ(error_code(m), wire::ErrorCode::kMalformed) << says;
    EXPECT_EQ(error_text(m), says);
    EXPECT_TRUE(c.closed_by_server()) << says;
  }
  RawClient good(path);
  good.hello();
  EXPECT_EQ(good.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

TEST_F(Serve, InvalidFramesGetAnErrorAndTheServerServesTheNextClient) {
  ServerThread s(device, path);
  const std::vector<std::vector<uint8_t>> bad = {
      {'G', 'E', 'T', ' ', '/'},                                    // not a frame
      [] { auto f = wire::encode({1, wire::Read32{0x2000}}); return f; }(),  // offset beyond BAR0
      [] { auto f = wire::encode({1, wire::Write32{0, 0}}); f[6] = 99; return f; }(),  // unknown type
      [] { auto f = wire::encode({1, wire::Ok{}}); f[12] = 0xFF; f[13] = 0xFF; return f; }(),  // huge payload
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    RawClient c(path);
    if (i != 0) c.hello();
    c.send_bytes(bad[i]);
    const auto m = c.next();
    EXPECT_EQ(error_code(m), wire::ErrorCode::kMalformed) << "case " << i;
    if (m && std::holds_alternative<wire::Error>(m->body)) {
      EXPECT_FALSE(std::get<wire::Error>(m->body).text.empty());
    }
    EXPECT_TRUE(c.closed_by_server()) << "case " << i;
  }
  RawClient good(path);
  good.hello();
  EXPECT_EQ(good.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

TEST_F(Serve, RandomBytesNeverKillTheServer) {
  ServerThread s(device, path);
  std::mt19937 rng(42);
  for (int i = 0; i < 50; ++i) {
    RawClient c(path);
    if (i % 2) c.hello();
    std::vector<uint8_t> junk(1 + rng() % 200);
    for (auto& b : junk) b = uint8_t(rng());
    if (i % 3 == 0) {  // a valid header with random payload
      auto f = wire::encode({7, wire::Map{0x100000000, 4096, 0}});
      std::copy(junk.begin(), junk.begin() + std::min<size_t>(junk.size(), 24), f.begin() + 16);
      junk = f;
    }
    c.send_bytes(junk);
    c.finish();
  }
  RawClient after(path);
  after.hello();
  EXPECT_EQ(after.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

TEST_F(Serve, AClientThatNeverSaysHelloIsDroppedAndTheNextIsServed) {
  ipusim::serve::ServerOptions o;
  o.hello_timeout = std::chrono::milliseconds(200);
  ServerThread s(device, path, o);
  RawClient silent(path);
  ASSERT_TRUE(silent.connected());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_code(silent.next()), wire::ErrorCode::kNotHello);  // then the server closes it
  EXPECT_FALSE(silent.next());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  RawClient next(path);
  next.hello();
  EXPECT_EQ(next.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

// A client past HELLO that sends nothing with no run in progress is told why and dropped
// after ServerOptions::idle_timeout, and the device it left READY is reset for the next.
TEST_F(Serve, AClientThatHoldsTheDeviceIdleIsDroppedAndTheDeviceReset) {
  ipusim::serve::ServerOptions o;
  o.idle_timeout = std::chrono::milliseconds(300);
  ServerThread s(device, path, o);
  RawClient idle(path);
  idle.hello();
  idle.write32(IPU_REG_BOOT_TILE_COUNT, 1);
  idle.write32(IPU_REG_BOOT_ENTRY, 0x40000);
  idle.write32(IPU_REG_BOOT_CODE_BASE, 0x40000);
  idle.write32(IPU_REG_BOOT_CODE_SIZE, 4);
  idle.write32(IPU_REG_BOOT_CMD, 1);
  device.settle();
  // Taken before the last request: the server's idle time starts after it.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(idle.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_READY);
  const auto m = idle.reply();
  EXPECT_EQ(error_code(m), wire::ErrorCode::kIdle);
  EXPECT_NE(error_text(m).find("no request for 300 ms and no run in progress"), std::string::npos) << error_text(m);
  EXPECT_FALSE(idle.next()) << "the server closes the idle client";
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150)) << "not dropped at once";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(device.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_IDLE);
  EXPECT_EQ(device.read32(IPU_REG_BOOTED_TILES), 0u);
  RawClient next(path);
  next.hello();
  EXPECT_EQ(next.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

// A client that waits on a long run sends nothing, and is not idle: the run keeps it.
TEST_F(Serve, AClientWaitingOnALongRunIsNotIdle) {
  ipusim::serve::ServerOptions o;
  o.idle_timeout = std::chrono::milliseconds(200);
  ServerThread s(device, path, o);
  RawClient waiting(path);
  waiting.hello();
  device.script({fakedev::Step{fakedev::Step::Kind::kHang}});
  waiting.write32(IPU_REG_BOOT_TILE_COUNT, 1);
  waiting.write32(IPU_REG_BOOT_ENTRY, 0x40000);
  waiting.write32(IPU_REG_BOOT_CODE_BASE, 0x40000);
  waiting.write32(IPU_REG_BOOT_CODE_SIZE, 4);
  waiting.write32(IPU_REG_BOOT_CMD, 1);
  waiting.write32(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  device.settle();
  ASSERT_EQ(waiting.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_RUNNING);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // five idle timeouts
  EXPECT_EQ(waiting.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_RUNNING) << "dropped while its run went on";
  // The run ends (ABORT): from then on the client is idle, and dropped.
  waiting.write32(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
  device.settle();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_code(waiting.reply()), wire::ErrorCode::kIdle);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

// A run PAUSED between run(supersteps) calls, or waiting in STREAM_WAIT on the host's
// stream callback, is a run in progress: a client whose own work takes longer than the
// idle timeout keeps its run.
TEST_F(Serve, AClientWhoseRunIsPausedOrWaitsOnAStreamIsNotIdle) {
  ipusim::serve::ServerOptions o;
  o.idle_timeout = std::chrono::milliseconds(200);
  ServerThread s(device, path, o);
  RawClient client(path);
  client.hello();
  fakedev::Step stream_read{fakedev::Step::Kind::kStreamRead};
  stream_read.stream = 0;
  stream_read.bytes = 16;
  device.script({fakedev::Step{fakedev::Step::Kind::kPause}, stream_read, fakedev::Step{fakedev::Step::Kind::kHalt}});
  client.write32(IPU_REG_BOOT_TILE_COUNT, 1);
  client.write32(IPU_REG_BOOT_ENTRY, 0x40000);
  client.write32(IPU_REG_BOOT_CODE_BASE, 0x40000);
  client.write32(IPU_REG_BOOT_CODE_SIZE, 4);
  client.write32(IPU_REG_BOOT_CMD, 1);
  client.write32(IPU_REG_RUN_SUPERSTEPS, 1);
  client.write32(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  device.settle();
  ASSERT_EQ(client.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_PAUSED);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // five idle timeouts
  EXPECT_EQ(client.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_PAUSED) << "dropped while its run was paused";
  client.write32(IPU_REG_RUN_SUPERSTEPS, 0);
  client.write32(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  device.settle();
  ASSERT_EQ(client.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_STREAM_WAIT);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(client.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_STREAM_WAIT) << "dropped while its run waited on a stream";
}

// --idle-timeout 0: a client idle past any timeout keeps the device.
TEST_F(Serve, AZeroIdleTimeoutNeverDropsAClient) {
  ipusim::serve::ServerOptions o;
  o.idle_timeout = std::chrono::milliseconds(0);
  ServerThread s(device, path, o);
  RawClient client(path);
  client.hello();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(client.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

TEST_F(Serve, OneClientAtATime) {
  ServerThread s(device, path);
  RawClient first(path);
  first.hello();
  RawClient second(path);
  EXPECT_EQ(error_code(second.next()), wire::ErrorCode::kBusy);
  EXPECT_EQ(first.read32(IPU_REG_ID), IPU_ID_MAGIC);
}

int sized_memfd(size_t bytes) {
  const int fd = ::memfd_create("test", MFD_CLOEXEC);
  EXPECT_EQ(::ftruncate(fd, off_t(bytes)), 0);
  return fd;
}

TEST_F(Serve, MapPassesTheMemfdAndDmaLandsInClientMemory) {
  ServerThread s(device, path);
  RawClient c(path);
  c.hello();
  const int fd = sized_memfd(8192);
  auto* mem = static_cast<uint8_t*>(::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  c.send(2, wire::Map{0x100000000, 8192, 0}, fd);
  ::close(fd);
  auto m = c.reply();
  ASSERT_TRUE(m && std::holds_alternative<wire::Ok>(m->body));
  EXPECT_EQ(device.mappings(), 1u);
  // A MAP whose file is smaller than asked is refused, and the session goes on.
  const int small = sized_memfd(4096);
  c.send(3, wire::Map{0x200000000, 8192, 0}, small);
  ::close(small);
  EXPECT_EQ(error_code(c.reply()), wire::ErrorCode::kMapFailed);

  // Ring at bus 0x100000000, one descriptor: smem -> client memory at +4096.
  const char text[] = "written by the device";
  auto* ring = reinterpret_cast<ipu_dma_desc*>(mem);
  std::memcpy(mem + 4096, text, sizeof text);
  ring[0] = ipu_dma_desc{0x100000000 + 4096, 0x100, sizeof text, IPU_DMA_TARGET_SMEM, IPU_DESC_FLAG_IRQ, 0, 0, 0, 0, 0, 0};
  c.write32(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_DMA0_MASK | IPU_IRQ_STATUS_DMA1_MASK);
  c.write32(IPU_REG_DMA0_RING_LO, 0), c.write32(IPU_REG_DMA0_RING_HI, 1), c.write32(IPU_REG_DMA0_RING_SIZE, 1);
  c.write32(IPU_REG_DMA0_TAIL, 1);
  device.settle();
  EXPECT_EQ(ring[0].status, IPU_DESC_STATUS_OK);
  std::memset(mem + 4096, 0, 64);
  ring[0].status = IPU_DESC_STATUS_PENDING;
  c.write32(IPU_REG_DMA1_RING_LO, 0), c.write32(IPU_REG_DMA1_RING_HI, 1), c.write32(IPU_REG_DMA1_RING_SIZE, 1);
  c.write32(IPU_REG_DMA1_TAIL, 1);
  device.settle();
  EXPECT_EQ(ring[0].status, IPU_DESC_STATUS_OK);
  EXPECT_STREQ(reinterpret_cast<const char*>(mem + 4096), text) << "the device wrote the client's memory";
  // The interrupt of the descriptor's IRQ flag arrives as a message (possibly while a
  // reply above was awaited: the server sends it as soon as the device raises it).
  bool interrupted = c.interrupts_skipped() > 0;
  for (int i = 0; i < 3 && !interrupted; ++i) {
    c.send(50 + i, wire::Read32{IPU_REG_IRQ_STATUS});
    for (auto msg = c.next(); msg; msg = c.next()) {
      if (std::holds_alternative<wire::Interrupt>(msg->body)) interrupted = true;
      if (std::holds_alternative<wire::Read32Reply>(msg->body)) break;
    }
  }
  EXPECT_TRUE(interrupted);
  c.send(9, wire::Unmap{0x100000000});
  EXPECT_TRUE(std::holds_alternative<wire::Ok>(c.reply()->body));
  EXPECT_EQ(device.mappings(), 0u);
  c.send(10, wire::Unmap{0x100000000});
  EXPECT_EQ(error_code(c.reply()), wire::ErrorCode::kUnmapFailed);
  ::munmap(mem, 8192);
}

TEST_F(Serve, MapWithoutADescriptorIsRefused) {
  ServerThread s(device, path);
  RawClient c(path);
  c.hello();
  c.send(2, wire::Map{0x100000000, 4096, 0});
  EXPECT_EQ(error_code(c.next()), wire::ErrorCode::kMapFailed);
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(Serve, AClientVanishingMidRunLeavesTheDeviceResetAndReusable) {
  ServerThread s(device, path);
  {
    RawClient c(path);
    c.hello();
    const int fd = sized_memfd(4096);
    c.send(2, wire::Map{0x100000000, 4096, 0}, fd);
    ::close(fd);
    ASSERT_TRUE(std::holds_alternative<wire::Ok>(c.reply()->body));
    device.script({fakedev::Step{fakedev::Step::Kind::kHang}});
    c.write32(IPU_REG_BOOT_TILE_COUNT, 1);
    c.write32(IPU_REG_BOOT_ENTRY, 0x40000);
    c.write32(IPU_REG_BOOT_CODE_BASE, 0x40000);
    c.write32(IPU_REG_BOOT_CODE_SIZE, 4);
    c.write32(IPU_REG_BOOT_CMD, 1);
    c.write32(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
    device.settle();
    EXPECT_EQ(c.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_RUNNING);
  }  // the client closes its socket without BYE
  for (int i = 0; i < 500 && device.mappings() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(device.mappings(), 0u);
  EXPECT_EQ(device.read32(IPU_REG_STATUS) & 0xF, IPU_STATE_IDLE);
  EXPECT_EQ(device.read32(IPU_REG_BOOTED_TILES), 0u);
  // And the driver can use it again.
  auto dev = ipudrv::open("unix:" + path);
  std::vector<std::byte> b(16, std::byte{3}), back(16);
  dev->write_tile(0, 0, 0x40000, b);
  dev->read_tile(0, 0, 0x40000, back);
  EXPECT_EQ(back, b);
}

// ---- a system of several boards on one socket -------------------------------------------

std::string error_text(const std::optional<wire::Message>& m) {
  return m && std::holds_alternative<wire::Error>(m->body) ? std::get<wire::Error>(m->body).text : "";
}

// Two fake boards of one system (2 IPUs each, SYSTEM_IPUS 4), served as one.
class ServeSystem : public ::testing::Test {
 protected:
  static fakedev::Geometry board(uint32_t index) {
    fakedev::Geometry g;
    g.board_index = index;
    g.system_ipus = 4;
    return g;
  }
  fakedev::FakeDevice board0{board(0)}, board1{board(1)};
  std::string path = scratch_socket("sys");
  ServerThread server{{&board0, &board1}, path};
};

TEST_F(ServeSystem, EveryBoardIsReachedByItsIndexOverOneSession) {
  RawClient c(path);
  EXPECT_EQ(c.hello(), 2u) << "HELLO_REPLY gives the board count";
  EXPECT_EQ(c.read32(IPU_REG_BOARD_INDEX, 0), 0u);
  EXPECT_EQ(c.read32(IPU_REG_BOARD_INDEX, 1), 1u);
  c.write32(IPU_REG_RUN_SUPERSTEPS, 7, 1);
  EXPECT_EQ(board1.read32(IPU_REG_RUN_SUPERSTEPS), 7u) << "WRITE32 of board 1 reached board 1";
  EXPECT_EQ(board0.read32(IPU_REG_RUN_SUPERSTEPS), 0u) << "and not board 0";

  // Host memory belongs to the board it is MAPped to (its DMA reaches it).
  const int fd = sized_memfd(4096);
  c.send(2, wire::Map{0x100000000, 4096, 0, 1}, fd);
  ::close(fd);
  auto m = c.reply();
  ASSERT_TRUE(m && std::holds_alternative<wire::Ok>(m->body)) << error_text(m);
  EXPECT_EQ(board1.mappings(), 1u);
  EXPECT_EQ(board0.mappings(), 0u);
  c.send(3, wire::Unmap{0x100000000, 0});
  m = c.reply();
  EXPECT_EQ(error_code(m), wire::ErrorCode::kUnmapFailed) << "board 0 has no such mapping";
  EXPECT_NE(error_text(m).find("board 0"), std::string::npos) << error_text(m);

  // Board 1's interrupt arrives naming board 1: enable ERROR, then make board 1 record
  // one (an unaligned register read is the device's REG error).
  c.write32(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_ERROR_MASK, 1);
  // The INTERRUPT is posted as the device raises it: it may come before or after the
  // read's reply; a few more reads give it the time to come.
  std::optional<uint32_t> irq_board;
  c.send(4, wire::Read32{2, 1});
  for (int reads = 1; reads <= 3 && !irq_board; ++reads) {
    for (auto msg = c.next(); msg; msg = c.next()) {
      if (const auto* i = std::get_if<wire::Interrupt>(&msg->body)) irq_board = i->board;
      if (std::holds_alternative<wire::Read32Reply>(msg->body)) break;
    }
    if (!irq_board) c.send(uint32_t(4 + reads), wire::Read32{IPU_REG_ID, 1});
  }
  ASSERT_TRUE(irq_board.has_value()) << "no INTERRUPT";
  EXPECT_EQ(*irq_board, 1u);

  c.finish();  // the session ends: every board reset, every mapping gone
  EXPECT_EQ(board1.mappings(), 0u);
  EXPECT_EQ(board1.read32(IPU_REG_ERR_CODE), uint32_t(IPU_ERR_NONE)) << "board 1 was reset";
}

TEST_F(ServeSystem, ABoardPastTheSystemsIsAnErrorNamingItAndTheSessionGoesOn) {
  RawClient c(path);
  c.hello();
  const int fd = sized_memfd(4096);
  const std::vector<std::pair<const char*, wire::Body>> requests = {
      {"READ32: board 2", wire::Read32{IPU_REG_ID, 2}},
      {"WRITE32: board 3", wire::Write32{IPU_REG_CTRL, IPU_CTRL_RESET_MASK, 3}},
      {"MAP: board 2", wire::Map{0x100000000, 4096, 0, 2}},
      {"UNMAP: board 9", wire::Unmap{0x100000000, 9}},
      {"SET_TRACE: board 2", wire::SetTrace{"", 2}},
      {"SUPERSTEPS: board 16383", wire::Supersteps{0, 0, wire::kMaxBoards - 1}},
      {"SET_LINK_FAULTS: board 2", wire::SetLinkFaults{"none", 2}},
      {"LINK_STATS: board 4", wire::LinkStatsRequest{0, 4}},
  };
  uint32_t seq = 10;
  for (const auto& [says, body] : requests) {
    c.send(++seq, body, std::holds_alternative<wire::Map>(body) ? fd : -1);
    const auto m = c.reply();
    EXPECT_EQ(error_code(m), wire::ErrorCode::kNoBoard) << says;
    EXPECT_EQ(m ? m->seq : 0, seq) << says;
    EXPECT_NE(error_text(m).find(says), std::string::npos) << error_text(m);
    EXPECT_NE(error_text(m).find("the system has 2 board(s)"), std::string::npos) << error_text(m);
  }
  ::close(fd);
  EXPECT_EQ(board0.mappings() + board1.mappings(), 0u);
  EXPECT_EQ(c.read32(IPU_REG_BOARD_INDEX, 1), 1u) << "the session went on";
  // A board index no system has is malformed: the client is dropped.
  auto f = wire::encode({31, wire::Read32{IPU_REG_ID, 0}});
  f[16 + 2] = 0x01;  // board 65536
  c.send_bytes(f);
  const auto m = c.next();
  EXPECT_EQ(error_code(m), wire::ErrorCode::kMalformed);
  EXPECT_NE(error_text(m).find("board 65536"), std::string::npos) << error_text(m);
  EXPECT_TRUE(c.closed_by_server());
}

// Link faults a device refuses are its ERROR (the text is the device's), and the session
// goes on; a device without links has no figures.
TEST_F(ServeSystem, LinkFaultsTheDeviceRefusesAreAnErrorAndTheSessionGoesOn) {
  RawClient c(path);
  c.hello();
  c.send(2, wire::SetLinkFaults{"ber=1e-6", 1});
  const auto m = c.reply();
  EXPECT_EQ(error_code(m), wire::ErrorCode::kDevice);
  EXPECT_NE(error_text(m).find("injects no IPU-Link faults"), std::string::npos) << error_text(m);
  c.send(3, wire::LinkStatsRequest{0, 1});
  const auto f = c.reply();
  ASSERT_TRUE(f && std::holds_alternative<wire::LinkStatsReply>(f->body));
  EXPECT_EQ(std::get<wire::LinkStatsReply>(f->body).total, 0u);
  EXPECT_EQ(c.read32(IPU_REG_BOARD_INDEX, 1), 1u) << "the session went on";
}

TEST_F(ServeSystem, APeerOfAnotherMajorIsRefusedWithTheVersionError) {
  RawClient c(path);
  auto f = wire::encode({1, wire::Hello{wire::kVersionMajor, 0, "old"}});
  f[4] = 1;  // a major-1 client's frame
  c.send_bytes(f);
  const auto m = c.next();
  EXPECT_EQ(error_code(m), wire::ErrorCode::kVersion);
  EXPECT_NE(error_text(m).find("frame version 1"), std::string::npos) << error_text(m);
  EXPECT_TRUE(c.closed_by_server());
  RawClient next(path);
  EXPECT_EQ(next.hello(), 2u) << "the server serves the next client";
}

// The driver over the socket: one device of both boards, each board's DMA into its own
// host memory, interrupts told apart by board.
TEST_F(ServeSystem, TheDriverOpensOneDeviceOfEveryBoard) {
  auto dev = ipudrv::open("unix:" + path);
  EXPECT_EQ(dev->info().boards, 2u);
  EXPECT_EQ(dev->info().ipus, 4u);
  const std::vector<std::byte> a(64, std::byte{0x5A}), b(64, std::byte{0xA5});
  dev->write_tile(1, 3, 0x40000, a);  // board 0
  dev->write_tile(3, 3, 0x40000, b);  // board 1, its IPU 1
  EXPECT_EQ(board1.tile_bytes(1, 3, 0x40000, 64), std::vector<uint8_t>(64, 0xA5));
  EXPECT_EQ(board0.tile_bytes(1, 3, 0x40000, 64), std::vector<uint8_t>(64, 0x5A));
  std::vector<std::byte> back(64);
  dev->read_tile(3, 3, 0x40000, back);
  EXPECT_EQ(back, b);
  EXPECT_GT(board1.counters().interrupts, 0u) << "board 1's DMA completions were interrupts";
}

// fake_serve on `path` as a child (with `option`, and its standard input a pipe this
// process holds when `stdin_pipe`), once it listens; nullptr if it did not.
std::unique_ptr<proc::Child> start_fake_serve(const std::string& path, const char* option = nullptr,
                                              bool stdin_pipe = false) {
  proc::Command command = proc::Command::program({FAKE_SERVE_BIN, path});
  if (option) command.argv.push_back(option);
  command.in = stdin_pipe ? proc::Stream::pipe() : proc::Stream::inherit();
  command.out = command.err = proc::Stream::inherit();
  command.timeout_seconds = 600;  // the tests stop it; the Child kills one they did not
  auto child = std::make_unique<proc::Child>(command);
  for (int i = 0; i < 500 && child->started(); ++i) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return child;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return nullptr;
}

TEST(ServeProcess, SigtermStopsTheServerAndRemovesTheSocket) {
  const std::string path = scratch_socket("proc");
  const auto server = start_fake_serve(path);
  ASSERT_TRUE(server) << "fake_serve did not create " << path;
  {
    auto dev = ipudrv::open("unix:" + path);
    EXPECT_EQ(dev->info().tiles_per_ipu, 4u);
  }
  ASSERT_TRUE(server->send_signal(SIGTERM));
  const int status = server->wait().wait_status;
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "socket left behind";
}

// --exit-with-parent: the server ends (exit 0, socket removed) when its standard input,
// a pipe only its parent writes, reaches end of file, also with a client in session;
// bytes arriving on it change nothing.
TEST(ServeProcess, ExitWithParentEndsTheServerAtEndOfInput) {
  const std::string path = scratch_socket("parent");
  // Its standard input: a pipe only this process (its parent) holds the write end of.
  const auto server = start_fake_serve(path, "--exit-with-parent", true);
  ASSERT_TRUE(server) << "fake_serve did not create " << path;
  std::unique_ptr<ipudrv::Device> dev;
  for (int i = 0; i < 500 && !dev; ++i) {
    try {
      dev = ipudrv::open("unix:" + path);
    } catch (const ipudrv::TransportError&) {  // bound, not listening yet
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ASSERT_TRUE(dev) << "fake_serve did not listen on " << path;
  ASSERT_EQ(::write(server->stdin_fd(), "still here", 10), 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(server->ended()) << "input that is not its end changes nothing";
  EXPECT_EQ(dev->info().tiles_per_ipu, 4u);
  server->close_stdin();  // what the parent's end does to it
  const bool exited = server->ended_within(5);
  ASSERT_TRUE(exited) << "fake_serve outlived its input";
  const int status = server->wait().wait_status;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "socket left behind";
  EXPECT_THROW(dev->read_register(IPU_REG_ID), ipudrv::TransportError);
}

// SIGTERM, then the child's wait status within `limit`; a child still there is killed
// (SIGKILL) and the status says so.
int sigterm_and_wait(proc::Child& child, std::chrono::milliseconds limit) {
  child.send_signal(SIGTERM);
  if (!child.ended_within(limit.count() / 1000.0)) child.send_signal(SIGKILL);
  return child.wait().wait_status;
}

int raw_connect(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

// SIGTERM ends the server promptly with a client half-way through a message.
TEST(ServeProcess, SigtermEndsTheServerWithAClientHalfWayThroughAMessage) {
  const std::string path = scratch_socket("half");
  const auto server = start_fake_serve(path);
  ASSERT_TRUE(server);
  const int fd = raw_connect(path);
  ASSERT_TRUE(wire::send_all(fd, wire::encode({1, wire::Hello{wire::kVersionMajor, 0, "half"}})));
  const auto frame = wire::encode({2, wire::Write32{IPU_REG_CTRL, 0, 0}});
  ASSERT_TRUE(wire::send_all(fd, std::span(frame).first(frame.size() / 2)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the server has read the half
  const auto t0 = std::chrono::steady_clock::now();
  const int status = sigterm_and_wait(*server, std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "socket left behind";
  ::close(fd);
}

// A client that sends requests and never reads the replies fills its socket: the server
// must not wait on it (it waited for room for ever, deaf to SIGTERM).
TEST(ServeProcess, SigtermEndsTheServerWithAClientThatReadsNoReplies) {
  const std::string path = scratch_socket("deaf");
  const auto server = start_fake_serve(path);
  ASSERT_TRUE(server);
  const int fd = raw_connect(path);
  ASSERT_TRUE(wire::send_all(fd, wire::encode({1, wire::Hello{wire::kVersionMajor, 0, "deaf"}})));
  // READ32 requests, as many as the sockets take in a second: the replies back up.
  const auto request = wire::encode({2, wire::Read32{IPU_REG_ID, 0}});
  std::vector<uint8_t> burst;
  for (int i = 0; i < 1024; ++i) burst.insert(burst.end(), request.begin(), request.end());
  bool backed_up = false;  // the server took no more: its replies wait for us
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < until) {
    if (::send(fd, burst.data(), burst.size(), MSG_DONTWAIT | MSG_NOSIGNAL) > 0) continue;
    backed_up = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(backed_up);
  const auto t0 = std::chrono::steady_clock::now();
  const int status = sigterm_and_wait(*server, std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
  ::close(fd);
}

}  // namespace
}  // namespace drvtest
