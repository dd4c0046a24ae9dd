// tensor_scatter: host time of one write_tensor (a blocked-rows tensor over every tile of
// IPU 0) against one write_symbol per tile of the same bytes, and the same for reading
// back (read_tensor against read_symbol per tile), through the public driver API.
//
//   tensor_scatter [--locator config:configs/gc200.yaml] [--mib 64] [--reps 3]
//                  [--elf build/firmware/tensor_buffers.elf]
//
// The tensor is f32 of --mib MiB, one dimension, in blocked rows over the IPU's tiles
// (on a GC200: 1472 tiles, 11,397 or 11,398 floats each), at the symbol `tensor_buf` of
// tensor_buffers.elf, loaded first. Per case the median host seconds of --reps
// repetitions, and the DMA descriptors and doorbell batches one repetition posts
// (Device::dma_stats); `ratio` = per-tile seconds / tensor seconds; `memcpy_s` one plain
// copy of the tensor's bytes in this process (the floor). Every repetition's
// data is checked by reading it back the other way. Prints one JSON line; exit 1 if a
// read back differs. `--locator unix:PATH` measures an `ipusim serve` of the same config.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ipudrv/device.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Fn>
double seconds(Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("tensor_scatter: one write_tensor against one write_symbol per tile");
  std::string locator = "config:configs/gc200.yaml";
  std::string elf_path = std::string(IPUSIM_FIRMWARE_DIR) + "/tensor_buffers.elf";
  uint32_t mib = 64, reps = 3;
  app.add_option("--locator", locator, "the device (config:FILE or unix:SOCKET)");
  app.add_option("--elf", elf_path, "firmware with a tensor_buf symbol");
  app.add_option("--mib", mib, "MiB of f32")->check(CLI::Range(1, 1024));
  app.add_option("--reps", reps, "repetitions of each case (the median is reported)")->check(CLI::Range(1, 99));
  CLI11_PARSE(app, argc, argv);

  try {
    const auto open0 = std::chrono::steady_clock::now();
    auto dev = ipudrv::open(locator);
    const ipudrv::DeviceInfo& info = dev->info();
    const ipudrv::Elf elf = ipudrv::Elf::from_file(elf_path);
    dev->load({{ipudrv::TileRange{0, 0, info.tiles_per_ipu}, elf}});
    const double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - open0).count();

    const uint64_t floats = (uint64_t(mib) << 20) / 4;
    const ipudrv::TileList tiles = ipudrv::tile_range(0, 0, info.tiles_per_ipu);
    const ipudrv::TensorLayout layout{{floats}, ipudrv::DType::kF32, ipudrv::Mapping::blocked_rows(tiles),
                                      ipudrv::Location::symbol("tensor_buf")};
    // Each tile's block: [first, first + count) floats, as blocked_rows splits them.
    std::vector<std::pair<uint64_t, uint64_t>> blocks;
    for (uint64_t t = 0, at = 0; t < tiles.size(); ++t) {
      const uint64_t n = floats / tiles.size() + (t < floats % tiles.size() ? 1 : 0);
      blocks.push_back({at, n});
      at += n;
    }
    std::vector<float> data(floats), back(floats);
    bool ok = true;
    std::vector<double> tensor_w, tile_w, tensor_r, tile_r;
    ipudrv::DmaStats tensor_dma, tile_dma;
    auto delta = [](const ipudrv::DmaStats& a, const ipudrv::DmaStats& b) {
      ipudrv::DmaStats d;
      d.to_device = {b.to_device.descriptors - a.to_device.descriptors, b.to_device.batches - a.to_device.batches,
                     b.to_device.bytes - a.to_device.bytes};
      d.from_device = {b.from_device.descriptors - a.from_device.descriptors,
                       b.from_device.batches - a.from_device.batches, b.from_device.bytes - a.from_device.bytes};
      return d;
    };
    for (uint32_t r = 0; r < reps; ++r) {
      for (uint64_t i = 0; i < floats; ++i) data[i] = float(i % 100003) * 0.5f + float(r);
      // The tensor call each way, checked by the per-tile reads below.
      ipudrv::DmaStats s0 = dev->dma_stats();
      tensor_w.push_back(seconds([&] { dev->write_tensor(layout, std::span<const float>(data)); }));
      ipudrv::DmaStats s1 = dev->dma_stats();
      std::fill(back.begin(), back.end(), 0.f);
      tile_r.push_back(seconds([&] {
        for (uint32_t t = 0; t < tiles.size(); ++t)
          dev->read_symbol(0, t, "tensor_buf", std::as_writable_bytes(std::span(back).subspan(blocks[t].first, blocks[t].second)));
      }));
      ipudrv::DmaStats s2 = dev->dma_stats();
      ok = ok && back == data;
      for (uint64_t i = 0; i < floats; ++i) data[i] = float(i % 100019) * 0.25f - float(r);
      // Per tile each way, checked by the tensor read.
      tile_w.push_back(seconds([&] {
        for (uint32_t t = 0; t < tiles.size(); ++t)
          dev->write_symbol(0, t, "tensor_buf", std::as_bytes(std::span(data).subspan(blocks[t].first, blocks[t].second)));
      }));
      ipudrv::DmaStats s3 = dev->dma_stats();
      std::fill(back.begin(), back.end(), 0.f);
      tensor_r.push_back(seconds([&] { dev->read_tensor(layout, std::span<float>(back)); }));
      ipudrv::DmaStats s4 = dev->dma_stats();
      ok = ok && back == data;
      const ipudrv::DmaStats tw = delta(s0, s1), tr = delta(s3, s4), pw = delta(s2, s3), pr = delta(s1, s2);
      tensor_dma = {tw.to_device, tr.from_device};
      tile_dma = {pw.to_device, pr.from_device};
    }
    // The floor of any way in: one copy of the tensor's bytes (the model must put every
    // byte into some tile's SRAM), warm buffers, this process.
    std::vector<double> copies;
    for (uint32_t r = 0; r < reps; ++r)
      copies.push_back(seconds([&] { std::memcpy(back.data(), data.data(), floats * 4); }));
    const double tw = median(tensor_w), pw = median(tile_w), tr = median(tensor_r), pr = median(tile_r);
    nlohmann::json j;
    j["bench"] = "tensor_scatter";
    j["locator"] = info.locator;
    j["tiles"] = tiles.size();
    j["tensor_bytes"] = floats * 4;
    j["block_bytes_max"] = blocks.front().second * 4;
    j["reps"] = reps;
    j["open_load_s"] = open_s;
    j["write_tensor_s"] = tw;
    j["write_symbol_per_tile_s"] = pw;
    j["write_ratio"] = pw / tw;
    j["write_tensor_descriptors"] = tensor_dma.to_device.descriptors;
    j["write_tensor_batches"] = tensor_dma.to_device.batches;
    j["write_symbol_descriptors"] = tile_dma.to_device.descriptors;
    j["write_symbol_batches"] = tile_dma.to_device.batches;
    j["read_tensor_s"] = tr;
    j["read_symbol_per_tile_s"] = pr;
    j["read_ratio"] = pr / tr;
    j["read_tensor_descriptors"] = tensor_dma.from_device.descriptors;
    j["read_symbol_descriptors"] = tile_dma.from_device.descriptors;
    j["write_tensor_gbytes_per_s"] = double(floats * 4) / tw / 1e9;
    j["memcpy_s"] = median(copies);
    j["ok"] = ok;
    std::printf("%s\n", j.dump().c_str());
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensor_scatter: %s\n", e.what());
    return 2;
  }
}
