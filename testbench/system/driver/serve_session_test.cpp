// The server of `ipusim serve` seen from a raw wire client: socket creation rules,
// validation answered with ERROR (never a crash), one client at a time, fd passing (the
// device's DMA lands in the client's memfd), a client vanishing mid-run leaves the
// device reset and reusable, and SIGTERM removes the socket (child process).
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
#include <random>
#include <thread>

#include "driver_backend.h"
#include "fd_passing.h"
#include "socket_path.h"
#include "wire_protocol.h"

namespace drvtest {
namespace {

namespace wire = ipusim::wire;

class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send_bytes(const std::vector<uint8_t>& b, int fd = -1) { ASSERT_TRUE(wire::send_all(fd_, b, fd)); }
  void send(uint32_t seq, wire::Body body, int fd = -1) { send_bytes(wire::encode({seq, std::move(body)}), fd); }
  // The next message, or nullopt when the server closed the connection (or 5 s passed).
  std::optional<wire::Message> next() {
    for (;;) {
      auto d = wire::decode(buf_);
      if (d.status == wire::Decoded::Status::kMessage) {
        buf_.erase(buf_.begin(), buf_.begin() + long(d.consumed));
        return d.message;
      }
      if (d.status == wire::Decoded::Status::kInvalid) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return std::nullopt;
      uint8_t chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return std::nullopt;
      buf_.insert(buf_.end(), chunk, chunk + n);
    }
  }
  // The next reply, skipping INTERRUPT messages (counted: they are unsolicited and may
  // come before the reply to the write that caused them).
  std::optional<wire::Message> reply() {
    for (;;) {
      auto m = next();
      if (!m || !std::holds_alternative<wire::Interrupt>(m->body)) return m;
      ++interrupts_skipped_;
    }
  }
  uint32_t interrupts_skipped() const { return interrupts_skipped_; }
  bool closed_by_server() { return !next().has_value(); }
  // Ends our side and waits for the server to close its side (its session is over).
  void finish() {
    ::shutdown(fd_, SHUT_WR);
    while (next().has_value()) {
    }
  }
  void hello() {
    send(1, wire::Hello{1, 0, "raw"});
    auto m = reply();
    ASSERT_TRUE(m && std::holds_alternative<wire::HelloReply>(m->body));
  }
  uint32_t read32(uint32_t off) {
    send(++seq_, wire::Read32{off});
    auto m = reply();
    EXPECT_TRUE(m && std::holds_alternative<wire::Read32Reply>(m->body));
    return m ? std::get<wire::Read32Reply>(m->body).value : 0xDEAD;
  }
  void write32(uint32_t off, uint32_t v) {
    send(++seq_, wire::Write32{off, v});
    auto m = reply();
    EXPECT_TRUE(m && std::holds_alternative<wire::Ok>(m->body));
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::vector<uint8_t> buf_;
  uint32_t seq_ = 100;
  uint32_t interrupts_skipped_ = 0;
};

wire::ErrorCode error_code(const std::optional<wire::Message>& m) {
  if (!m || !std::holds_alternative<wire::Error>(m->body)) return wire::ErrorCode(0);
  return std::get<wire::Error>(m->body).code;
}

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

TEST(ServeProcess, SigtermStopsTheServerAndRemovesTheSocket) {
  const std::string path = scratch_socket("proc");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(FAKE_SERVE_BIN, FAKE_SERVE_BIN, path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool up = false;
  for (int i = 0; i < 500 && !up; ++i) {
    struct stat st {};
    up = ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(up) << "fake_serve did not create " << path;
  {
    auto dev = ipudrv::open("unix:" + path);
    EXPECT_EQ(dev->info().tiles_per_ipu, 4u);
  }
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "socket left behind";
}

}  // namespace
}  // namespace drvtest
