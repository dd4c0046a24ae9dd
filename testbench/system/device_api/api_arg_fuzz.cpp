// api_arg_fuzz: a seeded random loop over the driver's setters and data calls with hostile
// arguments (docs/host_driver.md, "Tests"), on one in-process device: set_link_faults with
// spec text built from the keys, edge values and separators; tile reads and writes at edge
// IPUs, tiles, addresses and lengths; symbols (empty, unknown, huge); tensor layouts with
// edge shapes, tiles and locations; streaming-memory allocations and copies; and, now and
// then, a run with edge budgets after the faults the loop set. Every call must return or
// throw an ipudrv::Error (a named error): any other exception is reported and ends the
// loop with status 1; an abort or a signal ends the process (a crash, found).
//
//   api_arg_fuzz --config configs/test/tiny4_m2000.yaml --elf build/firmware/ipu_allreduce.elf
//                --runs 1000000 --seed 1
// prints one JSON line: calls, refused (named errors), accepted, runs, seconds.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ipudrv/device.h"
#include "ipudrv/errors.h"
#include "ipudrv/tensor.h"

namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t below(uint64_t n) { return n == 0 ? 0 : gen_() % n; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
  bool chance(unsigned per_mille) { return below(1000) < per_mille; }

 private:
  std::mt19937_64 gen_;  // its output is fixed by the standard: the same calls on every host
};

const std::vector<uint64_t> kEdges = {0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 64, 255, 256, 1023, 1024, 4095, 4096, 65535,
                                      65536, 0x3ffff, 0x40000, 0x40004, 0x40000 + 624 * 1024 - 4,
                                      0x40000 + 624 * 1024, 0x7fffffff, 0x80000000u, 0xfffffffcu, 0xffffffffu,
                                      uint64_t(1) << 32, uint64_t(1) << 54, uint64_t(1) << 60, ~uint64_t(0) - 4,
                                      ~uint64_t(0)};
const std::vector<std::string> kSpecKeys = {"seed",     "ber",      "periodic",       "burst", "drop", "drop_every",
                                            "dup",      "dup_every", "ack_drop",      "ack_drop_every", "", "x",
                                            "BER",      " ber "};
const std::vector<std::string> kSpecValues = {
    "0",    "1",     "-1",   "2",    "0.5",   "1e-6", "1e-5", "1e300", "1e-400", "1e-310", "nan", "inf",
    "-inf", "",      "1.5",  "0x10", "3:1",   "100:10:1000",   "5:4:4", "1:0", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999999", " 7 ", "1e", "--1", "none"};
const std::vector<std::string> kSymbols = {"", "kc_result", "a", "no_such_symbol", std::string(300, 'z'), "\n", "main"};

std::string random_spec(Rng& r) {
  std::string text;
  const uint64_t items = r.below(4);
  for (uint64_t i = 0; i < items; ++i) {
    if (i) text += r.pick(std::vector<std::string>{",", ";", ";;", " , ", ":"});
    if (r.chance(200)) text += std::to_string(r.pick(kEdges)) + ":";
    if (r.chance(50)) text += "-1:";
    text += r.pick(kSpecKeys) + (r.chance(950) ? "=" : "") + r.pick(kSpecValues);
  }
  if (r.chance(30)) text = r.pick(std::vector<std::string>{"none", ";", "", "=", ":", "all:ber=1e-6"});
  return text;
}

ipudrv::TileList random_tiles(Rng& r) {
  ipudrv::TileList tiles;
  const uint64_t n = r.below(6);
  for (uint64_t i = 0; i < n; ++i)
    tiles.push_back({uint32_t(r.chance(800) ? r.below(5) : r.pick(kEdges)), uint32_t(r.chance(800) ? r.below(5) : r.pick(kEdges))});
  return tiles;
}

struct Counts {
  uint64_t calls = 0, refused = 0, accepted = 0, runs = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string config = "configs/test/tiny4_m2000.yaml", elf_path;
  uint64_t runs = 100000, seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--config") config = v;
    else if (a == "--elf") elf_path = v;
    else if (a == "--runs") runs = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--seed") seed = std::strtoull(v.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "api_arg_fuzz: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (elf_path.empty()) {
    std::fprintf(stderr, "usage: api_arg_fuzz --elf FILE [--config FILE] [--runs N] [--seed S]\n");
    return 2;
  }
  ::setenv("IPUSIM_CONSOLE", "none", 1);
  ::setenv("IPUSIM_THREADS", "1", 1);
  const ipudrv::Elf elf = ipudrv::Elf::from_file(elf_path);
  auto dev = ipudrv::open("config:" + config);
  dev->load(elf);
  Rng r(seed);
  Counts c;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::byte> buffer(8192);
  std::string last;
  for (uint64_t i = 0; i < runs; ++i) {
    ++c.calls;
    try {
      switch (r.below(9)) {
        case 0:
        case 1: {
          const std::string spec = random_spec(r);
          last = "set_link_faults('" + spec + "')";
          dev->set_link_faults(spec);
          break;
        }
        case 2: {
          const uint32_t ipu = uint32_t(r.chance(700) ? r.below(5) : r.pick(kEdges));
          const uint32_t tile = uint32_t(r.chance(700) ? r.below(5) : r.pick(kEdges));
          const uint32_t addr = uint32_t(r.pick(kEdges));
          const size_t len = size_t(r.below(buffer.size() + 1));
          last = "read_tile/write_tile " + std::to_string(ipu) + " " + std::to_string(tile) + " " + std::to_string(addr) +
                 " " + std::to_string(len);
          if (r.chance(500))
            dev->read_tile(ipu, tile, addr, std::span(buffer).first(len));
          else
            dev->write_tile(ipu, tile, addr, std::span(buffer).first(len));
          break;
        }
        case 3: {
          const std::string& sym = r.pick(kSymbols);
          last = "read_symbol '" + sym + "'";
          dev->read_symbol(uint32_t(r.below(5)), uint32_t(r.below(5)), sym, std::span(buffer).first(r.below(64)));
          break;
        }
        case 4: {
          last = "tensor";
          std::vector<uint64_t> shape;
          for (uint64_t d = r.below(3); d > 0; --d) shape.push_back(r.chance(800) ? r.below(64) : r.pick(kEdges));
          ipudrv::Mapping mapping = r.chance(500) ? ipudrv::Mapping::blocked_rows(random_tiles(r))
                                                  : ipudrv::Mapping::replicated(random_tiles(r));
          ipudrv::Location where = r.chance(700) ? ipudrv::Location::symbol(r.pick(kSymbols))
                                                 : ipudrv::Location::at(uint32_t(r.pick(kEdges)));
          const ipudrv::TensorLayout layout{shape, ipudrv::DType(r.below(13)), mapping, where};
          if (r.chance(500))
            dev->write_tensor(layout, std::span<const std::byte>(buffer).first(r.below(buffer.size())));
          else
            dev->read_tensor(layout, std::span(buffer).first(r.below(buffer.size())));
          break;
        }
        case 5: {
          last = "smem";
          const uint64_t bytes = r.pick(kEdges), align = r.pick(kEdges);
          if (r.chance(500)) {
            const ipudrv::SmemBuffer b = dev->alloc_smem(bytes, align, uint32_t(r.chance(900) ? 0 : r.pick(kEdges)));
            dev->free_smem(b);
          } else {
            dev->read_smem(r.pick(kEdges), std::span(buffer).first(r.below(256)));
          }
          break;
        }
        case 6:
          last = "superstep_stats";
          dev->superstep_stats(uint32_t(r.pick(kEdges)));
          break;
        case 7:
          last = "link_stats / stats";
          dev->link_stats();
          dev->stats();
          break;
        default: {
          if (!r.chance(20)) {  // runs cost milliseconds: one in 50 of these
            --c.calls;
            continue;
          }
          ipudrv::RunOptions o;
          o.max_cycles = r.chance(500) ? r.pick(kEdges) : 0;
          o.max_instructions = r.chance(300) ? r.pick(kEdges) : 0;
          o.supersteps = uint32_t(r.chance(200) ? r.pick(kEdges) : 0);
          o.timeout = std::chrono::seconds(60);
          last = "run max_cycles " + std::to_string(o.max_cycles) + " max_instructions " +
                 std::to_string(o.max_instructions) + " supersteps " + std::to_string(o.supersteps);
          ++c.runs;
          try {
            dev->run(o);
          } catch (const ipudrv::TimeoutError& e) {
            std::fprintf(stderr, "api_arg_fuzz: call %llu (%s): a run did not end within 60 s: %s\n",
                         static_cast<unsigned long long>(i), last.c_str(), e.what());
            return 1;
          } catch (const ipudrv::Error&) {
          }
          dev->load(elf);  // whatever state the run left, the next calls start from a loaded device
          break;
        }
      }
      ++c.accepted;
    } catch (const ipudrv::Error& e) {
      if (std::strlen(e.what()) == 0) {
        std::fprintf(stderr, "api_arg_fuzz: call %llu (%s): an error with no message\n",
                     static_cast<unsigned long long>(i), last.c_str());
        return 1;
      }
      ++c.refused;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "api_arg_fuzz: call %llu (%s): not a driver error: %s\n", static_cast<unsigned long long>(i),
                   last.c_str(), e.what());
      return 1;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"calls\": %llu, \"refused\": %llu, \"accepted\": %llu, \"runs\": %llu, \"seconds\": %.1f}\n",
              static_cast<unsigned long long>(c.calls), static_cast<unsigned long long>(c.refused),
              static_cast<unsigned long long>(c.accepted), static_cast<unsigned long long>(c.runs), seconds);
  return 0;
}
