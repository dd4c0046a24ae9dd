#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "checkpoint/build_id.h"
#include "checkpoint/byte_io.h"
#include "checkpoint/checkpoint_file.h"
#include "checkpoint/content_hash.h"

namespace ipusim::checkpoint {
namespace {

Checkpoint sample() {
  Checkpoint c;
  c.header.build_id = build_id();
  c.header.config_hash = content_hash(std::string_view("chip: {tiles: 4}"));
  c.header.elf_hashes = {content_hash(std::string_view("elf")), 7};
  c.header.superstep = 12;
  ByteWriter w;
  w.u32(0xdeadbeef);
  w.str("a line");
  w.u64(1u << 20);
  c.sections.push_back({"plain", w.data(), false});
  std::vector<uint8_t> pages(20000);
  for (size_t i = 0; i < pages.size(); ++i) pages[i] = uint8_t(i % 7 == 0 ? i : 0);
  c.sections.push_back({"pages", pages, true});
  return c;
}

std::string temp_dir() {
  const std::string d =
      ::testing::TempDir() + "ckpt_file_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(d);
  return d;
}

std::vector<uint8_t> file_bytes(const std::string& dir) {
  std::ifstream in(dir + "/" + kStateFile, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(CheckpointFile, RoundTripsHeaderAndSectionsAndWritesAtomically) {
  const std::string dir = temp_dir();
  const Checkpoint c = sample();
  write_checkpoint(dir, c);
  write_checkpoint(dir, c);  // over the old one
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}), 1);
  const Checkpoint r = read_checkpoint(dir);
  EXPECT_EQ(r.header.build_id, c.header.build_id);
  EXPECT_EQ(r.header.config_hash, c.header.config_hash);
  EXPECT_EQ(r.header.elf_hashes, c.header.elf_hashes);
  EXPECT_EQ(r.header.superstep, 12u);
  ASSERT_EQ(r.sections.size(), 2u);
  EXPECT_EQ(r.section("plain"), c.sections[0].data);
  EXPECT_EQ(r.section("pages"), c.sections[1].data);
  // Compressed: the sparse pages take far less than their size.
  EXPECT_LT(file_bytes(dir).size(), 8000u);
  ByteReader br(r.section("plain"), "plain");
  EXPECT_EQ(br.u32("a"), 0xdeadbeefu);
  EXPECT_EQ(br.str("b"), "a line");
  EXPECT_EQ(br.u64("c"), 1u << 20);
  br.expect_end();
  std::filesystem::remove_all(dir);
}

CheckpointError::Kind refusal(const std::vector<uint8_t>& bytes) {
  try {
    parse_checkpoint(bytes, "test");
  } catch (const CheckpointError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return CheckpointError::Kind::Write;
}

TEST(CheckpointFile, EveryTruncationIsRefusedNamed) {
  const std::string dir = temp_dir();
  write_checkpoint(dir, sample());
  const std::vector<uint8_t> whole = file_bytes(dir);
  for (size_t n = 0; n < whole.size(); ++n) {
    const std::vector<uint8_t> cut(whole.begin(), whole.begin() + std::ptrdiff_t(n));
    const CheckpointError::Kind k = refusal(cut);
    EXPECT_TRUE(k == CheckpointError::Kind::Truncated || (n < 8 && k == CheckpointError::Kind::NotACheckpoint))
        << n << ": " << CheckpointError::name(k);
  }
  std::filesystem::remove_all(dir);
}

TEST(CheckpointFile, EveryFlippedByteIsRefusedNamed) {
  const std::string dir = temp_dir();
  write_checkpoint(dir, sample());
  const std::vector<uint8_t> whole = file_bytes(dir);
  for (size_t i = 0; i < whole.size(); ++i) {
    std::vector<uint8_t> bad = whole;
    bad[i] ^= 0x01;
    const CheckpointError::Kind k = refusal(bad);
    // A length made larger reads as a truncated file; anything else is corrupt (or, in
    // the magic / version, not a checkpoint of this version).
    EXPECT_TRUE(k == CheckpointError::Kind::Corrupt || k == CheckpointError::Kind::Truncated ||
                k == CheckpointError::Kind::NotACheckpoint || k == CheckpointError::Kind::Version)
        << i << ": " << CheckpointError::name(k);
  }
  std::filesystem::remove_all(dir);
}

TEST(CheckpointFile, AnotherBuildOrVersionIsRefusedNamingBoth) {
  const std::string dir = temp_dir();
  Checkpoint c = sample();
  c.header.build_id = "v0-other";
  write_checkpoint(dir, c);
  try {
    read_checkpoint(dir);
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointError::Kind::Build);
    EXPECT_NE(std::string(e.what()).find("written by ipusim build 'v0-other', this is build '" + std::string(build_id())),
              std::string::npos)
        << e.what();
  }
  c.header.build_id = build_id();
  c.header.version = kFormatVersion + 1;
  write_checkpoint(dir, c);
  try {
    read_checkpoint(dir);
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointError::Kind::Version);
    EXPECT_NE(std::string(e.what()).find("format version 2, this ipusim reads version 1"), std::string::npos) << e.what();
  }
  try {
    read_checkpoint(dir + "/none");
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointError::Kind::Missing);
  }
  std::filesystem::remove_all(dir);
}

TEST(CheckpointFile, ASectionReadPastItsEndNamesTheSectionAndField) {
  const std::vector<uint8_t> three = {1, 2, 3};
  ByteReader r(three, "tiles");
  try {
    r.u32("registers");
    FAIL() << "read past the end";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointError::Kind::Corrupt);
    EXPECT_NE(std::string(e.what()).find("section 'tiles': 'registers' needs 4 byte(s) at offset 0, 3 left"),
              std::string::npos)
        << e.what();
  }
  ByteReader big(three, "sram");
  EXPECT_THROW(big.count("pages", 4), CheckpointError);
}

}  // namespace
}  // namespace ipusim::checkpoint
