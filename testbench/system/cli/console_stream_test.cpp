// The console streamed through a bounded buffer per tile (docs/platform.md "Console
// ordering"): a tile printing for ever under --max-cycles keeps `ipusim run` small while
// every line reaches stdout in order; tiles that overflow their buffers in the same
// superstep print in the documented order, the same bytes on every host thread count;
// a stdout that cannot be written (a full device, a closed pipe) ends the run with a
// message naming the console and the OS error, exit status 5, the JSON still written.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kGc200 = "configs/gc200.yaml";
const std::string kTiny4 = "configs/test/tiny4.yaml";
const std::string kSys = std::string(IPUSIM_FIRMWARE_DIR) + "/system/";

std::string temp_path(const std::string& name) { return test::temp_path("ipusim_console_", name); }

nlohmann::json json_file(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j;
  if (in) in >> j;
  return j;
}

// `ipusim run ARGS` with stdout on a pipe this process reads line by line (`on_line`
// sees each, without its newline; it returns false to close the pipe there) and stderr
// in a file; the child's exit status and peak RSS.
struct Streamed {
  int status = -1;
  long max_rss_kib = 0;
  std::string err;
};

template <typename OnLine>
Streamed run_streamed(const std::string& args, OnLine on_line) {
  proc::Command command = proc::Command::shell("exec " + kBin + " run " + args);
  command.out = proc::Stream::pipe();
  command.err = proc::Stream::file(temp_path("stderr"));
  proc::Child child(command);
  EXPECT_TRUE(child.started());
  // A stdio stream of its own over the pipe (the Child closes the pipe itself).
  std::FILE* in = child.started() ? ::fdopen(::dup(child.stdout_fd()), "r") : nullptr;
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while (in && (n = ::getline(&buf, &cap, in)) > 0) {
    std::string_view line(buf, size_t(n));
    if (line.back() == '\n') line.remove_suffix(1);
    if (!on_line(line)) break;
  }
  std::free(buf);
  if (in) std::fclose(in);
  // The parent's end closed: what it still writes fails (SIGPIPE).
  child.close_stdout();
  const proc::Outcome o = child.wait();
  Streamed r;
  r.status = o.exited ? o.exit_status : -1;
  r.max_rss_kib = o.max_rss_kib;
  r.err = o.err;
  return r;
}

// `ipusim run ARGS` with stdout on /dev/full.
test::CliResult run_to_full_device(const std::string& args) {
  proc::Command command = proc::Command::shell("exec " + kBin + " run " + args);
  command.out = proc::Stream::file("/dev/full");
  command.err = proc::Stream::file(temp_path("stderr"));
  const proc::Outcome o = proc::run(command);
  test::CliResult r;
  r.status = o.exited ? o.exit_status : -1;
  r.err = o.err;
  return r;
}

// One tile printing "tile 0 tick N" for ever: 3.07 million lines by the budget, which the
// model used to hold until the run's end (560 MB peak); now a buffer of 8 KiB.
TEST(ConsoleStream, TilePrintingForeverUnderMaxCyclesStaysUnder100MB) {
  const std::string json = temp_path("run.json");
  uint64_t lines = 0;
  bool in_order = true;
  const Streamed r = run_streamed("--config " + kGc200 + " --elf " + kSys +
                                      "chatter_forever.elf --tiles 0 --max-cycles 2500000000 --threads 2 --quiet "
                                      "--json " + json,
                                  [&](std::string_view line) {
                                    if (in_order && line != "[ipu 0 tile 0] tile 0 tick " + std::to_string(lines))
                                      in_order = false;
                                    ++lines;
                                    return true;
                                  });
  EXPECT_EQ(r.status, 4) << r.err;  // the cycle budget
  EXPECT_TRUE(in_order) << "line " << lines;
  EXPECT_GT(lines, 3'000'000u);
  EXPECT_LT(r.max_rss_kib, 100 * 1024) << "peak RSS " << r.max_rss_kib / 1024 << " MiB";
  const nlohmann::json j = json_file(json);
  EXPECT_EQ(j["console_lines"], lines);
  EXPECT_EQ(j["console_error"], nullptr);
}

// Tile t prints (t + 1) * 300 lines per superstep, 3 supersteps: every tile fills its
// buffer 2-11 times in the same superstep. The bytes are those of the documented order
// (superstep, tile, emission; an unbounded buffer's), on 1 and 2 host threads, with
// the same cycles.
TEST(ConsoleStream, OverflowingTilesKeepTheDocumentedOrder) {
  std::string expected;
  for (int s = 0; s < 3; ++s)
    for (int t = 0; t < 4; ++t) {
      expected += "[ipu 0 tile " + std::to_string(t) + " w 1] worker of tile " + std::to_string(t) + " step " +
                  std::to_string(s) + "\n";
      for (int i = 0; i < (t + 1) * 300; ++i)
        expected += "[ipu 0 tile " + std::to_string(t) + "] tile " + std::to_string(t) + " step " +
                    std::to_string(s) + " line " + std::to_string(i) + "\n";
    }
  std::vector<nlohmann::json> tiles;
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    const std::string json = temp_path("order" + std::to_string(threads) + ".json");
    const test::CliResult r = test::run_cli(kBin, "ipusim_console_",
                                            "--config " + kTiny4 + " --elf " + kSys + "chatter.elf --threads " +
                                                std::to_string(threads) + " --quiet --json " + json);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out == expected) << "output differs from the documented order (" << r.out.size() << " bytes, "
                                   << expected.size() << " expected)";
    const nlohmann::json j = json_file(json);
    EXPECT_EQ(j["console_lines"], 3 * (4 + 300 * (1 + 2 + 3 + 4)));
    tiles.push_back(j["per_tile"]);
  }
  ASSERT_EQ(tiles.size(), 2u);
  ASSERT_EQ(tiles[0].size(), 4u);
  for (size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(tiles[0][t]["cycles"], tiles[1][t]["cycles"]);
    EXPECT_EQ(tiles[0][t]["instructions"], tiles[1][t]["instructions"]);
  }
}

// The buffer's size changes nothing simulated: tiles with uneven work print more than
// their buffer in every superstep (the supervisor alone and, on the busiest tiles, while
// the workers run), sync and pass a value round a ring exchange that feeds the next
// superstep, on one IPU and on four. With the default 8 KiB, a buffer of one byte (a pause
// at every line) and one that never fills, on 1 and 2 host threads, stdout is the same bytes (the values
// received included) and the JSON has the same figures: per tile cycles, instructions,
// supersteps, syncs, exchange stalls and bytes; per superstep and tile begin / end
// cycles; the batches; only host timings may differ.
TEST(ConsoleStream, BufferSizeChangesNoByteOrCycle) {
  const auto simulated = [](nlohmann::json j) {
    for (const char* host : {"host_seconds", "mips", "elaboration_seconds", "iss_seconds", "kernel_share",
                             "batch_seconds", "serial_share", "exchange_plan_seconds", "exchange_parallel_seconds",
                             "host_threads", "host_components",
                             "jit_regions", "jit_code_bytes", "jit_seconds", "jit_share"})
      j.erase(host);
    return j;
  };
  // One IPU, and four IPUs on two boards ((ipu, tile) order across IPUs).
  for (const auto& [config, ipus] : {std::pair{kTiny4, 1u}, std::pair{std::string("configs/test/tiny4_m2000.yaml"), 4u}}) {
    std::string out0;
    nlohmann::json json0;
    for (const char* size : {"", "1", "1073741824"})
      for (int threads : {1, 2}) {
        const std::string buffer = size;
        SCOPED_TRACE(config + " --console-buffer '" + buffer + "' --threads " + std::to_string(threads));
        const std::string json = temp_path("buffer" + buffer + "_" + std::to_string(threads) + ".json");
        const test::CliResult r = test::run_cli(
            kBin, "ipusim_console_",
            "--config " + config + " --elf " + kSys + "uneven_chatter.elf --threads " + std::to_string(threads) +
                (buffer.empty() ? "" : " --console-buffer " + buffer) + " --quiet --json " + json);
        ASSERT_EQ(r.status, 0) << r.err;
        const nlohmann::json j = simulated(json_file(json));
        ASSERT_EQ(j["per_tile"].size(), 4u * ipus);
        if (out0.empty()) {
          // The run that sets the reference is the one this test is about.
          EXPECT_GT(j["console_lines"].get<uint64_t>(), 9000u * ipus);
          EXPECT_EQ(j["exchange_bytes"].get<uint64_t>(), 64u * ipus);
          for (const auto& t : j["per_tile"]) EXPECT_EQ(t["supersteps"], 5) << t;
          EXPECT_NE(r.out.find("[ipu " + std::to_string(ipus - 1) + " tile 3] done "), std::string::npos);
          out0 = r.out;
          json0 = j;
          continue;
        }
        EXPECT_TRUE(r.out == out0) << "stdout differs (" << r.out.size() << " bytes, " << out0.size()
                                   << " with the default buffer)";
        EXPECT_EQ(j, json0) << "simulated figures differ";
      }
  }
}

// stdout on a full device: the first failed write ends the run (a tile printing for ever
// would otherwise run to its budget for nothing); the error names the console and the OS
// error; status 5; the JSON says so.
TEST(ConsoleStream, FullDeviceIsAnError) {
  const std::string json = temp_path("full.json");
  const test::CliResult r =
      run_to_full_device("--config " + kGc200 + " --elf " + kSys + "chatter_forever.elf --tiles 0 --max-cycles "
                         "100000000000 --threads 2 --json " + json);
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("ipusim: error: console: writing stdout failed: No space left on device"), std::string::npos)
      << r.err;
  const nlohmann::json j = json_file(json);
  EXPECT_EQ(j["exit_code"], 5);
  EXPECT_EQ(j["console_error"], "No space left on device");
  EXPECT_EQ(j["stop_reason"], "console error");
  // Ended at the error, long before the budget of 1e11 cycles.
  EXPECT_LT(j["tile_cycles"].get<uint64_t>(), uint64_t{100000000000}) << r.err;
}

// A run that ends by itself, its few lines lost in a full device: still an error.
TEST(ConsoleStream, FullDeviceFailsARunThatHalts) {
  const test::CliResult r = run_to_full_device("--config " + kTiny4 + " --elf " + kSys + "chatter.elf --quiet");
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("console: writing stdout failed: No space left on device"), std::string::npos) << r.err;
}

// A reader that stops reading, then goes away: --timeout expires while the run waits on
// the full pipe, and the write then fails. Both ended the run; the console error wins
// everywhere (docs/platform.md "Exit status"): status 5, stop_reason "console error",
// the console's line and no timeout line.
TEST(ConsoleStream, ConsoleErrorWinsOverATimeoutInTheSameRun) {
  const std::string json = temp_path("timeout_pipe.json");
  const Streamed r = run_streamed("--config " + kTiny4 + " --elf " + kSys +
                                      "chatter_forever.elf --timeout 0.5 --threads 1 --quiet --json " + json,
                                  [](std::string_view) {
                                    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
                                    return false;
                                  });
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("ipusim: error: console: writing stdout failed: Broken pipe"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("ipusim: timeout:"), std::string::npos) << r.err;
  const nlohmann::json j = json_file(json);
  EXPECT_EQ(j["exit_code"], 5);
  EXPECT_EQ(j["stop_reason"], "console error");
  EXPECT_EQ(j["limits"]["timeout_seconds"], 0.5);
}

// A reader that goes away (`ipusim run ... | head -1`): no SIGPIPE death, the same error
// with the pipe's errno, and the summary still printed.
TEST(ConsoleStream, ClosedPipeIsAnError) {
  const Streamed r = run_streamed("--config " + kGc200 + " --elf " + kSys +
                                      "chatter_forever.elf --tiles 0 --max-cycles 100000000000 --threads 2",
                                  [](std::string_view) { return false; });
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("ipusim: error: console: writing stdout failed: Broken pipe"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tiles"), std::string::npos) << r.err;  // the summary
}

}  // namespace
}  // namespace ipusim
