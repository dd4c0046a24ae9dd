// The console of a served device seen from a raw wire client (wire 2.2): a client that
// does not ask leaves the console to the server; SET_CONSOLE CLIENT gets every line, in
// order, a long one in pieces joined again, announced by CONSOLE_PENDING; a full queue
// holds the device until the client reads; DROP counts; and a client leaving releases a
// device that waits on the queue (docs/host_driver.md, "Console").
#include <ipu/hostif_regs.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "driver_backend.h"
#include "raw_client.h"

namespace drvtest {
namespace {

using ipusim::host_if::ConsoleLine;
using namespace std::chrono_literals;

// A fake board with a console: print() hands lines to the handler the server installed,
// the way the model does (holding its console while the handler waits).
class ConsoleDevice : public fakedev::FakeDevice {
 public:
  void set_console_handler(ConsoleHandler handler) override {
    std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
  }
  bool has_handler() {
    std::lock_guard lock(mutex_);
    return bool(handler_);
  }
  void print(const std::vector<ConsoleLine>& lines) {
    std::lock_guard lock(mutex_);
    for (const ConsoleLine& l : lines)
      if (handler_) handler_(l);
  }

 private:
  std::mutex mutex_;
  ConsoleHandler handler_;
};

class ServeConsole : public ::testing::Test {
 protected:
  ConsoleDevice device;
  std::string path = scratch_socket("con");
  ServerThread server{device, path};

  void route(RawClient& c, wire::ConsoleRoute r) {
    const auto m = c.request(wire::SetConsole{r, 0});
    ASSERT_TRUE(m && std::holds_alternative<wire::Ok>(m->body));
  }
  // CONSOLE_READ until `want` lines came (or 10 s passed): pieces joined into lines.
  std::vector<ConsoleLine> read_lines(RawClient& c, size_t want, uint64_t* dropped = nullptr) {
    std::vector<ConsoleLine> out;
    std::optional<ConsoleLine> partial;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (out.size() < want && std::chrono::steady_clock::now() < deadline) {
      const auto m = c.request(wire::ConsoleRead{0});
      if (!m || !std::holds_alternative<wire::ConsoleLines>(m->body)) {
        ADD_FAILURE() << "CONSOLE_READ not answered with CONSOLE_LINES";
        break;
      }
      const auto& r = std::get<wire::ConsoleLines>(m->body);
      if (dropped) *dropped = r.dropped;
      for (const wire::ConsoleRecord& rec : r.records) {
        if (!partial) partial = ConsoleLine{rec.ipu, rec.tile, rec.thread, {}};
        partial->text += rec.text;
        if (!rec.continued) out.push_back(*std::exchange(partial, std::nullopt));
      }
      if (r.records.empty()) std::this_thread::sleep_for(1ms);
    }
    return out;
  }
};

TEST_F(ServeConsole, AClientThatDoesNotAskLeavesTheConsoleToTheServer) {
  RawClient c(path);
  c.send(1, wire::Hello{wire::kVersionMajor, 1, "a 2.1 client"});
  ASSERT_TRUE(c.reply().has_value());
  EXPECT_EQ(c.read32(IPU_REG_ID), IPU_ID_MAGIC);
  EXPECT_FALSE(device.has_handler()) << "the server took the console nobody asked for";
  // Nothing waits for such a client: CONSOLE_READ answers no lines.
  const auto m = c.request(wire::ConsoleRead{0});
  ASSERT_TRUE(m && std::holds_alternative<wire::ConsoleLines>(m->body));
  EXPECT_TRUE(std::get<wire::ConsoleLines>(m->body).records.empty());
}

TEST_F(ServeConsole, LinesReachTheClientWholeAndInOrder) {
  RawClient c(path);
  ASSERT_EQ(c.hello(), 1u);
  route(c, wire::ConsoleRoute::kClient);
  EXPECT_TRUE(device.has_handler());
  const std::vector<ConsoleLine> lines = {
      {0, 1, 0, "first"}, {1, 2, 3, std::string(1300, 'x')}, {0, 0, 0, ""}, {2, 3, 1, "last"}};
  device.print(lines);
  const auto pending = c.next();
  ASSERT_TRUE(pending && std::holds_alternative<wire::ConsolePending>(pending->body));
  EXPECT_EQ(read_lines(c, lines.size()), lines);
  // Back to the server: the handler goes.
  route(c, wire::ConsoleRoute::kServer);
  EXPECT_FALSE(device.has_handler());
}

TEST_F(ServeConsole, AFullQueueHoldsTheDeviceUntilTheClientReads) {
  RawClient c(path);
  ASSERT_EQ(c.hello(), 1u);
  route(c, wire::ConsoleRoute::kClient);
  std::vector<ConsoleLine> lines;
  for (uint32_t i = 0; i < 400; ++i) lines.push_back({0, i % 4, 0, std::to_string(i) + std::string(1000, '.')});
  auto printing = std::async(std::launch::async, [&] { device.print(lines); });  // 400 KB: more than the queue
  EXPECT_EQ(printing.wait_for(200ms), std::future_status::timeout) << "the device printed past a full queue";
  EXPECT_EQ(read_lines(c, lines.size()), lines);
  EXPECT_EQ(printing.wait_for(5s), std::future_status::ready);
}

TEST_F(ServeConsole, DropCountsAndALeavingClientReleasesAWaitingDevice) {
  {
    RawClient c(path);
    ASSERT_EQ(c.hello(), 1u);
    route(c, wire::ConsoleRoute::kDrop);
    device.print({{0, 0, 0, "a"}, {0, 0, 0, "b"}, {0, 1, 0, "c"}});  // nobody collects: returns at once
    uint64_t dropped = 0;
    EXPECT_TRUE(read_lines(c, 0, &dropped).empty());
    const auto m = c.request(wire::ConsoleRead{0});
    ASSERT_TRUE(m && std::holds_alternative<wire::ConsoleLines>(m->body));
    EXPECT_EQ(std::get<wire::ConsoleLines>(m->body).dropped, 3u);

    route(c, wire::ConsoleRoute::kClient);
    std::vector<ConsoleLine> lines(400, ConsoleLine{0, 0, 0, std::string(1000, '.')});
    auto printing = std::async(std::launch::async, [&] { device.print(lines); });
    ASSERT_EQ(printing.wait_for(100ms), std::future_status::timeout);
    c.finish();  // the client goes without reading
    EXPECT_EQ(printing.wait_for(5s), std::future_status::ready) << "the device still waits for a client that left";
  }
  EXPECT_FALSE(device.has_handler()) << "the session's end gives the console back to the server";
}

}  // namespace
}  // namespace drvtest
