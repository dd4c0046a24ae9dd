// `ipusim run --json`: the `error` object, one per class of run error, checked field by
// field (never by parsing its text): a tile fault, an exchange error naming both tiles, a
// sync deadlock naming the tile that never arrived and how many waited, streaming-memory
// range and alignment, and a host stream nobody serves.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "iss/program.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kFirmware = std::string(IPUSIM_FIRMWARE_DIR) + "/";
const std::string kTiny4 = "configs/test/tiny4.yaml";
const std::string kSmem = "configs/test/tiny4x2_smem.yaml";

// Runs `elf` and returns the JSON's error object (after checking the exit status).
nlohmann::json run_error(const std::string& config, const std::string& elf, const std::string& extra = "") {
  const std::string json = test::temp_path("error_json_", "run.json");
  const test::CliResult r =
      test::run_cli(kBin, "error_json_", "--quiet --config " + config + " --elf " + kFirmware + elf + " --json " + json + extra);
  EXPECT_EQ(r.status, 3) << r.err;
  const nlohmann::json j = nlohmann::json::parse(test::read_file(json));
  EXPECT_TRUE(j.contains("error"));
  EXPECT_FALSE(j["error"].is_null()) << j.dump(2);
  EXPECT_EQ(j["error"]["text"].get<std::string>().empty(), false);
  EXPECT_NE(r.err.find(j["error"]["text"].get<std::string>()), std::string::npos)
      << "the JSON's text is what stderr says\n" << r.err;
  return j["error"];
}

// The error is of class `code` and `kind`, at tile `tile` of IPU 0 (and, unless
// `thread` is negative, that thread).
void expect_at(const nlohmann::json& e, const char* code, const char* kind, int tile, int thread = 0) {
  EXPECT_EQ(e["code"], code);
  EXPECT_EQ(e["kind"], kind);
  EXPECT_EQ(e["ipu"], 0);
  EXPECT_EQ(e["tile"], tile);
  if (thread >= 0) {
    EXPECT_EQ(e["thread"], thread);
  }
}

uint32_t symbol(const std::string& elf, const char* name) {
  return iss::Program::load(kFirmware + elf)->symbol(name).value();
}

TEST(ErrorJson, TileFault) {
  const nlohmann::json e = run_error(kTiny4, "faults/fault_misaligned.elf", " --tiles 2");
  expect_at(e, "TILE_FAULT", "misaligned access", 2);
  EXPECT_EQ(e["pc"], symbol("faults/fault_misaligned.elf", "fault_site"));
  EXPECT_EQ(e["address"].get<uint64_t>() % 4, 2u) << "the address of the misaligned load";
  EXPECT_GT(e["cycle"].get<uint64_t>(), 0u);
  EXPECT_EQ(e["superstep"], 0);
  EXPECT_TRUE(e["peer"].is_null());
  EXPECT_EQ(e["disasm"].get<std::string>().rfind("lw ", 0), 0u) << e["disasm"];
  EXPECT_EQ(e["absent"], nlohmann::json::array());
}

TEST(ErrorJson, ExchangeErrorNamesBothTiles) {
  const nlohmann::json e = run_error(kTiny4, "system/xerr_length.elf");
  expect_at(e, "EXCHANGE", "length mismatch", 0, -1);  // the sender
  EXPECT_FALSE(e["pc"].is_null());
  ASSERT_FALSE(e["peer"].is_null());
  EXPECT_EQ(e["peer"]["ipu"], 0);
  EXPECT_EQ(e["peer"]["tile"], 1);  // the receiver
  EXPECT_FALSE(e["peer"]["pc"].is_null()) << "a length mismatch names both postings";
  EXPECT_NE(e["peer"]["pc"], e["pc"]);
  EXPECT_EQ(e["superstep"], 1);
  EXPECT_TRUE(e["text"].get<std::string>().ends_with(", in superstep 1")) << e["text"];
  EXPECT_GT(e["cycle"].get<uint64_t>(), 0u);
  // Both postings located (docs/debugging.md): the inlined Xipu wrappers, with their lines,
  // also in the text.
  EXPECT_EQ(e["function"], "ipu_send");
  EXPECT_EQ(e["peer"]["function"], "ipu_recv");
  ASSERT_TRUE(e["source"].is_string() && e["peer"]["source"].is_string()) << e;
  EXPECT_EQ(e["source"].get<std::string>().rfind("ipu/xipu.h:", 0), 0u) << e["source"];
  EXPECT_NE(e["text"].get<std::string>().find(fmt::format("in ipu_recv ({})", e["peer"]["source"].get<std::string>())),
            std::string::npos)
      << e["text"];
}

// A send shorter than its receive (xerr_short.c): the same record, both lengths in the text.
TEST(ErrorJson, ShortSendIsALengthMismatchNamingBothLengths) {
  const nlohmann::json e = run_error(kTiny4, "system/xerr_short.elf");
  expect_at(e, "EXCHANGE", "length mismatch", 0, -1);  // the sender
  ASSERT_FALSE(e["peer"].is_null());
  EXPECT_EQ(e["peer"]["ipu"], 0);
  EXPECT_EQ(e["peer"]["tile"], 1);  // the receiver
  ASSERT_FALSE(e["pc"].is_null());
  ASSERT_FALSE(e["peer"]["pc"].is_null());
  EXPECT_EQ(e["superstep"], 1);
  const std::string text = e["text"].get<std::string>();
  EXPECT_NE(text.find(fmt::format("tile 0 sends 8 bytes to tile 1 (pc 0x{:08x}", e["pc"].get<uint32_t>())),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("but the matching receive on tile 1 from tile 0 expects 16 bytes (pc 0x{:08x}",
                                  e["peer"]["pc"].get<uint32_t>())),
            std::string::npos)
      << text;
}

TEST(ErrorJson, DeadlockNamesTheTileThatNeverArrivedAndHowManyWaited) {
  const nlohmann::json e = run_error(kTiny4, "system/halt_early.elf");
  expect_at(e, "DEADLOCK", "sync", 1, -1);  // halted early: it never arrives
  EXPECT_EQ(e["waiting"], 3);
  ASSERT_EQ(e["absent"].size(), 1u);
  EXPECT_EQ(e["absent"][0]["ipu"], 0);
  EXPECT_EQ(e["absent"][0]["tile"], 1);
  EXPECT_EQ(e["absent"][0]["why"].get<std::string>().rfind("halted at cycle ", 0), 0u) << e["absent"][0];
  ASSERT_EQ(e["waiters"].size(), 3u);
  EXPECT_EQ(e["waiters"][0]["tile"], 0);
  EXPECT_FALSE(e["superstep"].is_null());
  EXPECT_GT(e["cycle"].get<uint64_t>(), 0u);
}

TEST(ErrorJson, StreamingMemoryRange) {
  const nlohmann::json e = run_error(kSmem, "streaming/smem_error1.elf");
  expect_at(e, "SMEM_RANGE", "beyond streaming memory", 1);
  EXPECT_FALSE(e["pc"].is_null());
  EXPECT_EQ(e["address"], 0x8ffffffc0ull);
  EXPECT_EQ(e["superstep"], 1);
}

// A misaligned streaming-memory offset is refused by the ISS when the copy is posted.
TEST(ErrorJson, StreamingMemoryAlignment) {
  const nlohmann::json e = run_error(kSmem, "streaming/smem_error2.elf");
  expect_at(e, "TILE_FAULT", "misaligned access", 1);
  EXPECT_EQ(e["address"], 0x1002);
}

TEST(ErrorJson, HostStreamNobodyServes) {
  const nlohmann::json e = run_error(kSmem, "streaming/smem_error4.elf");
  expect_at(e, "STREAM", "no host", 1);
  EXPECT_EQ(e["address"], 5) << "the stream id";
}

TEST(ErrorJson, NullWhenEveryTileHalts) {
  const std::string json = test::temp_path("error_json_", "ok.json");
  const test::CliResult r =
      test::run_cli(kBin, "error_json_", "--quiet --config " + kTiny4 + " --elf " + kFirmware + "system/xok_pair.elf --json " + json);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(test::read_file(json))["error"].is_null());
}

}  // namespace
}  // namespace ipusim
