// The tile map PNG, written with libpng (Debian's libpng-dev).
#include <png.h>

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <stdexcept>

#include "memreport/memory_report.h"

namespace ipusim::memreport {

uint32_t tile_map_columns(uint32_t tiles_per_ipu) {
  return std::max<uint32_t>(1, static_cast<uint32_t>(std::ceil(std::sqrt(double(tiles_per_ipu)))));
}

MapSize tile_map_size(uint32_t ipus, uint32_t tiles_per_ipu) {
  const uint32_t cols = tile_map_columns(tiles_per_ipu);
  const uint32_t rows = (tiles_per_ipu + cols - 1) / cols;
  return {cols * kCellPixels, std::max<uint32_t>(1, ipus) * rows * kCellPixels};
}

namespace {

struct Rgb {
  uint8_t r, g, b;
};

constexpr Rgb kNotLoaded{96, 96, 96};
constexpr Rgb kWarning{224, 0, 224};
constexpr Rgb kGrid{32, 32, 32};

// Green (nothing used) through yellow (half) to red (all of SRAM).
Rgb use_colour(double share) {
  share = std::clamp(share, 0.0, 1.0);
  if (share < 0.5) return {static_cast<uint8_t>(510 * share), 200, 0};
  return {255, static_cast<uint8_t>(200 * (1 - share) * 2), 0};
}

struct PngWrite {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngWrite() { png_destroy_write_struct(&png, info ? &info : nullptr); }
};

struct FileClose {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

void write_tile_map(const std::string& path, const ElfLayout& elf, const std::vector<TileMemory>& tiles, uint32_t ipus,
                    uint32_t tiles_per_ipu, uint32_t stack_margin) {
  const MapSize size = tile_map_size(ipus, tiles_per_ipu);
  const uint32_t cols = tile_map_columns(tiles_per_ipu);
  const uint32_t rows = (tiles_per_ipu + cols - 1) / cols;
  std::vector<uint8_t> pixels(size_t{size.width} * size.height * 3, 0);
  auto fill = [&](uint32_t ipu, uint32_t tile, Rgb c) {
    const uint32_t x0 = (tile % cols) * kCellPixels, y0 = (ipu * rows + tile / cols) * kCellPixels;
    for (uint32_t y = 0; y < kCellPixels; ++y)
      for (uint32_t x = 0; x < kCellPixels; ++x) {
        // A one-pixel border on the right and bottom separates neighbouring cells.
        const Rgb p = (x == kCellPixels - 1 || y == kCellPixels - 1) ? kGrid : c;
        uint8_t* px = &pixels[(size_t{y0 + y} * size.width + x0 + x) * 3];
        px[0] = p.r, px[1] = p.g, px[2] = p.b;
      }
  };
  for (uint32_t i = 0; i < ipus; ++i)
    for (uint32_t t = 0; t < tiles_per_ipu; ++t) fill(i, t, kNotLoaded);
  std::vector<bool> warned(size_t{ipus} * tiles_per_ipu, false);
  for (const StackWarning& w : stack_warnings(tiles, stack_margin))
    if (w.ipu < ipus && w.tile < tiles_per_ipu) warned[size_t{w.ipu} * tiles_per_ipu + w.tile] = true;
  for (const TileMemory& t : tiles) {
    if (t.ipu >= ipus || t.tile >= tiles_per_ipu) continue;
    const bool warn = warned[size_t{t.ipu} * tiles_per_ipu + t.tile];
    fill(t.ipu, t.tile, warn ? kWarning : use_colour(t.sram_bytes ? double(tile_figures(elf, t).used) / t.sram_bytes : 0));
  }

  std::unique_ptr<std::FILE, FileClose> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error(fmt::format("{}: cannot write the tile map", path));
  PngWrite w;
  w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (w.png) w.info = png_create_info_struct(w.png);
  if (!w.png || !w.info) throw std::runtime_error(fmt::format("{}: libpng could not start", path));
  if (setjmp(png_jmpbuf(w.png))) throw std::runtime_error(fmt::format("{}: writing the tile map failed", path));
  png_init_io(w.png, file.get());
  png_set_IHDR(w.png, w.info, size.width, size.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(w.png, w.info);
  for (uint32_t y = 0; y < size.height; ++y) png_write_row(w.png, &pixels[size_t{y} * size.width * 3]);
  png_write_end(w.png, nullptr);
  if (std::fflush(file.get()) != 0) throw std::runtime_error(fmt::format("{}: writing the tile map failed", path));
}

}  // namespace ipusim::memreport
