// Inputs are bounded (docs/config.md "Files", docs/firmware.md): a config or an ELF that is
// a device, a directory or too large, a deeply nested YAML file and an empty --tiles are
// refused at once with an error naming what and where, exit 2, instead of reading for
// ever, growing memory or running every tile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kHello = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";
const std::string kTiny4 = "configs/test/tiny4.yaml";

test::CliResult ipusim(const std::string& args) { return test::run_command(kBin, "inputs_", args); }

std::string temp_path(const std::string& name) { return test::temp_path("inputs_", name); }

// Exit 2, and stderr says `expected`.
void expect_refused(const test::CliResult& r, const std::string& expected) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  EXPECT_LT(r.max_rss_kib, 200 * 1024) << "read into memory before refusing";
}

TEST(Inputs, DevicesAreNotConfigsOrElfs) {
  expect_refused(ipusim("run --config /dev/zero --elf " + kHello),
                 "/dev/zero: cannot read the file: not a regular file (a device, a pipe or a socket)");
  expect_refused(ipusim("info --config /dev/zero"), "/dev/zero: cannot read the file: not a regular file");
  expect_refused(ipusim("run --config " + kTiny4 + " --elf /dev/zero"),
                 "/dev/zero: cannot read the ELF: not a regular file (a device, a pipe or a socket)");
}

TEST(Inputs, ABoardsChipThatIsADeviceIsNamedWhereItIsGiven) {
  const std::string board = temp_path("board.yaml");
  std::ofstream(board) << "kind: board\nname: b\nchip: /dev/zero\nipus: 1\n";
  const test::CliResult r = ipusim("info --config " + board);
  expect_refused(r, board + ":3");
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

TEST(Inputs, ADirectoryAsElfNamesThePath) {
  const std::string dir = temp_path("elfdir");
  std::filesystem::create_directories(dir);
  expect_refused(ipusim("run --config " + kTiny4 + " --elf " + dir), dir + ": cannot read the ELF: it is a directory");
}

TEST(Inputs, OversizedFilesAreRefusedUnread) {
  const std::string big = temp_path("big.yaml");
  std::filesystem::resize_file((std::ofstream(big), big), (uint64_t{16} << 20) + 1);  // sparse: costs no disk
  expect_refused(ipusim("info --config " + big), "16777217 bytes, more than the 16777216 a config file may have");
  const std::string elf = temp_path("big.elf");
  std::filesystem::resize_file((std::ofstream(elf), elf), (uint64_t{256} << 20) + 1);
  expect_refused(ipusim("run --config " + kTiny4 + " --elf " + elf), "more than the 268435456 a firmware ELF may have");
}

TEST(Inputs, DeeplyNestedYamlGetsALocatedError) {
  const std::string deep = temp_path("deep.yaml");
  std::ofstream(deep) << "kind: chip\nname: x\nlinks: " << std::string(100000, '[') << "\n";
  expect_refused(ipusim("info --config " + deep), deep + ":3: nested more than 64 levels deep");
}

TEST(Inputs, AnEmptyTileListIsAnError) {
  expect_refused(ipusim("run --config " + kTiny4 + " --elf " + kHello + " --tiles ''"), "--tiles: empty tile list");
}

// Found by the issue's hostile user (issue 37): `--link-faults ';'` gave CLI11's "1
// required TEXT missing", and `ber=1e-400` "not a number".
TEST(Inputs, LinkFaultItemsThatAreEmptyOrOutOfRangeAreNamed) {
  const std::string run = "run --config configs/test/tiny4_m2000.yaml --elf " + kHello;
  for (const char* items : {"';'", "'ber=1e-6;'", "'; 3:periodic=50'", "''"})
    expect_refused(ipusim(run + " --link-faults " + items), "--link-faults '" + std::string(items).substr(1, std::string(items).size() - 2) +
                                                                "': an empty item (give [LINK:]SPEC items");
  expect_refused(ipusim(run + " --link-faults ber=1e-400"),
                 "--link-faults 'ber=1e-400': link faults: ber=1e-400: out of range: underflows a double");
}

}  // namespace
}  // namespace ipusim
