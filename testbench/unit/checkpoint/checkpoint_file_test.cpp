#include <gtest/gtest.h>

#include <algorithm>
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

// A section streamed into the file (Section::produce, as the SRAM pages are) reads back
// as the same bytes held whole would, checksum and all; one that emits other than its
// declared size is a Write error and leaves no file behind.
TEST(CheckpointFile, AStreamedSectionReadsBackAsItsBytes) {
  const std::string dir = temp_dir();
  Checkpoint c = sample();
  std::vector<uint8_t> pages(300000);
  for (size_t i = 0; i < pages.size(); ++i) pages[i] = uint8_t(i % 5 == 0 ? i * 13 : i / 4096);
  Section streamed;
  streamed.name = "sram";
  streamed.size = pages.size();
  streamed.produce = [&pages](const Section::Emit& emit) {
    for (size_t at = 0; at < pages.size(); at += 7000)
      emit({pages.data() + at, std::min<size_t>(7000, pages.size() - at)});
  };
  c.sections.push_back(streamed);
  c.sections.push_back({"after", {1, 2, 3}, false});
  write_checkpoint(dir, c);
  const Checkpoint r = read_checkpoint(dir);
  ASSERT_EQ(r.sections.size(), 4u);
  EXPECT_EQ(r.section("sram"), pages);
  EXPECT_EQ(r.section("pages"), c.sections[1].data);
  EXPECT_EQ(r.section("after"), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_LT(file_bytes(dir).size(), pages.size());
  // Its checksum covers it: a flipped stored byte is refused.
  std::vector<uint8_t> bad = file_bytes(dir);
  bad[bad.size() / 2] ^= 0x04;  // in the streamed bytes, the bulk of the file
  EXPECT_EQ(refusal(bad), CheckpointError::Kind::Corrupt);

  std::filesystem::remove_all(dir);
  c.sections[2].size = pages.size() + 1;
  try {
    write_checkpoint(dir, c);
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointError::Kind::Write);
    EXPECT_NE(std::string(e.what()).find("'sram': 300000 byte(s) produced, 300001 declared"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
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
    EXPECT_NE(std::string(e.what()).find("format version 3, this ipusim reads version 2"), std::string::npos) << e.what();
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
