// The fixture of the device-API system tests: the same test body runs against the device
// model through both transports of ipudrv's public API, chosen by the test parameter:
//   InProcess  "config:<config>": the model elaborated in this test process;
//   Serve      "unix:<socket>": an `ipusim serve` child process on a scratch socket.
// SystemC elaborates once per process, so a test opens one config (gtest_discover_tests
// runs every case in its own process). The firmware console is off in both.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include "ipudrv/device.h"
#include "serve_child.h"

namespace devapi {

enum class Transport { kInProcess, kServe };

inline std::string transport_name(const ::testing::TestParamInfo<Transport>& p) {
  return p.param == Transport::kInProcess ? "InProcess" : "Serve";
}

inline std::string firmware(const std::string& name) { return std::string(IPUSIM_FIRMWARE_DIR) + "/" + name; }
inline ipudrv::Elf elf(const std::string& name) { return ipudrv::Elf::from_file(firmware(name)); }

// A socket path unique to this process and call, under the build tree's test folder.
inline std::string scratch_socket(const std::string& tag) {
  static std::atomic<int> n{0};
  return ::testing::TempDir() + "devapi-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++) +
         ".sock";
}

template <class T>
std::span<const std::byte> bytes_of(const T& v) {
  return std::as_bytes(std::span(&v, 1));
}
template <class T>
std::span<std::byte> writable_bytes_of(T& v) {
  return std::as_writable_bytes(std::span(&v, 1));
}

class DeviceApiTest : public ::testing::TestWithParam<Transport> {
 protected:
  void SetUp() override {
    ::setenv("IPUSIM_CONSOLE", "none", 1);
    ::setenv("IPUSIM_THREADS", "1", 1);
  }

  void TearDown() override {
    if (server_ && server_->pid() > 0) {  // a test that killed it has checked what it wanted
      const int status = server_->stop();
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "ipusim serve ended with wait status " << status << ": " << server_->stderr_text();
      server_.reset();
    }
  }

  // The locator of board 0 of `config` through this test's transport (for the Serve
  // transport, the server is started here).
  const std::string& start(const std::string& config) {
    config_ = config;
    if (GetParam() == Transport::kInProcess) {
      locator_ = "config:" + config;
    } else {
      server_ = std::make_unique<ServeChild>(config, scratch_socket("serve"));
      locator_ = "unix:" + server_->socket();
    }
    return locator_;
  }
  // Opens board 0 of `config` through this test's transport.
  std::unique_ptr<ipudrv::Device> open(const std::string& config, const ipudrv::OpenOptions& o = {}) {
    return ipudrv::open(start(config), 0, o);
  }

  bool serve() const { return GetParam() == Transport::kServe; }
  ServeChild* server() { return server_.get(); }
  const std::string& locator() const { return locator_; }
  const std::string& config() const { return config_; }

 private:
  std::unique_ptr<ServeChild> server_;
  std::string locator_, config_;
};

#define DEVAPI_TRANSPORTS(suite)                                                                            \
  INSTANTIATE_TEST_SUITE_P(DeviceApi, suite,                                                                 \
                           ::testing::Values(::devapi::Transport::kInProcess, ::devapi::Transport::kServe), \
                           ::devapi::transport_name)

// The device runs a kernel to a clean halt (after an error, an abort, a budget): load
// allreduce (the load resets), run it, check its result word.
inline void expect_device_runs_a_kernel(ipudrv::Device& dev) {
  dev.load(elf("allreduce.elf"));
  EXPECT_EQ(dev.error_registers().code, 0u) << "reset (or the load's own reset) clears ERR_*";
  const auto r = dev.run(0, std::chrono::seconds(60));
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  uint32_t magic = 0;
  dev.read_symbol(0, 0, "kc_result", writable_bytes_of(magic));
  EXPECT_EQ(magic, 0x4B524553u);  // KC_RESULT_MAGIC
}

// Runs `fn`, expects exception E (with `says` in its message, if given), returns its
// device registers (or none).
template <class E, class Fn>
std::optional<ipudrv::DeviceErrorInfo> expect_error(Fn&& fn, const std::string& says = "") {
  try {
    fn();
  } catch (const E& e) {
    if (!says.empty()) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    return e.device_error();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected " << typeid(E).name() << ", got " << typeid(e).name() << ": " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << "expected " << typeid(E).name() << ", nothing thrown";
  return std::nullopt;
}

}  // namespace devapi
