// The RTL AMP array (hw/amp, Verilated) held bit for bit against the ISS's AMP
// (amp_math.h) on random operand sets rich in special values (amp_operands.h), f16 and
// f32, streamed through amp_top's handshakes with random gaps on the input and random
// back-pressure on the output: every result must come out once, in order, equal to the
// ISS's. Also: the latency and throughput hw/amp/README.md states, and hand-worked cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "Vamp_r16_vcd.h"
#include "amp_operands.h"
#include "amp_reference.h"
#include "cosim/amp/amp_pins.h"
#include "cosim/rtl_checks.h"
#include "verilated.h"

namespace ipusim::cosim::amp_test {
namespace {

using Model = Vamp_r16_vcd;
using Pins = amp::AmpPins<Model>;
constexpr uint32_t kRows = Pins::kRows;
constexpr uint32_t kLatency = 5;  // hw/amp/README.md

// The array on an RtlContext, as the platform's transactor has it: a failed assertion
// throws cosim::RtlCheckError at the edge, and a coverage build writes its coverage.
struct Dut {
  cosim::RtlContext ctx{"amp", "amp_equivalence_test"};
  std::unique_ptr<Model> m;
  uint64_t cycles = 0;
  ~Dut() {
    ctx.write_coverage();
    m->final();
  }
  Dut() : m(std::make_unique<Model>(ctx.get())) {
    m->clk_i = 0;
    m->in_valid_i = 0;
    m->out_ready_i = 0;
    m->rst_ni = 1;  // a falling edge whatever rst_ni started as (RandomInitialValues)
    m->eval();
    m->rst_ni = 0;
    m->eval();
    m->rst_ni = 1;
    m->eval();
  }
  // One cycle: inputs as set, combinational outputs settled, then the rising edge.
  // Returns (in handshake, out handshake) as sampled before the edge.
  std::pair<bool, bool> settle() {
    m->clk_i = 0;
    m->eval();
    return {m->in_valid_i && m->in_ready_o, m->out_valid_o && m->out_ready_i};
  }
  void edge() {
    m->clk_i = 1;
    m->eval();
    ctx.check(cycles);
    ++cycles;
  }
};

std::string describe(const MacOperands& op, uint32_t row) {
  const size_t b = op.f16 ? 2 : 4;
  auto hex = [&](const uint8_t* p) {
    uint32_t v = 0;
    std::memcpy(&v, p, b);
    return op.f16 ? fmt::format("{:04x}", v) : fmt::format("{:08x}", v);
  };
  std::string s = fmt::format("{} row {}: acc {:08x} W", op.f16 ? "f16" : "f32", row, op.acc[row]);
  for (uint32_t j = 0; j < 4; ++j) s += " " + hex(&op.w[(row * 4 + j) * b]);
  s += " x";
  for (uint32_t j = 0; j < 4; ++j) s += " " + hex(&op.x[j * b]);
  return s;
}

struct StreamResult {
  uint64_t transactions = 0, row_sets = 0, mismatches = 0, cycles = 0;
  std::string first_mismatch;
};

// `n` random amp.macs through the pipeline; p_valid / p_ready: the chance per cycle that
// the source offers a new transaction / the sink takes one.
StreamResult stream(bool f16, uint64_t n, uint64_t seed, double p_valid, double p_ready) {
  Dut dut;
  OperandSource source(seed);
  std::mt19937_64 coin(seed * 7919 + 1);
  std::bernoulli_distribution offer(p_valid), take(p_ready);
  std::deque<std::pair<MacOperands, std::vector<uint32_t>>> in_flight;
  StreamResult r;
  uint64_t sent = 0;
  bool offering = false;
  MacOperands next;
  const uint64_t bound = (n + kLatency + 1) * 64 + 1000;  // never hang: at p = 0.5 / 0.5, n * 4
  while (r.transactions < n) {
    if (dut.cycles > bound) {
      r.first_mismatch = fmt::format("no progress: {} of {} results after {} cycles", r.transactions, n, dut.cycles);
      ++r.mismatches;
      break;
    }
    if (!offering && sent < n && offer(coin)) {  // once offered, held until taken
      next = source.next(f16, kRows);
      Pins::drive(*dut.m, f16, 0, kRows, next.w.data(), next.x.data(), next.acc.data());
      offering = true;
    }
    dut.m->in_valid_i = offering;
    dut.m->out_ready_i = take(coin);
    const auto [in_fire, out_fire] = dut.settle();
    if (out_fire) {
      if (in_flight.empty()) {
        r.first_mismatch = "a result with no transaction in flight";
        ++r.mismatches;
        break;
      }
      std::vector<uint32_t> got(kRows);
      Pins::read(*dut.m, 0, kRows, got.data());
      const auto& [op, want] = in_flight.front();
      for (uint32_t i = 0; i < kRows; ++i)
        if (got[i] != want[i] && r.mismatches++ == 0)
          r.first_mismatch = fmt::format("{}: RTL {:08x}, ISS {:08x}", describe(op, i), got[i], want[i]);
      in_flight.pop_front();
      ++r.transactions;
      r.row_sets += kRows;
    }
    if (in_fire) {
      in_flight.emplace_back(next, iss_mac(next));
      offering = false;
      ++sent;
    }
    dut.edge();
  }
  r.cycles = dut.cycles;
  return r;
}

// Per type: 2^16 amp.macs x 16 rows = 1,048,576 row operand sets (each: 4 products, 4 sums).
constexpr uint64_t kTransactions = 1u << 16;

TEST(AmpEquivalence, F16RandomOperandsWithBackPressure) {
  const StreamResult r = stream(true, kTransactions, 1, 0.8, 0.7);
  EXPECT_EQ(r.mismatches, 0u) << r.first_mismatch;
  EXPECT_EQ(r.transactions, kTransactions);
  std::printf("f16: %llu transactions, %llu row operand sets, %llu cycles\n",
              static_cast<unsigned long long>(r.transactions), static_cast<unsigned long long>(r.row_sets),
              static_cast<unsigned long long>(r.cycles));
}

TEST(AmpEquivalence, F32RandomOperandsWithBackPressure) {
  const StreamResult r = stream(false, kTransactions, 2, 0.8, 0.7);
  EXPECT_EQ(r.mismatches, 0u) << r.first_mismatch;
  EXPECT_EQ(r.transactions, kTransactions);
  std::printf("f32: %llu transactions, %llu row operand sets, %llu cycles\n",
              static_cast<unsigned long long>(r.transactions), static_cast<unsigned long long>(r.row_sets),
              static_cast<unsigned long long>(r.cycles));
}

// Without gaps or back-pressure: one result per cycle after the pipeline's latency.
TEST(AmpEquivalence, LatencyAndThroughput) {
  constexpr uint64_t n = 100;
  const StreamResult r = stream(true, n, 3, 1.0, 1.0);
  EXPECT_EQ(r.mismatches, 0u) << r.first_mismatch;
  // The first result's handshake is in cycle kLatency (0-based), the last one n - 1 later.
  EXPECT_EQ(r.cycles, n + kLatency);
}

// Heavy back-pressure: the pipeline fills and must neither drop nor repeat anything.
TEST(AmpEquivalence, StallsKeepOrder) {
  const StreamResult r = stream(false, 2000, 4, 1.0, 0.1);
  EXPECT_EQ(r.mismatches, 0u) << r.first_mismatch;
}

// Unknown values (docs/cosim.md "Unknown values"): the pipeline's registers start random
// (--x-initial unique, +verilator+rand+reset+2, a fixed seed so a failure repeats); only
// the valid bits are reset, and no random datum may leak into a result.
TEST(AmpEquivalence, RandomInitialValues) {
  cosim::set_rtl_run_settings({.rand_reset = 2, .seed = 3519});
  {
    Dut dut;  // before any result: the output registers hold what they started with
    std::vector<uint32_t> acc(kRows);
    Pins::read(*dut.m, 0, kRows, acc.data());
    EXPECT_NE(std::count(acc.begin(), acc.end(), 0u), int(kRows)) << "the registers did not start random";
  }
  const StreamResult r = stream(true, 4096, 35, 0.8, 0.7);
  cosim::set_rtl_run_settings({});
  EXPECT_EQ(r.mismatches, 0u) << r.first_mismatch;
  EXPECT_EQ(r.transactions, 4096u);
}

// Cases worked by hand (not from the ISS): the rule itself.
uint32_t one_row(bool f16, std::vector<uint32_t> w, std::vector<uint32_t> x, uint32_t acc) {
  Dut dut;
  MacOperands op;
  op.f16 = f16;
  op.rows = 1;
  const size_t b = f16 ? 2 : 4;
  op.w.resize(4 * b);
  op.x.resize(4 * b);
  for (uint32_t j = 0; j < 4; ++j) {
    std::memcpy(&op.w[j * b], &w[j], b);
    std::memcpy(&op.x[j * b], &x[j], b);
  }
  op.acc = {acc};
  Pins::drive(*dut.m, f16, 0, 1, op.w.data(), op.x.data(), op.acc.data());
  dut.m->in_valid_i = 1;
  dut.m->out_ready_i = 1;
  for (uint32_t c = 0; c < 20; ++c) {
    const auto [in_fire, out_fire] = dut.settle();
    if (out_fire) {
      uint32_t out = 0;
      Pins::read(*dut.m, 0, 1, &out);
      return out;
    }
    dut.edge();
    if (in_fire) dut.m->in_valid_i = 0;
  }
  ADD_FAILURE() << "no result";
  return 0;
}

TEST(AmpEquivalence, HandWorkedCases) {
  const uint32_t one = 0x3f800000, zero = 0, neg_zero = 0x80000000;
  // 1 + 2^-24 is a tie: to even (1); 1 + 2^-24 + 2^-24 in order is still 1 (each add rounds).
  EXPECT_EQ(one_row(false, {0x33800000, 0x33800000, 0, 0}, {one, one, 0, 0}, one), one);
  // 1 + 3 * 2^-25 (0.75 ulp): up to 1 + 2^-23; 1 + 3 * 2^-24 (1.5 ulp) is a tie: to even, 1 + 2^-22.
  EXPECT_EQ(one_row(false, {0x33c00000, 0, 0, 0}, {one, 0, 0, 0}, one), 0x3f800001u);
  EXPECT_EQ(one_row(false, {0x34400000, 0, 0, 0}, {one, 0, 0, 0}, one), 0x3f800002u);
  // Infinity times zero: the canonical NaN. A signalling NaN input: the canonical NaN.
  EXPECT_EQ(one_row(false, {0x7f800000, 0, 0, 0}, {zero, 0, 0, 0}, one), 0x7fc00000u);
  EXPECT_EQ(one_row(false, {0x7f800001, 0, 0, 0}, {one, 0, 0, 0}, zero), 0x7fc00000u);
  // -0 + (-0 x 1) + (+0 x -1) + ... stays -0; +inf + -inf is NaN.
  EXPECT_EQ(one_row(false, {neg_zero, zero, neg_zero, zero}, {one, 0xbf800000, one, 0xbf800000}, neg_zero),
            neg_zero);
  EXPECT_EQ(one_row(false, {0x7f800000, 0xff800000, 0, 0}, {one, one, 0, 0}, zero), 0x7fc00000u);
  // Largest finite + largest finite overflows to infinity.
  EXPECT_EQ(one_row(false, {0x7f7fffff, 0, 0, 0}, {one, 0, 0, 0}, 0x7f7fffff), 0x7f800000u);
  // Smallest subnormal x 0.5 is a tie at zero: to even, +0; x 0.75 rounds up to it.
  EXPECT_EQ(one_row(false, {0x00000001, 0, 0, 0}, {0x3f000000, 0, 0, 0}, zero), 0u);
  EXPECT_EQ(one_row(false, {0x00000001, 0, 0, 0}, {0x3f400000, 0, 0, 0}, zero), 1u);
  // f16: the smallest subnormal (2^-24) squared is 2^-48, exact in f32 (0x27800000).
  EXPECT_EQ(one_row(true, {0x0001, 0, 0, 0}, {0x0001, 0, 0, 0}, zero), 0x27800000u);
  // f16: 65504 x 65504 = 4290774016, exact in f32 (22 significant bits).
  EXPECT_EQ(one_row(true, {0x7bff, 0, 0, 0}, {0x7bff, 0, 0, 0}, zero), 0x4f7fc004u);
}

}  // namespace
}  // namespace ipusim::cosim::amp_test
