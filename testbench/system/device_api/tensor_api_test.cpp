// Tensors over tiles through the public API on the device model, both transports
// (docs/host_driver.md "Tensors"): every mapping against a host reference computed here
// independently of the driver (what each tile must hold, read back tile by tile), every
// dtype size, uneven splits, tiles that get nothing, 2-D blocks, replication, per-tile
// pieces, a tile address, launch arguments, IPUs of four boards (tiny4_pod16); the
// descriptors each call posts (one per run of consecutive tiles with equal blocks), read
// back equal to what was written, every bad input a UsageError naming it, and the C API.
#include <ipudrv/ipudrv.h>

#include <cstring>
#include <numeric>
#include <random>
#include <tuple>

#include "device_fixture.h"

namespace devapi {
namespace {

using ipudrv::DType;
using ipudrv::Location;
using ipudrv::Mapping;
using ipudrv::TensorLayout;
using ipudrv::TileId;
using ipudrv::TileList;

std::vector<std::byte> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> v(n);
  for (auto& b : v) b = std::byte(rng());
  return v;
}

// Near-equal split of `total` over `n`, the first total % n one more: counted out one by
// one, not by the driver's formula.
std::vector<uint64_t> counts(uint64_t total, uint64_t n) {
  std::vector<uint64_t> c(n, 0);
  for (uint64_t k = 0, i = 0; k < total; ++k, i = (i + 1) % n) ++c[i];
  return c;
}

// What tile i of a blocked_rows mapping holds.
std::vector<std::vector<std::byte>> blocked_rows_reference(const std::vector<std::byte>& t, uint64_t rows, size_t n) {
  const uint64_t row_bytes = t.size() / rows;
  std::vector<std::vector<std::byte>> out;
  uint64_t at = 0;
  for (uint64_t c : counts(rows, n)) {
    out.emplace_back(t.begin() + at * row_bytes, t.begin() + (at + c) * row_bytes);
    at += c;
  }
  return out;
}

class Tensor : public DeviceApiTest {
 protected:
  std::unique_ptr<ipudrv::Device> open_loaded(const std::string& config) {
    auto dev = open(config);
    dev->load(ipudrv::Elf::from_file(firmware("tensor_buffers.elf")));
    return dev;
  }
  // Zeros over the first KiB of every tile's tensor_buf (one broadcast).
  static void clear(ipudrv::Device& dev) {
    const std::vector<std::byte> zeros(1024);
    dev.write_tensor({{1024}, DType::kU8, Mapping::replicated(ipudrv::all_tiles(dev.info())),
                      Location::symbol("tensor_buf")},
                     zeros);
  }
  // Each tile's block at the symbol equals `want[i]`, and the byte after it is still 0.
  static void expect_tiles(ipudrv::Device& dev, const TileList& tiles, const std::vector<std::vector<std::byte>>& want,
                           const std::string& symbol = "tensor_buf") {
    ASSERT_EQ(tiles.size(), want.size());
    for (size_t i = 0; i < tiles.size(); ++i) {
      std::vector<std::byte> got(want[i].size() + 8);
      dev.read_symbol(tiles[i].ipu, tiles[i].tile, symbol, got);
      EXPECT_TRUE(std::equal(want[i].begin(), want[i].end(), got.begin()))
          << "ipu " << tiles[i].ipu << " tile " << tiles[i].tile << ": its block differs";
      EXPECT_EQ(got[want[i].size()], std::byte(0)) << "ipu " << tiles[i].ipu << " tile " << tiles[i].tile
                                                   << ": a byte written past its block";
    }
  }
  // Descriptors posted to / from the device by `fn`.
  template <class Fn>
  static std::pair<uint64_t, uint64_t> descriptors(ipudrv::Device& dev, Fn&& fn) {
    const ipudrv::DmaStats a = dev.dma_stats();
    fn();
    const ipudrv::DmaStats b = dev.dma_stats();
    return {b.to_device.descriptors - a.to_device.descriptors, b.from_device.descriptors - a.from_device.descriptors};
  }
};

TEST_P(Tensor, BlockedRowsOfEveryDtypeMatchTheReference) {
  auto dev = open_loaded("configs/test/tiny16.yaml");
  const TileList tiles = ipudrv::all_tiles(dev->info());
  ASSERT_EQ(tiles.size(), 16u);
  const DType all[] = {DType::kU8,  DType::kI8,  DType::kU16, DType::kI16, DType::kU32, DType::kI32,
                       DType::kU64, DType::kI64, DType::kF16, DType::kBF16, DType::kF32, DType::kF64};
  for (DType dt : all) {
    SCOPED_TRACE(ipudrv::dtype_name(dt));
    // 37 rows over 16 tiles: five tiles of 3 rows, eleven of 2: two runs, two descriptors.
    const TensorLayout layout{{37, 3}, dt, Mapping::blocked_rows(tiles), Location::symbol("tensor_buf")};
    ASSERT_EQ(layout.bytes(), 37 * 3 * ipudrv::dtype_size(dt));
    const auto data = random_bytes(layout.bytes(), uint64_t(dt) + 1);
    clear(*dev);
    auto [h2d, d2h] = descriptors(*dev, [&] { dev->write_tensor(layout, data); });
    EXPECT_EQ(h2d, 2u);
    EXPECT_EQ(d2h, 0u);
    expect_tiles(*dev, tiles, blocked_rows_reference(data, 37, 16));
    std::vector<std::byte> back(data.size());
    std::tie(h2d, d2h) = descriptors(*dev, [&] { dev->read_tensor(layout, back); });
    EXPECT_EQ(d2h, 2u);
    EXPECT_TRUE(back == data);
  }
  // Fewer rows than tiles: the first five get one each, the rest nothing (and no DMA).
  const TensorLayout small{{5}, DType::kU32, Mapping::blocked_rows(tiles), Location::symbol("launch_args")};
  const auto before = random_bytes(16, 99);
  for (const TileId& t : tiles) dev->write_symbol(t.ipu, t.tile, "launch_args", before);
  const std::vector<uint32_t> v = {11, 22, 33, 44, 55};
  auto [h2d, d2h] = descriptors(*dev, [&] { dev->write_tensor(small, std::span<const uint32_t>(v)); });
  EXPECT_EQ(h2d, 1u);
  for (uint32_t t = 0; t < 16; ++t) {
    std::vector<std::byte> got(16);
    dev->read_symbol(0, t, "launch_args", got);
    auto want = before;
    if (t < 5) std::memcpy(want.data(), &v[t], 4);
    EXPECT_TRUE(got == want) << "tile " << t;
  }
  std::vector<uint32_t> back(5);
  dev->read_tensor(small, std::span<uint32_t>(back));
  EXPECT_EQ(back, v);
}

TEST_P(Tensor, Blocked2DGivesTileRTimesColsPlusCBlockRC) {
  auto dev = open_loaded("configs/test/tiny16.yaml");
  const uint64_t R = 10, C = 13;
  std::vector<float> a(R * C);
  std::iota(a.begin(), a.end(), 0.5f);
  const auto bytes = std::as_bytes(std::span(a));
  // The reference: block (r, c) of a gr x gc grid, rows and columns counted out.
  auto reference = [&](uint32_t gr, uint32_t gc) {
    const auto rc = counts(R, gr), cc = counts(C, gc);
    std::vector<std::vector<std::byte>> out;
    for (uint32_t r = 0, r0 = 0; r < gr; r0 += uint32_t(rc[r]), ++r)
      for (uint32_t c = 0, c0 = 0; c < gc; c0 += uint32_t(cc[c]), ++c) {
        std::vector<std::byte> block;
        for (uint64_t i = r0; i < r0 + rc[r]; ++i)
          for (uint64_t j = c0; j < c0 + cc[c]; ++j) {
            const auto* p = reinterpret_cast<const std::byte*>(&a[i * C + j]);
            block.insert(block.end(), p, p + 4);
          }
        out.push_back(block);
      }
    return out;
  };
  const TileList tiles = ipudrv::tile_range(0, 0, 16);
  const TensorLayout grid4{{R, C}, DType::kF32, Mapping::blocked_2d(tiles, 4, 4), Location::symbol("tensor_buf")};
  // Block bytes row by row: 12 9 9 9 | 12 9 9 9 | 8 6 6 6 | 8 6 6 6 elements: eight runs.
  auto [h2d, d2h] = descriptors(*dev, [&] { dev->write_tensor(grid4, std::span<const float>(a)); });
  EXPECT_EQ(h2d, 8u);
  expect_tiles(*dev, tiles, reference(4, 4));
  std::vector<float> back(a.size());
  std::tie(h2d, d2h) = descriptors(*dev, [&] { dev->read_tensor(grid4, std::span<float>(back)); });
  EXPECT_EQ(d2h, 8u);
  EXPECT_EQ(back, a);

  // 2 x 8 over the tiles in reverse: no two neighbours in the list are consecutive tiles.
  TileList reversed(tiles.rbegin(), tiles.rend());
  const TensorLayout grid2{{R, C}, DType::kF32, Mapping::blocked_2d(reversed, 2, 8), Location::symbol("tensor_buf")};
  clear(*dev);
  std::tie(h2d, d2h) = descriptors(*dev, [&] { dev->write_tensor(grid2, bytes); });
  EXPECT_EQ(h2d, 16u);
  expect_tiles(*dev, reversed, reference(2, 8));
  std::fill(back.begin(), back.end(), 0.f);
  dev->read_tensor(grid2, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, a);
}

TEST_P(Tensor, ReplicatedIsABroadcastPerRunAndReadsTheFirstCopy) {
  auto dev = open_loaded("configs/test/tiny16.yaml");
  const auto data = random_bytes(200, 5);  // 100 x u16
  const TileList tiles = ipudrv::tile_range(0, 3, 10);
  const TensorLayout layout{{100}, DType::kU16, Mapping::replicated(tiles), Location::symbol("tensor_buf")};
  const ipudrv::DmaStats s0 = dev->dma_stats();
  dev->write_tensor(layout, data);
  const ipudrv::DmaStats s1 = dev->dma_stats();
  EXPECT_EQ(s1.to_device.descriptors - s0.to_device.descriptors, 1u);
  EXPECT_EQ(s1.to_device.bytes - s0.to_device.bytes, 200u) << "a broadcast carries its bytes once";
  expect_tiles(*dev, tiles, std::vector<std::vector<std::byte>>(tiles.size(), data));
  std::vector<std::byte> back(200);
  auto [h2d, d2h] = descriptors(*dev, [&] { dev->read_tensor(layout, back); });
  EXPECT_EQ(d2h, 1u);
  EXPECT_TRUE(back == data);
  // Two runs: 0, 1 and 5, 6.
  const TileList two_runs = {{0, 0}, {0, 1}, {0, 5}, {0, 6}};
  const auto other = random_bytes(200, 6);
  std::tie(h2d, d2h) = descriptors(*dev, [&] {
    dev->write_tensor({{100}, DType::kU16, Mapping::replicated(two_runs), Location::symbol("tensor_buf")}, other);
  });
  EXPECT_EQ(h2d, 2u);
  expect_tiles(*dev, two_runs, std::vector<std::vector<std::byte>>(4, other));
}

TEST_P(Tensor, PerTilePiecesAndATileAddress) {
  auto dev = open_loaded("configs/test/tiny16.yaml");
  std::vector<int32_t> v(40);
  std::iota(v.begin(), v.end(), -20);
  const Mapping pieces = Mapping::per_tile({{0, 7, 10, 5}, {0, 2, 0, 10}, {0, 3, 15, 20}});
  const TensorLayout layout{{40}, DType::kI32, pieces, Location::symbol("tensor_buf")};
  auto [h2d, d2h] = descriptors(*dev, [&] { dev->write_tensor(layout, std::span<const int32_t>(v)); });
  EXPECT_EQ(h2d, 3u) << "tiles 2 and 3 are neighbours but their pieces differ in size";
  auto slice = [&](size_t off, size_t n) {
    const auto b = std::as_bytes(std::span(v).subspan(off, n));
    return std::vector<std::byte>(b.begin(), b.end());
  };
  expect_tiles(*dev, {{0, 7}, {0, 2}, {0, 3}}, {slice(10, 5), slice(0, 10), slice(15, 20)});
  std::vector<int32_t> back(40, 12345);
  dev->read_tensor(layout, std::span<int32_t>(back));
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(back[i], i < 35 ? v[i] : 12345) << "element " << i << " (35.. are no piece's)";

  // A tile address instead of a symbol: blocked rows 64 bytes into tensor_buf.
  const uint32_t addr = dev->symbol_address(0, 0, "tensor_buf") + 64;
  const auto data = random_bytes(16 * 24, 8);
  const TensorLayout at{{16, 24}, DType::kU8, Mapping::blocked_rows(ipudrv::tile_range(0, 0, 16)), Location::at(addr)};
  std::tie(h2d, d2h) = descriptors(*dev, [&] { dev->write_tensor(at, data); });
  EXPECT_EQ(h2d, 1u);
  for (uint32_t t = 0; t < 16; ++t) {
    std::vector<std::byte> got(24);
    dev->read_tile(0, t, addr, got);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), data.begin() + t * 24)) << "tile " << t;
  }
  std::vector<std::byte> back2(data.size());
  dev->read_tensor(at, back2);
  EXPECT_TRUE(back2 == data);
}

TEST_P(Tensor, LaunchArgumentsPerTileInOneDescriptor) {
  auto dev = open_loaded("configs/test/tiny16.yaml");
  const TileList tiles = ipudrv::all_tiles(dev->info());
  std::vector<uint32_t> args(16 * 4);
  for (uint32_t t = 0; t < 16; ++t)
    for (uint32_t k = 0; k < 4; ++k) args[t * 4 + k] = t * 100 + k;
  auto [h2d, d2h] = descriptors(*dev, [&] { dev->write_per_tile(tiles, "launch_args", 16, std::as_bytes(std::span(args))); });
  EXPECT_EQ(h2d, 1u);
  for (uint32_t t = 0; t < 16; ++t) {
    uint32_t got[4];
    dev->read_symbol(0, t, "launch_args", std::as_writable_bytes(std::span(got)));
    for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(got[k], t * 100 + k) << "tile " << t;
  }
}

TEST_P(Tensor, BadInputIsAUsageErrorNamingIt) {
  auto dev = open("configs/test/tiny16.yaml");
  const TileList tiles = ipudrv::tile_range(0, 0, 4);
  const auto sym = Location::symbol("tensor_buf");
  std::vector<std::byte> data(48);
  auto write = [&](TensorLayout l, size_t n = 48) { dev->write_tensor(l, std::span(data).first(n)); };
  using ipudrv::UsageError;
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_rows(tiles), sym}); },
                           "write_tensor: no program loaded (ipu 0 tile 0) to hold 'tensor_buf'");
  dev->load(ipudrv::Elf::from_file(firmware("tensor_buffers.elf")));
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_rows(tiles), sym}, 40); },
                           "write_tensor: a u32 tensor of shape [12] is 48 bytes, 40 given");
  expect_error<UsageError>([&] { write({{}, DType::kU32, Mapping::blocked_rows(tiles), sym}); }, "the shape has no dimensions");
  expect_error<UsageError>([&] { write({{4, 0}, DType::kU32, Mapping::blocked_rows(tiles), sym}); }, "shape[1] is 0");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_rows({}), sym}); }, "the tile list is empty");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_rows({{0, 1}, {0, 16}}), sym}); },
                           "tile 1 (ipu 0 tile 16) is not on the device (1 IPUs of 16 tiles)");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::replicated({{1, 0}}), sym}); },
                           "tile 0 (ipu 1 tile 0) is not on the device");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_rows({{0, 1}, {0, 2}, {0, 1}}), sym}); },
                           "ipu 0 tile 1 is listed twice (entries 0 and 2)");
  expect_error<UsageError>([&] { write({{3, 4}, DType::kU32, Mapping::blocked_2d(tiles, 3, 2), sym}); },
                           "a 3 x 2 grid needs 6 tiles, 4 given");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_2d(tiles, 2, 2), sym}); },
                           "blocked_2d needs a 2-D tensor, the shape has 1 dimensions");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::per_tile({{0, 0, 0, 6}, {0, 1, 6, 7}}), sym}); },
                           "piece 1 (ipu 0 tile 1) is elements 6 + 7 of a tensor of 12");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::per_tile({{0, 0, 3, 0}}), sym}); }, "an empty piece");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::per_tile({{0, 0, 0, 6}, {0, 0, 6, 6}}), sym}); },
                           "ipu 0 tile 0 is listed twice");
  expect_error<UsageError>([&] { write({{12}, DType::kU32, Mapping::blocked_rows(tiles), Location::symbol("nope")}); },
                           "symbol 'nope' is not in");
  // launch_args is 64 bytes: 12 u32 rows on one tile are 48, 20 u32 are 80.
  std::vector<std::byte> big(80);
  expect_error<UsageError>(
      [&] { dev->write_tensor({{20}, DType::kU32, Mapping::blocked_rows({{0, 9}}), Location::symbol("launch_args")}, big); },
      "write_tensor: 'launch_args' is 64 bytes (ipu 0 tile 9), its block is 80");
  expect_error<UsageError>(
      [&] { dev->read_tensor({{20}, DType::kU32, Mapping::replicated(tiles), Location::symbol("launch_args")}, big); },
      "read_tensor: 'launch_args' is 64 bytes (ipu 0 tile 0), its block is 80");
  std::vector<float> f(12);
  expect_error<UsageError>(
      [&] { dev->write_tensor({{12}, DType::kU32, Mapping::blocked_rows(tiles), sym}, std::span<const float>(f)); },
      "write_tensor: the layout's dtype is u32, the data's f32");
  expect_error<UsageError>([&] { dev->write_per_tile(tiles, "launch_args", 16, std::span(data).first(40)); },
                           "write_per_tile: 4 tiles of 16 bytes are 64 bytes, 40 given");
  expect_error<UsageError>([&] { dev->write_per_tile(tiles, "launch_args", 0, {}); }, "bytes_per_tile is 0");
  // An address outside SRAM is the device's to refuse (a DMA error naming the tile).
  expect_error<ipudrv::DmaError>(
      [&] { write({{12}, DType::kU32, Mapping::blocked_rows({{0, 5}}), Location::at(16)}); }, "outside SRAM");
  // Nothing was written by the refused calls: the device still works.
  std::vector<uint32_t> v(12, 7), back(12);
  const TensorLayout ok{{12}, DType::kU32, Mapping::blocked_rows(tiles), sym};
  dev->write_tensor(ok, std::span<const uint32_t>(v));
  dev->read_tensor(ok, std::span<uint32_t>(back));
  EXPECT_EQ(back, v);
}

// 4 boards x 4 IPUs x 4 tiles as one device: each IPU's tiles are runs of their own board.
TEST_P(Tensor, TilesOfEveryBoardOfAPod) {
  auto dev = open_loaded("configs/test/tiny4_pod16.yaml");
  ASSERT_EQ(dev->info().boards, 4u);
  const TileList tiles = ipudrv::all_tiles(dev->info());
  ASSERT_EQ(tiles.size(), 64u);
  // 130 rows over 64 tiles: tiles 0 and 1 of IPU 0 get 3, every other 2: 17 runs.
  const TensorLayout layout{{130, 7}, DType::kU32, Mapping::blocked_rows(tiles), Location::symbol("tensor_buf")};
  const auto data = random_bytes(layout.bytes(), 11);
  auto [h2d, d2h] = descriptors(*dev, [&] { dev->write_tensor(layout, data); });
  EXPECT_EQ(h2d, 17u);
  const auto want = blocked_rows_reference(data, 130, 64);
  for (size_t i = 0; i < tiles.size(); ++i) {
    std::vector<std::byte> got(want[i].size());
    dev->read_tile(tiles[i].ipu, tiles[i].tile, dev->symbol_address(tiles[i].ipu, tiles[i].tile, "tensor_buf"), got);
    EXPECT_TRUE(got == want[i]) << "ipu " << tiles[i].ipu << " tile " << tiles[i].tile;
  }
  std::vector<std::byte> back(data.size());
  std::tie(h2d, d2h) = descriptors(*dev, [&] { dev->read_tensor(layout, back); });
  EXPECT_EQ(d2h, 17u);
  EXPECT_TRUE(back == data);
  // Replicated over every tile: one broadcast per IPU.
  const auto args = random_bytes(64, 12);
  std::tie(h2d, d2h) = descriptors(*dev, [&] {
    dev->write_tensor({{16}, DType::kF32, Mapping::replicated(tiles), Location::symbol("launch_args")}, args);
  });
  EXPECT_EQ(h2d, 16u);
  for (const TileId& t : {TileId{0, 0}, TileId{7, 2}, TileId{15, 3}}) {
    std::vector<std::byte> got(64);
    dev->read_symbol(t.ipu, t.tile, "launch_args", got);
    EXPECT_TRUE(got == args) << "ipu " << t.ipu << " tile " << t.tile;
  }
}

TEST_P(Tensor, TheCApi) {
  start("configs/test/tiny16.yaml");
  ipudrv_device* dev = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_load(dev, firmware("tensor_buffers.elf").c_str()), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_dtype_size(IPUDRV_BF16), 2u);
  EXPECT_EQ(ipudrv_dtype_size(IPUDRV_F64), 8u);
  EXPECT_EQ(ipudrv_dtype_size(99), 0u);
  ipudrv_tile tiles[16];
  for (uint32_t t = 0; t < 16; ++t) tiles[t] = {0, t};
  const uint64_t shape[2] = {20, 3};
  std::vector<double> a(60);
  std::iota(a.begin(), a.end(), 1.25);
  ipudrv_tensor t{};
  t.shape = shape, t.rank = 2, t.dtype = IPUDRV_F64, t.mapping = IPUDRV_BLOCKED_ROWS;
  t.tiles = tiles, t.tile_count = 16, t.symbol = "tensor_buf";
  ipudrv_dma_stats s0{}, s1{};
  ASSERT_EQ(ipudrv_get_dma_stats(dev, &s0), IPUDRV_OK);
  ASSERT_EQ(ipudrv_write_tensor(dev, &t, a.data(), a.size() * 8), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_get_dma_stats(dev, &s1), IPUDRV_OK);
  EXPECT_EQ(s1.h2d_descriptors - s0.h2d_descriptors, 2u);  // 4 tiles of 2 rows, 12 of 1
  EXPECT_EQ(s1.h2d_bytes - s0.h2d_bytes, 480u);
  double row[3];
  ASSERT_EQ(ipudrv_read_symbol(dev, 0, 5, "tensor_buf", row, sizeof row), IPUDRV_OK);
  EXPECT_EQ(row[0], a[(2 * 4 + 1) * 3]) << "tile 5: row 9 (tiles 0..3 hold 2 rows each)";
  std::vector<double> back(60);
  ASSERT_EQ(ipudrv_read_tensor(dev, &t, back.data(), back.size() * 8), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(back, a);
  // 2-D, replicated, per-tile pieces through the C structs.
  t.mapping = IPUDRV_BLOCKED_2D, t.grid_rows = 4, t.grid_cols = 4;
  ASSERT_EQ(ipudrv_write_tensor(dev, &t, a.data(), a.size() * 8), IPUDRV_OK) << ipudrv_last_error();
  std::fill(back.begin(), back.end(), 0);
  ASSERT_EQ(ipudrv_read_tensor(dev, &t, back.data(), back.size() * 8), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(back, a);
  t.mapping = IPUDRV_REPLICATED, t.tile_count = 3;
  ASSERT_EQ(ipudrv_write_tensor(dev, &t, a.data(), a.size() * 8), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_read_symbol(dev, 0, 2, "tensor_buf", back.data(), back.size() * 8), IPUDRV_OK);
  EXPECT_EQ(back, a);
  const ipudrv_tile_piece pieces[2] = {{0, 9, 0, 30}, {0, 4, 30, 30}};
  t.mapping = IPUDRV_PER_TILE, t.pieces = pieces, t.piece_count = 2;
  ASSERT_EQ(ipudrv_write_tensor(dev, &t, a.data(), a.size() * 8), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_read_symbol(dev, 0, 4, "tensor_buf", row, sizeof row), IPUDRV_OK);
  EXPECT_EQ(row[0], a[30]);
  // Launch arguments.
  uint32_t args[16 * 2];
  for (uint32_t i = 0; i < 32; ++i) args[i] = i * 3;
  ASSERT_EQ(ipudrv_write_per_tile(dev, tiles, 16, "launch_args", 8, args), IPUDRV_OK) << ipudrv_last_error();
  uint32_t got[2];
  ASSERT_EQ(ipudrv_read_symbol(dev, 0, 13, "launch_args", got, sizeof got), IPUDRV_OK);
  EXPECT_EQ(got[0], 13u * 2 * 3);
  EXPECT_EQ(got[1], (13u * 2 + 1) * 3);
  // Errors: usage, with the message.
  EXPECT_EQ(ipudrv_write_tensor(dev, &t, a.data(), 8), IPUDRV_E_USAGE);
  EXPECT_NE(std::string(ipudrv_last_error()).find("is 480 bytes, 8 given"), std::string::npos) << ipudrv_last_error();
  t.dtype = 42;
  EXPECT_EQ(ipudrv_read_tensor(dev, &t, back.data(), 480), IPUDRV_E_USAGE);
  EXPECT_NE(std::string(ipudrv_last_error()).find("dtype 42"), std::string::npos) << ipudrv_last_error();
  t.dtype = IPUDRV_F64, t.mapping = 9;
  EXPECT_EQ(ipudrv_read_tensor(dev, &t, back.data(), 480), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_write_tensor(dev, nullptr, a.data(), 480), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_write_per_tile(dev, tiles, 16, nullptr, 8, args), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_get_dma_stats(dev, nullptr), IPUDRV_E_USAGE);
  ipudrv_close(dev);
}

DEVAPI_TRANSPORTS(Tensor);

}  // namespace
}  // namespace devapi
