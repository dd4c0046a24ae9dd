// The ipudrv API through both transports (driver_backend.h): opening, loading, tile and
// streaming-memory access, DMA chunking and DMA errors.
#include <ipu/hostif_regs.h>

#include <numeric>

#include "driver_backend.h"
#include "test_elf.h"

namespace drvtest {
namespace {

using ipudrv::Elf;
using ipudrv::TileRange;

std::vector<std::byte> pattern(size_t n, uint8_t seed) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t(seed + i * 7 + (i >> 8)));
  return v;
}

std::vector<uint8_t> as_u8(std::span<const std::byte> s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), reinterpret_cast<const uint8_t*>(s.data()) + s.size()};
}

Elf test_program(uint32_t marker, uint32_t data_addr = 0x48000) {
  testelf::Image img;
  img.code = {0x00000013, 0x00000013, marker, 0x0000006f};
  img.data = {1, 2, 3, 4, 5, 6, 7, 8};
  img.data_addr = data_addr;
  img.bss_bytes = 24;
  img.symbols = {{"input", data_addr}, {"output", data_addr + 16}};
  return Elf::from_bytes(testelf::build(img), "test" + std::to_string(marker) + ".elf");
}

class DriverApi : public DriverTest {};

TEST_P(DriverApi, EnumerateAndOpenReadTheBoardRegisters) {
  auto refs = ipudrv::enumerate(locator());
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].info().tiles_per_ipu, 4u);
  auto dev = refs[0].open();
  const auto& i = dev->info();
  EXPECT_EQ(i.ipus, 2u);
  EXPECT_EQ(i.sram_bytes, 64u * 1024);
  EXPECT_EQ(i.smem_bytes, 1u << 20);
  EXPECT_EQ(i.version_major, IPU_VERSION_MAJOR);
  EXPECT_TRUE(i.has_streams);
  EXPECT_EQ(dev->state(), IPU_STATE_IDLE);
}

TEST_P(DriverApi, LoadBroadcastsEverySegmentAndBootsEveryTile) {
  auto dev = open();
  const Elf elf = test_program(0x12345678);
  dev->load(elf);
  fake().settle();
  EXPECT_EQ(dev->state(), IPU_STATE_READY);
  EXPECT_EQ(dev->stats().booted_tiles, 8u);
  EXPECT_EQ(fake().last_boot_entry(), elf.entry());
  // Two segments (code; data + bss) broadcast once per IPU: 4 descriptors for 8 tiles.
  EXPECT_EQ(fake().counters().broadcast_descriptors, 4u);
  for (uint32_t ipu = 0; ipu < 2; ++ipu)
    for (uint32_t t = 0; t < 4; ++t) {
      const auto code = fake().tile_bytes(ipu, t, 0x40008, 4);
      EXPECT_EQ(code, (std::vector<uint8_t>{0x78, 0x56, 0x34, 0x12})) << "ipu " << ipu << " tile " << t;
      const auto data = fake().tile_bytes(ipu, t, 0x48000, 32);
      EXPECT_EQ(data[7], 8);
      EXPECT_EQ(std::accumulate(data.begin() + 8, data.end(), 0), 0) << ".bss zeroed";
    }
}

TEST_P(DriverApi, LoadReplacesBssGarbageWithZeros) {
  auto dev = open();
  std::vector<std::byte> junk(32, std::byte{0xEE});
  dev->write_tiles({0, 0, 4}, 0x48000, junk);
  dev->load(test_program(1));
  fake().settle();
  const auto data = fake().tile_bytes(0, 2, 0x48008, 24);
  EXPECT_EQ(data, std::vector<uint8_t>(24, 0));
}

TEST_P(DriverApi, ProgramsByTileRangeAndSymbolsPerTile) {
  auto dev = open();
  std::map<TileRange, Elf> programs;
  programs.emplace(TileRange{0, 0, 2}, test_program(0xAAAA0001, 0x48000));
  programs.emplace(TileRange{0, 2, 2}, test_program(0xBBBB0002, 0x4C000));
  programs.emplace(TileRange{1, 0, 1}, test_program(0xCCCC0003, 0x48000));
  dev->load(programs);
  EXPECT_EQ(dev->stats().booted_tiles, 5u);
  EXPECT_EQ(dev->symbol_address(0, 1, "input"), 0x48000u);
  EXPECT_EQ(dev->symbol_address(0, 3, "input"), 0x4C000u);
  EXPECT_EQ(fake().tile_bytes(0, 3, 0x40008, 4), (std::vector<uint8_t>{0x02, 0x00, 0xBB, 0xBB}));
  EXPECT_THROW(dev->symbol_address(1, 2, "input"), ipudrv::UsageError) << "nothing loaded on ipu 1 tile 2";
  EXPECT_THROW(dev->symbol_address(0, 0, "missing"), ipudrv::UsageError);

  const auto in = pattern(16, 3);
  dev->write_symbol(0, 3, "input", in);
  EXPECT_EQ(fake().tile_bytes(0, 3, 0x4C000, 16), as_u8(in));
  std::vector<std::byte> back(16);
  dev->read_symbol(0, 3, "input", back);
  EXPECT_EQ(back, in);

  std::map<TileRange, Elf> overlapping;
  overlapping.emplace(TileRange{0, 0, 3}, test_program(1));
  overlapping.emplace(TileRange{0, 2, 2}, test_program(2));
  EXPECT_THROW(dev->load(overlapping), ipudrv::UsageError);
}

// A tensor over both IPUs at one tile address: per-tile descriptors (DESC_FLAG_PER_TILE),
// one per run of consecutive tiles with equal blocks, scatter and gather, as the fake
// board honours them (docs/host_if.md "DMA").
TEST_P(DriverApi, TensorsMoveByPerTileDescriptors) {
  auto dev = open();
  dev->load(test_program(0x600D));
  const uint32_t addr = 0x4E000;
  // 19 rows of 5 u32 over 8 tiles: tiles 0-2 of IPU 0 get 3 rows, the rest 2: three runs.
  const ipudrv::TensorLayout layout{{19, 5}, ipudrv::DType::kU32, ipudrv::Mapping::blocked_rows(ipudrv::all_tiles(dev->info())),
                                    ipudrv::Location::at(addr)};
  const auto data = pattern(layout.bytes(), 9);
  const auto before = fake().counters();
  dev->write_tensor(layout, data);
  const auto after = fake().counters();
  EXPECT_EQ(after.descriptors - before.descriptors, 3u);
  EXPECT_EQ(after.broadcast_descriptors, before.broadcast_descriptors) << "a scatter is not a broadcast";
  EXPECT_EQ(after.largest_descriptor, 3u * 3 * 20) << "tiles 0-2 of IPU 0 in one descriptor";
  size_t at = 0;
  for (uint32_t ipu = 0; ipu < 2; ++ipu)
    for (uint32_t t = 0; t < 4; ++t) {
      const size_t n = (ipu == 0 && t < 3 ? 3 : 2) * 20;
      std::vector<std::byte> got(n);
      dev->read_tile(ipu, t, addr, got);
      EXPECT_EQ(as_u8(got), as_u8(std::span(data).subspan(at, n))) << "ipu " << ipu << " tile " << t;
      at += n;
    }
  std::vector<std::byte> back(data.size());
  const ipudrv::DmaStats s0 = dev->dma_stats();
  dev->read_tensor(layout, back);
  EXPECT_EQ(dev->dma_stats().from_device.descriptors - s0.from_device.descriptors, 3u);
  EXPECT_EQ(as_u8(back), as_u8(data));
}

TEST_P(DriverApi, SymbolAccessIsBoundedByTheSymbolsSize) {
  auto dev = open();
  testelf::Image img;
  img.code = {0x00000013, 0x0000006f};
  img.data_addr = 0x48000;
  img.bss_bytes = 64;
  img.symbols = {{"input", 0x48000}, {"label", 0x48020}};
  img.symbol_sizes = {{"input", 24}};  // "label" keeps st_size 0, as an assembler label does
  dev->load(Elf::from_bytes(testelf::build(img), "sized.elf"));
  fake().settle();

  const auto full = pattern(24, 5);
  dev->write_symbol(0, 3, "input", full);  // exactly the size is fine
  std::vector<std::byte> back(24);
  dev->read_symbol(0, 3, "input", back);
  EXPECT_EQ(back, full);

  const auto more = pattern(25, 9);
  try {
    dev->write_symbol(0, 3, "input", more);
    ADD_FAILURE() << "a write past the symbol's size was accepted";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_STREQ(e.what(), "write_symbol: 'input' is 24 bytes (ipu 0 tile 3), 25 given");
  }
  EXPECT_EQ(fake().tile_bytes(0, 3, 0x48000, 24), as_u8(full)) << "the refused write changed nothing";
  std::vector<std::byte> wide(32);
  try {
    dev->read_symbol(0, 3, "input", wide);
    ADD_FAILURE() << "a read past the symbol's size was accepted";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_STREQ(e.what(), "read_symbol: 'input' is 24 bytes (ipu 0 tile 3), 32 given");
  }

  // A label (size 0) spans what the caller says, as before.
  const auto after = pattern(32, 7);
  dev->write_symbol(0, 3, "label", after);
  EXPECT_EQ(fake().tile_bytes(0, 3, 0x48020, 32), as_u8(after));
  dev->read_symbol(0, 3, "label", wide);
  EXPECT_EQ(wide, after);
}

TEST_P(DriverApi, LargeTransfersAreChunkedThroughSmallRingsAndStaging) {
  ipudrv::OpenOptions o;
  o.ring_entries = 4;
  o.chunk_bytes = 4096;
  o.staging_bytes = 8192;
  auto dev = open(o);
  const auto data = pattern(60 * 1024 + 13, 9);
  const auto before = fake().counters();
  dev->write_tile(1, 3, 0x40000, data);
  const auto after = fake().counters();
  EXPECT_EQ(after.descriptors - before.descriptors, 16u);  // ceil(61453 / 4096)
  EXPECT_LE(after.largest_descriptor, 4096u);
  EXPECT_EQ(after.doorbells - before.doorbells, 8u);       // two 4 KiB pieces fill the staging
  EXPECT_EQ(fake().tile_bytes(1, 3, 0x40000, uint32_t(data.size())), as_u8(data));
  std::vector<std::byte> back(data.size());
  dev->read_tile(1, 3, 0x40000, back);
  EXPECT_EQ(back, data);
}

TEST_P(DriverApi, StreamingMemoryAllocateWriteRead) {
  auto dev = open();
  auto a = dev->alloc_smem(1000);
  auto b = dev->alloc_smem(4096, 4096);
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(b.offset % 4096, 0u);
  EXPECT_GE(b.offset, 1000u);
  const auto data = pattern(4096, 1);
  dev->write_smem(b.offset, data);
  EXPECT_EQ(fake().smem_bytes(b.offset, 4096), as_u8(data));
  std::vector<std::byte> back(4096);
  dev->read_smem(b.offset, back);
  EXPECT_EQ(back, data);
  dev->free_smem(a);
  EXPECT_EQ(dev->alloc_smem(512).offset, 0u) << "freed space is reused";
  EXPECT_THROW(dev->free_smem(a), ipudrv::UsageError);
  EXPECT_THROW(dev->alloc_smem(2u << 20), ipudrv::StreamingMemoryError);
}

TEST_P(DriverApi, DeviceRejectedDmaIsTypedAndTheChannelRecovers) {
  auto dev = open();
  const auto data = pattern(64, 5);
  try {
    dev->write_smem((1u << 20) - 16, data);
    FAIL() << "a write past the end of streaming memory succeeded";
  } catch (const ipudrv::StreamingMemoryError& e) {
    ASSERT_TRUE(e.device_error().has_value());
    EXPECT_EQ(e.device_error()->code, IPU_ERR_SMEM_RANGE);
    EXPECT_EQ(e.device_error()->addr, (1u << 20) - 16);
    EXPECT_NE(std::string(e.what()).find("SMEM_RANGE"), std::string::npos) << e.what();
  }
  try {
    dev->write_tile(0, 0, 0x40000 + 64 * 1024 - 8, data);
    FAIL() << "a write past tile SRAM succeeded";
  } catch (const ipudrv::DmaError& e) {
    ASSERT_TRUE(e.device_error().has_value());
    EXPECT_EQ(e.device_error()->code, IPU_ERR_DMA_TILE);
  }
  dev->write_smem(0, data);  // the halted channel was re-programmed
  EXPECT_EQ(fake().smem_bytes(0, 64), as_u8(data));
}

TEST_P(DriverApi, BadArgumentsAreUsageErrors) {
  auto dev = open();
  std::vector<std::byte> b(4);
  EXPECT_THROW(dev->write_tile(2, 0, 0x40000, b), ipudrv::UsageError);
  EXPECT_THROW(dev->read_tile(0, 4, 0x40000, b), ipudrv::UsageError);
  EXPECT_THROW(dev->write_tiles({0, 3, 2}, 0x40000, b), ipudrv::UsageError);
  EXPECT_THROW(dev->connect_h2d_stream(64, std::span<const std::byte>(b)), ipudrv::UsageError);
  EXPECT_THROW(dev->run(), ipudrv::UsageError) << "nothing loaded";
  if (GetParam() == Backend::kSocket) {
    try {
      ipudrv::open(locator());
      FAIL() << "a second session while one is open";
    } catch (const ipudrv::TransportError& e) {
      EXPECT_NE(std::string(e.what()).find("another client"), std::string::npos) << e.what();
    }
  }
  dev.reset();
  EXPECT_THROW(ipudrv::open(locator(), 1), ipudrv::UsageError);
}

TEST(DriverLocators, UnknownSocketAndEmptyLocatorFailClearly) {
  try {
    ipudrv::enumerate("unix:" + scratch_socket("none"));
    FAIL();
  } catch (const ipudrv::TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ipudrv::enumerate(""), ipudrv::UsageError);
  // The device model is in this build: a config that does not exist is named.
  try {
    ipudrv::enumerate("config:configs/no_such_config.yaml");
    FAIL();
  } catch (const ipudrv::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_config.yaml"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, DriverApi, ::testing::Values(Backend::kInProcess, Backend::kSocket), backend_name);

}  // namespace
}  // namespace drvtest
