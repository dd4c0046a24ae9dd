// `ipusim run --memory-report` and `ipusim info --elf` on memory_kernel.c
// (testbench/system/firmware): every thread's lowest sp equal to the one the thread read
// itself at its deepest point, the heap the program measured, the exchange buffer it
// posted, its known symbols; the same report from the interpreter and the translator; the
// tile map a PNG of the documented size (read back with libpng); a stack overflow stopped
// before the store that would cross (the SRAM below unchanged), named with tile, thread,
// pc and function; the margin's warnings; --json's per-tile superstep means.
// docs/memory_report.md.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "cli_run.h"
#include "iss/sram.h"
#include "iss/tile_core.h"
#include "memreport/memory_report.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kKernel = std::string(IPUSIM_FIRMWARE_DIR) + "/system/memory_kernel.elf";
const std::string kOverflow = std::string(IPUSIM_FIRMWARE_DIR) + "/system/stack_overflow.elf";
const std::string kTiny4 = "configs/test/tiny4.yaml";

std::string temp_path(const std::string& name) { return test::temp_path("memrep_", name); }
test::CliResult ipusim_run(const std::string& args) { return test::run_cli(kBin, "memrep_", args); }

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(test::read_file(path)); }

// What each tile printed: "memk thread T sp 0x..." and "memk heap used N inbox 0x...".
struct Printed {
  std::map<uint32_t, uint32_t> sp;  // thread -> sp
  uint32_t heap_used = 0, inbox = 0;
};
std::map<uint32_t, Printed> printed(const std::string& console) {
  std::map<uint32_t, Printed> out;
  const std::regex sp_line(R"(\[ipu 0 tile (\d+)\] memk thread (\d) sp 0x([0-9a-f]+))");
  const std::regex heap_line(R"(\[ipu 0 tile (\d+)\] memk heap used (\d+) inbox 0x([0-9a-f]+))");
  for (std::sregex_iterator it(console.begin(), console.end(), sp_line), end; it != end; ++it)
    out[std::stoul((*it)[1])].sp[std::stoul((*it)[2])] = std::stoul((*it)[3], nullptr, 16);
  for (std::sregex_iterator it(console.begin(), console.end(), heap_line), end; it != end; ++it) {
    out[std::stoul((*it)[1])].heap_used = std::stoul((*it)[2]);
    out[std::stoul((*it)[1])].inbox = std::stoul((*it)[3], nullptr, 16);
  }
  return out;
}

TEST(MemoryReport, EveryThreadsLowestSpHeapAndBuffersAreTheProgramsOwn) {
  const std::string report = temp_path("report.json");
  const test::CliResult r = ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --memory-report " + report);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::map<uint32_t, Printed> seen = printed(r.out);
  ASSERT_EQ(seen.size(), 4u) << r.out;
  const nlohmann::json j = read_json(report);
  ASSERT_EQ(j["tiles"].size(), 4u);
  for (const nlohmann::json& t : j["tiles"]) {
    const Printed& p = seen.at(t["tile"].get<uint32_t>());
    ASSERT_EQ(t["stacks"].size(), 7u);
    for (const nlohmann::json& s : t["stacks"]) {
      const uint32_t thread = s["thread"];
      EXPECT_EQ(s["lowest_sp"].get<uint32_t>(), p.sp.at(thread)) << "tile " << t["tile"] << " thread " << thread;
      EXPECT_EQ(s["high_water"].get<uint32_t>(), s["top"].get<uint32_t>() - p.sp.at(thread));
      EXPECT_EQ(s["bytes"].get<uint32_t>(), thread == 0 ? 8192u : 4096u);
    }
    // Worker k went k x 256 + 64 bytes deep in `deepest`, under its entry's frames.
    for (uint32_t k = 2; k <= 6; ++k)
      EXPECT_EQ(t["stacks"][k]["high_water"].get<uint32_t>() - t["stacks"][k - 1]["high_water"].get<uint32_t>(), 256u);
    EXPECT_EQ(t["heap"]["used"].get<uint32_t>(), p.heap_used);
    EXPECT_EQ(t["exchange"]["in_bytes"], 64);
    EXPECT_EQ(t["exchange"]["in_posts"], 1);
    EXPECT_EQ(t["exchange"]["out_bytes"], 64);
    EXPECT_EQ(t["stack_overflow"], false);
    // The stacks are the top of the tile's SRAM: the supervisor's 8 KiB, six workers' 4 KiB.
    EXPECT_EQ(t["stacks"][0]["top"].get<uint64_t>(), 0x40000u + t["sram_bytes"].get<uint64_t>());
    EXPECT_EQ(t["stacks"][1]["base"].get<uint64_t>(), t["stacks"][0]["base"].get<uint64_t>() - 6 * 4096);
  }
  // The known symbols, and the sections' kinds.
  std::map<std::string, nlohmann::json> symbols;
  for (const nlohmann::json& s : j["largest_symbols"]) symbols[s["name"]] = s;
  ASSERT_TRUE(symbols.count("memk_table")) << j["largest_symbols"].dump();
  EXPECT_EQ(symbols["memk_table"]["bytes"], 3000);
  EXPECT_EQ(symbols["memk_table"]["section"], ".bss");
  ASSERT_TRUE(symbols.count("memk_rodata"));
  EXPECT_EQ(symbols["memk_rodata"]["bytes"], 1200);
  EXPECT_EQ(symbols["memk_rodata"]["section"], ".rodata");
  EXPECT_GE(j["bytes"]["bss"].get<uint32_t>(), 3000u);
  // No stack came within the default 256 bytes of its end: no warning.
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
  EXPECT_NE(r.err.find("memory report: 4 tile(s)"), std::string::npos) << r.err;
}

// --json's supersteps carry per-tile means beside the sums (docs/platform.md).
TEST(MemoryReport, SuperstepJsonHasPerTileMeans) {
  const std::string json = temp_path("run.json");
  ASSERT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --json " + json).status, 0);
  const nlohmann::json j = read_json(json);
  ASSERT_FALSE(j["supersteps"].empty());
  for (const nlohmann::json& step : j["supersteps"])
    for (const nlohmann::json& ipu : step["ipus"]) {
      const double tiles = ipu["tiles"].get<double>();
      for (const char* key : {"compute_cycles", "sync_cycles", "exchange_cycles", "instructions", "exchange_bytes"})
        EXPECT_DOUBLE_EQ(ipu[std::string(key) + "_mean"].get<double>(), ipu[key].get<double>() / tiles) << key;
    }
}

TEST(MemoryReport, InterpreterAndTranslatorGiveTheSameReport) {
  const std::string a = temp_path("interp.json"), b = temp_path("jit.json");
  ASSERT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --iss interp --memory-report " + a).status, 0);
  ASSERT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --iss jit --memory-report " + b).status, 0);
  EXPECT_EQ(test::read_file(a), test::read_file(b));
}

// The profiler and the memory watch share the hook handler: with both on, each gives what
// it gives alone.
TEST(MemoryReport, ProfileAndReportTogetherAreEachTheSameAsAlone) {
  const std::string p1 = temp_path("alone.callgrind"), p2 = temp_path("both.callgrind");
  const std::string r1 = temp_path("alone.json"), r2 = temp_path("both.json");
  const std::string run = "--config " + kTiny4 + " --elf " + kKernel;
  ASSERT_EQ(ipusim_run(run + " --profile " + p1).status, 0);
  ASSERT_EQ(ipusim_run(run + " --memory-report " + r1).status, 0);
  ASSERT_EQ(ipusim_run(run + " --profile " + p2 + " --memory-report " + r2).status, 0);
  EXPECT_EQ(test::read_file(p1), test::read_file(p2));
  EXPECT_EQ(test::read_file(r1), test::read_file(r2));
  // Lockstep (the translator checked against an interpreted shadow) agrees too.
  const std::string r3 = temp_path("lockstep.json");
  ASSERT_EQ(ipusim_run(run + " --iss lockstep --memory-report " + r3).status, 0);
  EXPECT_EQ(test::read_file(r1), test::read_file(r3));
}

TEST(MemoryReport, MarginWarnsAboutAStackThatCameClose) {
  const std::string report = temp_path("report.json");
  // Worker 6 used 6 x 256 + 64 bytes and its frames, of 4096: within a 3000-byte margin.
  const test::CliResult r =
      ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --memory-report " + report + " --stack-margin 3000");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = read_json(report);
  bool worker6 = false;
  for (const nlohmann::json& w : j["warnings"]) {
    EXPECT_EQ(w["overflow"], false);
    EXPECT_GE(w["high_water"].get<uint32_t>() + 3000, w["bytes"].get<uint32_t>());
    worker6 |= w["thread"] == 6;
  }
  EXPECT_TRUE(worker6) << j["warnings"].dump();
  EXPECT_NE(r.err.find("warning: ipu 0 tile 0 worker 6: stack high-water"), std::string::npos) << r.err;
  // The margin and the map shape a report: alone they are an error naming them.
  const test::CliResult alone = ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --stack-margin 3000");
  EXPECT_EQ(alone.status, 2);
  EXPECT_NE(alone.err.find("--stack-margin shape a memory report"), std::string::npos) << alone.err;
}

TEST(MemoryReport, TileMapIsAPngOfOneCellPerTile) {
  const std::string report = temp_path("report.json"), map = temp_path("map.png");
  ASSERT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --memory-report " + report + " --memory-map " + map).status, 0);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  ASSERT_NE(png_image_begin_read_from_file(&image, map.c_str()), 0) << image.message;
  const memreport::MapSize size = memreport::tile_map_size(1, 4);
  EXPECT_EQ(image.width, size.width);
  EXPECT_EQ(image.height, size.height);
  EXPECT_EQ(size.width, 2 * memreport::kCellPixels);  // 4 tiles: 2 x 2 cells
  image.format = PNG_FORMAT_RGB;
  std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(image));
  ASSERT_NE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr), 0) << image.message;
  // A loaded tile's cell is coloured by use (not the grey of a tile that did not run).
  EXPECT_FALSE(pixels[0] == 96 && pixels[1] == 96 && pixels[2] == 96);
  // Without --memory-map the map is FILE.png.
  EXPECT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --memory-report " + report).status, 0);
  png_image second{};
  second.version = PNG_IMAGE_VERSION;
  ASSERT_NE(png_image_begin_read_from_file(&second, (report + ".png").c_str()), 0) << second.message;
  png_image_free(&second);
}

TEST(MemoryReport, StackOverflowStopsTheRunNamingThreadPcAndFunction) {
  const std::string report = temp_path("report.json");
  for (const char* iss : {"interp", "jit"}) {
    const test::CliResult r =
        ipusim_run("--config " + kTiny4 + " --elf " + kOverflow + " --iss " + iss + " --memory-report " + report);
    EXPECT_NE(r.status, 0) << iss;
    EXPECT_NE(r.err.find("stack overflow"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tile 0 (ipu 0) thread 2 pc 0x"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("worker 2's stack"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("in worker 1's stack"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("deepest"), std::string::npos) << r.err;  // the function, symbolised
    const nlohmann::json j = read_json(report);
    ASSERT_EQ(j["tiles"].size(), 4u);
    EXPECT_EQ(j["tiles"][0]["stack_overflow"], true);
    bool flagged = false;
    for (const nlohmann::json& w : j["warnings"]) flagged |= w["thread"] == 2 && w["overflow"] == true;
    EXPECT_TRUE(flagged) << j["warnings"].dump();
  }
  // Without the report the same program runs on, writing over worker 1's stack.
  EXPECT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + kOverflow).status, 0);
}

// On one core: the fault comes before the store that would cross, so worker 1's stack
// below its own use holds nothing (zeros), where the program would have written its pattern.
TEST(MemoryReport, OverflowingStoreNeverLands) {
  for (const IssCore engine : {IssCore::interp, IssCore::jit}) {
    const auto program = iss::Program::load(kOverflow);
    iss::TileParams params;
    params.sram_bytes = 256 * 1024;
    params.core = engine;
    params.jit_hot_entries = 1;
    iss::Sram sram(params.sram_bytes);
    iss::load_image(sram, *program);
    iss::TileCore core(params, program, sram);
    core.watch_memory(8192);
    iss::StopInfo stop = core.run();
    ASSERT_EQ(stop.reason, iss::StopReason::Fault);
    ASSERT_TRUE(stop.fault);
    EXPECT_EQ(stop.fault->kind, "stack overflow");
    EXPECT_EQ(stop.fault->thread, 2u);
    const iss::StackUse w1 = core.stack_use(1), w2 = core.stack_use(2);
    ASSERT_EQ(w2.base, w1.top);
    EXPECT_LT(w2.lowest_sp, w2.base);
    EXPECT_EQ(*stop.fault->address, w2.lowest_sp);
    // Worker 1 used the top of its stack only; everything from worker 2's sp up to there is untouched.
    std::vector<uint8_t> below(w1.lowest_sp - w2.lowest_sp);
    ASSERT_TRUE(core.read(w2.lowest_sp, below));
    for (size_t i = 0; i < below.size(); ++i) ASSERT_EQ(below[i], 0) << "at 0x" << std::hex << w2.lowest_sp + i;
  }
}

TEST(InfoElf, PrintsSectionsSymbolsAndTheRuntimeLayout) {
  const test::CliResult text = test::run_command(kBin, "memrep_", "info --elf " + kKernel + " --config " + kTiny4);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(".text"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("memk_table"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("supervisor stack"), std::string::npos) << text.out;
  const test::CliResult json = test::run_command(kBin, "memrep_", "info --elf " + kKernel + " --json");
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["sram_bytes"], 256 * 1024);  // no --config: the program's __ipu_image_limit
  EXPECT_EQ(j["runtime"]["supervisor_stack_bytes"], 8192);
  EXPECT_EQ(j["runtime"]["worker_stack_bytes"], 4096);
  const nlohmann::json& regions = j["regions"];
  ASSERT_GE(regions.size(), 9u);
  EXPECT_EQ(regions.back()["name"], "supervisor stack");
  EXPECT_EQ(regions.back()["end"], 0x40000 + 256 * 1024);
  EXPECT_EQ(regions[regions.size() - 2]["name"], "worker 6 stack");
  EXPECT_EQ(regions[regions.size() - 8]["name"], "heap");
  EXPECT_EQ(regions[regions.size() - 8]["end"], regions[regions.size() - 7]["begin"]);
  // Not an ELF: a named error, exit 2.
  const test::CliResult bad = test::run_command(kBin, "memrep_", "info --elf " + kTiny4);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("not an ELF"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ipusim
