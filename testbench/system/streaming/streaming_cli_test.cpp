// `ipusim run` on the streaming firmware (firmware/): streaming memory written and read
// back across supersteps by every tile of tiny4 x 2 IPUs and tiny16 (byte counts from
// the replayed plan, the same cycles for every --threads), the errors with exit status 3
// (a range beyond the memory naming tile and pc, a misaligned offset, a bad stream id, a
// host stream with no host, a board without streaming memory), and the m2000 case: 1 GiB
// touched all over 256 GiB under 3 GB of peak RSS (the child's, from wait4).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "smem_plan.h"

namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kFirmware = std::string(IPUSIM_FIRMWARE_DIR) + "/streaming/";

using ipusim::test::read_file;
using Result = ipusim::test::CliResult;

std::string temp_path(const std::string& name) { return ipusim::test::temp_path("streaming_cli_", name); }

Result ipusim_run(const std::string& args) { return ipusim::test::run_cli(kBin, "streaming_cli_", args); }

uint64_t planned_bytes(const smemplan::Plan& plan, uint32_t tiles, uint32_t rounds) {
  uint64_t bytes = 0;
  for (uint32_t t = 0; t < tiles; ++t)
    for (uint32_t r = 0; r < rounds; ++r)
      for (uint32_t k = 0; k < plan.copies; ++k)
        bytes += 4ull * plan.words(t, r, k) + 4ull * plan.words((t + 1) % tiles, r, k);  // write + read back
  return bytes;
}

struct RoundTrip {
  const char* config;
  const char* elf;
  uint32_t tiles, rounds;
  smemplan::Plan plan;
};

TEST(StreamingCli, RoundTripsAcrossSupersteps) {
  const RoundTrip cases[] = {
      {"configs/test/tiny4x2_smem.yaml", "smem_rw.elf", 8, 6, {1, 1}},
      {"configs/test/tiny16_smem.yaml", "smem_rw.elf", 16, 6, {1, 1}},
      {"configs/test/tiny4x2_smem.yaml", "smem_rw3.elf", 8, 3, {77, 3}},
      {"configs/test/tiny16_smem.yaml", "smem_rw3.elf", 16, 3, {77, 3}},
  };
  for (const RoundTrip& c : cases) {
    SCOPED_TRACE(std::string(c.config) + " " + c.elf);
    std::vector<nlohmann::json> runs;
    for (int threads : {1, 2}) {
      const std::string json = temp_path("run.json");
      const Result r = ipusim_run("--quiet --threads " + std::to_string(threads) + " --config " + c.config + " --elf " +
                                  kFirmware + c.elf + " --json " + json);
      ASSERT_EQ(r.status, 0) << r.err << r.out;
      runs.push_back(nlohmann::json::parse(read_file(json)));
    }
    const nlohmann::json& j = runs[0];
    EXPECT_EQ(j["streaming_copies"], uint64_t(c.tiles) * c.rounds * c.plan.copies * 2);
    EXPECT_EQ(j["streaming_bytes"], planned_bytes(c.plan, c.tiles, c.rounds));
    // Determinism: the same cycles whatever the host thread count.
    EXPECT_EQ(runs[0]["tile_cycles"], runs[1]["tile_cycles"]);
    EXPECT_EQ(runs[0]["tiles"], runs[1]["tiles"]);
  }
}

struct ErrorCase {
  const char* name;
  const char* config;
  int number;
  const char* kind;      // "exchange error" or "fault"
  const char* message;   // the start of the message after "ipusim: KIND: "
  const char* contains;  // and a part of it
};

TEST(StreamingCli, ErrorsStopTheRunWithStatus3) {
  const ErrorCase cases[] = {
      {"range", "configs/test/tiny4x2_smem.yaml", 1, "exchange error", "tile 1 (ipu 0) thread 0 pc 0x",
       "smread of 64 bytes into 0x", },
      {"misaligned", "configs/test/tiny4x2_smem.yaml", 2, "fault", "tile 1 (ipu 0) thread 0 pc 0x",
       "misaligned access: smwrite of 64 bytes at 0x"},
      {"bad stream id", "configs/test/tiny4x2_smem.yaml", 3, "fault", "tile 1 (ipu 0) thread 0 pc 0x",
       "exchange misuse: hsid 64: host stream ids are 0..63"},
      {"no host", "configs/test/tiny4x2_smem.yaml", 4, "exchange error",
       "host stream 5: no host connected (use the driver): tile 1 (ipu 0) thread 0 pc 0x", "hsread of 64 bytes"},
      {"no streaming memory", "configs/test/tiny4.yaml", 5, "exchange error", "tile 1 (ipu 0) thread 0 pc 0x",
       "no streaming memory on board 0 (streaming_memory.size_gib is 0)"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Result r = ipusim_run(std::string("--quiet --config ") + c.config + " --elf " + kFirmware + "smem_error" +
                                std::to_string(c.number) + ".elf");
    EXPECT_EQ(r.status, 3) << r.err;
    const std::string prefix = std::string("ipusim: ") + c.kind + ": " + c.message;
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.contains), std::string::npos) << r.err;
    if (c.number == 1) {
      EXPECT_NE(r.err.find("streaming memory 0x00000008ffffffc0: beyond the end of streaming memory (0x4000000 "
                           "bytes on board 0)"),
                std::string::npos)
          << r.err;
    }
  }
}

// 64 tiles of an m2000 write 16384 chunks of 64 KiB (1 GiB) at slots spread over all of
// its 256 GiB, and read two of each tile's back.
TEST(StreamingCli, M2000GigabyteScatteredUnder3GB) {
  const std::string json = temp_path("m2000.json");
  const Result r = ipusim_run("--quiet --threads 2 --config configs/m2000.yaml --tiles 0-15 --elf " + kFirmware +
                              "smem_scatter.elf --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(j["streaming_bytes"], (uint64_t{1} << 30) + 128ull * 65536);
  EXPECT_EQ(j["streaming_copies"], 64u * 258);
  std::printf("m2000, 1 GiB of streaming memory touched: peak RSS %.0f MB\n", r.max_rss_kib / 1024.0);
  EXPECT_GT(r.max_rss_kib, 1024L * 1024);      // the gigabyte is really there
  EXPECT_LT(r.max_rss_kib, 3L * 1000 * 1000);  // and 256 GiB cost no more (3 GB in KiB)
}

}  // namespace
