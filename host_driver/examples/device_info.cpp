// Example: list the devices behind a locator (one: the system, with all its boards).
//   ipudrv_example_info unix:/tmp/ipu.sock
//   ipudrv_example_info config:configs/m2000.yaml
#include <ipudrv/device.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOCATOR (config:PATH or unix:PATH)\n", argv[0]);
    return 2;
  }
  try {
    for (const auto& ref : ipudrv::enumerate(argv[1])) {
      const auto& i = ref.info();
      std::printf("%s: %u board(s), %u IPUs (%u per board) x %u tiles, %u KiB SRAM per tile, %.3f GHz, "
                  "%llu bytes of streaming memory per board\n",
                  i.locator.c_str(), i.boards, i.ipus, i.ipus_per_board, i.tiles_per_ipu, i.sram_bytes / 1024,
                  i.tile_clock_khz / 1e6, static_cast<unsigned long long>(i.smem_bytes));
    }
  } catch (const ipudrv::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
