// The fixture every driver system test runs under, once per transport: the same test
// code opens its device in-process (config locator, through the device-model factory)
// and through `ipusim serve`'s server over a Unix socket.
//
// Today both back ends serve a FakeDevice (fake_device.h): the in-process one through
// set_system_factory_for_tests, the socket one with a DeviceServer on a thread of the
// test. When the device model lands, two more back ends join the list: the model
// in-process ("config:configs/<small>.yaml") and an `ipusim serve` child process; tests
// that script the fake are then restricted to the fake back ends with fake() != null.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "system_backend.h"
#include "device_server.h"
#include "fake_device.h"
#include "ipudrv/device.h"

namespace drvtest {

enum class Backend { kInProcess, kSocket };

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& p) {
  return p.param == Backend::kInProcess ? "InProcess" : "Socket";
}

// A socket path unique to this process and call, under the build tree's test folder.
inline std::string scratch_socket(const std::string& tag) {
  static std::atomic<int> n{0};
  return ::testing::TempDir() + "drv-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + ".sock";
}

// A DeviceServer on its own thread, stopped and joined on destruction.
class ServerThread {
 public:
  ServerThread(ipusim::host_if::DeviceLink& link, const std::string& path, ipusim::serve::ServerOptions o = {})
      : server_(link, path, o), thread_([this] { server_.run(); }) {}
  // The boards of one system on one socket.
  ServerThread(std::vector<ipusim::host_if::DeviceLink*> boards, const std::string& path,
               ipusim::serve::ServerOptions o = {})
      : server_(std::move(boards), path, o), thread_([this] { server_.run(); }) {}
  ~ServerThread() {
    server_.stop();
    thread_.join();
  }
  ipusim::serve::DeviceServer& server() { return server_; }

 private:
  ipusim::serve::DeviceServer server_;
  std::thread thread_;
};

// One simulated system of one fake board, for the in-process factory.
class FakeSystem : public ipudrv::detail::SystemBackend {
 public:
  explicit FakeSystem(std::shared_ptr<fakedev::FakeDevice> d) : d_(std::move(d)) {}
  size_t board_count() const override { return 1; }
  ipusim::host_if::DeviceLink& board_link(size_t) override { return *d_; }
  uint16_t serve_gdb(uint16_t) override { throw ipudrv::UsageError("the fake board has no debugger"); }
  void set_core_dir(const std::string&) override { throw ipudrv::UsageError("the fake board writes no cores"); }

 private:
  std::shared_ptr<fakedev::FakeDevice> d_;
};

class DriverTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    fake_ = std::make_shared<fakedev::FakeDevice>(geometry());
    if (GetParam() == Backend::kInProcess) {
      auto fake = fake_;
      ipudrv::detail::set_system_factory_for_tests([fake](const std::string& path) -> std::shared_ptr<ipudrv::detail::SystemBackend> {
        if (path != "fake-board.yaml") throw ipudrv::UsageError("test factory: unknown config " + path);
        return std::make_shared<FakeSystem>(fake);
      });
      locator_ = "config:fake-board.yaml";
    } else {
      const std::string path = scratch_socket("be");
      server_ = std::make_unique<ServerThread>(*fake_, path);
      locator_ = "unix:" + path;
    }
  }
  void TearDown() override {
    server_.reset();
    ipudrv::detail::set_system_factory_for_tests({});
  }
  virtual fakedev::Geometry geometry() const { return {}; }

  std::unique_ptr<ipudrv::Device> open(const ipudrv::OpenOptions& o = {}) { return ipudrv::open(locator_, 0, o); }
  fakedev::FakeDevice& fake() { return *fake_; }
  const std::string& locator() const { return locator_; }

 private:
  std::shared_ptr<fakedev::FakeDevice> fake_;
  std::unique_ptr<ServerThread> server_;
  std::string locator_;
};

}  // namespace drvtest
