/*
 * tensor_buffers: a tile program that only holds buffers for the host's tensor calls
 * (ipudrv write_tensor / read_tensor / write_per_tile): the tensor scatter benchmark
 * (bench/tensor_scatter.cpp) and the tensor tests (testbench/system/device_api). It halts
 * at once; the host writes and reads the buffers around the run or without one.
 */
#include <stdint.h>

/* 48 KiB: a GC200 tile's share of a 64 MiB f32 tensor in blocked rows (45,592 bytes),
 * with room. */
float tensor_buf[12288] __attribute__((aligned(64)));
/* Per-tile launch arguments. */
uint32_t launch_args[16];

int main(void) {
  /* Keep both in the image: the linker drops what nothing references. */
  __asm__ volatile("" : : "r"(tensor_buf), "r"(launch_args) : "memory");
  return 0;
}
