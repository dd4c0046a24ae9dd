// The driver's setters swept over edge values, through both transports (docs/host_driver.md,
// "Errors"): set_link_faults with every SPEC key at 0, 1, -1, 2, fractions, huge, tiny,
// 2^64 - 1, 2^64, non-finite and empty values, link indices past the system's, empty
// items; RunOptions' budgets at 1, 2^32, 2^60, 2^64 - 5, 2^64 - 1. Each is refused at the
// call with a UsageError that names the item, or the device then runs the all-reduce
// ring over the IPU-Links to its end (or to a named device error, as a link the faults
// leave no way through gives): never an abort of this process or of `ipusim serve`.
#include <cstdint>
#include <string>
#include <vector>

#include "device_fixture.h"

namespace devapi {
namespace {

using namespace std::chrono_literals;

class SetterSweep : public DeviceApiTest {};

struct Tally {
  size_t refused = 0, ran = 0, run_errors = 0;
};

// Runs the ring; counts a clean end or a named device error; fails on anything else.
void run_ring(ipudrv::Device& dev, const std::string& what, Tally& t, const ipudrv::RunOptions& o = {}) {
  dev.load(elf("ipu_allreduce.elf"));
  ipudrv::RunOptions options = o;
  options.timeout = 60s;
  try {
    const auto r = dev.run(options);
    EXPECT_EQ(r.state, ipudrv::RunState::kHalted) << what;
    EXPECT_EQ(r.exit_code, 0) << what;
    ++t.ran;
  } catch (const ipudrv::TimeoutError& e) {
    ADD_FAILURE() << what << ": the run did not end within 60 s: " << e.what();
  } catch (const ipudrv::UsageError& e) {
    ADD_FAILURE() << what << ": accepted by the setter, refused by the run: " << e.what();
  } catch (const ipudrv::Error& e) {
    EXPECT_FALSE(std::string(e.what()).empty()) << what;
    ++t.run_errors;
  }
}

TEST_P(SetterSweep, LinkFaultsAreRefusedByNameOrRunToTheirEnd) {
  auto dev = open("configs/test/tiny4_m2000.yaml");
  const std::vector<std::string> keys = {"seed", "ber",      "periodic", "burst",    "drop",
                                         "drop_every", "dup", "dup_every", "ack_drop", "ack_drop_every"};
  const std::vector<std::string> values = {"0",   "1",     "-1",      "2",   "0.5",  "1e-5", "1e300", "1e-400",
                                           "nan", "inf",   "-inf",    "",    "1.5",  "18446744073709551615",
                                           "18446744073709551616", "3:1", "100:10:1000"};
  Tally t;
  for (const std::string& key : keys)
    for (const std::string& value : values) {
      const std::string item = key + "=" + value + (key == "seed" ? "" : ",seed=3");
      try {
        dev->set_link_faults(item);
      } catch (const ipudrv::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << item << ": " << e.what();
        ++t.refused;
        continue;
      }
      run_ring(*dev, "set_link_faults('" + item + "')", t);
    }
  for (const std::string items : {";", " ; ", "", "ber=1e-6;", "99:ber=1e-6", "-1:ber=1e-6", "18446744073709551616:ber=1e-6",
                                   "0:ber=1e-6;0:ber=1e-6", "ber=1e-6;ber=1e-6", "x", "=", "ber"}) {
    try {
      dev->set_link_faults(items);
    } catch (const ipudrv::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("link"), std::string::npos) << items << ": " << e.what();
      ++t.refused;
      continue;
    }
    run_ring(*dev, "set_link_faults('" + items + "')", t);
  }
  for (const char* empty : {";", " ; ", "", "ber=1e-6;"})
    expect_error<ipudrv::UsageError>([&] { dev->set_link_faults(empty); }, "an empty item");
  dev->set_link_faults("none");
  std::printf("set_link_faults: %zu refused by name, %zu ran to their end, %zu ended in a named device error\n",
              t.refused, t.ran, t.run_errors);
  EXPECT_GT(t.refused, 30u);
  EXPECT_GT(t.ran, 20u);
}

// Budgets near 2^64 are no limit (the ring ends by itself); small ones stop it by name.
TEST_P(SetterSweep, RunBudgetsNeverWrap) {
  auto dev = open("configs/test/tiny4_m2000.yaml");
  Tally t;
  for (const uint64_t n : {uint64_t(1) << 32, uint64_t(1) << 54, uint64_t(1) << 60, ~uint64_t(0) - 4, ~uint64_t(0)}) {
    run_ring(*dev, "max_cycles " + std::to_string(n), t, {.max_cycles = n});
    run_ring(*dev, "max_instructions " + std::to_string(n), t, {.max_instructions = n});
  }
  EXPECT_EQ(t.ran, 10u) << "a budget near 2^64 stopped the run";
  for (const uint64_t n : {uint64_t(1), uint64_t(1000)}) {
    dev->load(elf("ipu_allreduce.elf"));
    expect_error<ipudrv::BudgetError>([&] { dev->run(ipudrv::RunOptions{.max_cycles = n, .timeout = 60s}); },
                                      "budget of " + std::to_string(n) + " cycles");
  }
}

DEVAPI_TRANSPORTS(SetterSweep);

}  // namespace
}  // namespace devapi
