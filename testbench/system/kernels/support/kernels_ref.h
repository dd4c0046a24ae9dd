// Host references for the chip-level kernels of firmware/kernels (docs/kernels.md):
// each recomputes, from the kernel's inputs (kinputs.h), the values the kernel prints,
// doing the f32 arithmetic in the kernel's documented order so the result is bit-exact.
// Also the parser for the kernels' "name: key value key value ..." summary lines.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kref {

// ---- allreduce ---------------------------------------------------------------------
struct AllreduceExpect {
  uint32_t chunk = 0;       // floats per tile chunk (0: does not fit)
  uint64_t elements = 0;    // vector length
  uint32_t hash = 0;        // FNV-1a over the result's bit patterns
  std::array<uint32_t, 4> first{};  // bit patterns of the first four results
};
// The chunk rule: the largest of 64, 32, ..., 4 with 8 * C * T + 128 KiB <= SRAM.
AllreduceExpect allreduce(uint32_t tiles, uint32_t sram_bytes);

// ---- ipu_allreduce (across the IPUs of a system) ----------------------------------------
struct IpuAllreduceExpect {
  uint32_t chunk = 0;       // floats per tile chunk (0: does not fit)
  uint64_t elements = 0;    // vector length per IPU
  uint32_t hash = 0;        // FNV-1a over the tiles' chunk hashes, tile order (every IPU the same)
  std::vector<float> result;  // the summed vector (tile c holds chunk c)
};
// On-chip sums in tile order, then the ring's order (ipu_allreduce.c). chunk: the host's
// ipu_allreduce_params.chunk (ipu_allreduce.h), 0 = the default rule; a chunk that does not
// fit (8 C T + 128 KiB > SRAM) gives chunk 0, as the kernel refuses it.
IpuAllreduceExpect ipu_allreduce(uint32_t tiles, uint32_t sram_bytes, uint32_t ipus, uint32_t chunk = 0);

// ---- pipeline (two dense layers over two IPUs) -------------------------------------
struct PipelineExpect {
  uint32_t rows = 0, dim = 0, micro_batches = 0;  // rows per tile, D = rows x tiles
  std::vector<float> y1, y2;      // [micro-batch][sample][feature]: layer 1 (IPU 0), layer 2 (IPU 1)
  uint32_t hash_y1 = 0, hash_y2 = 0;  // what tile 0 of IPU 0 / IPU 1 prints
};
// The kernel's seeded inputs, [micro-batch][sample][feature].
std::vector<float> pipeline_inputs(uint32_t tiles, uint32_t micro_batches);
// Both layers in pipeline.c's order on inputs x (empty: pipeline_inputs()).
PipelineExpect pipeline(uint32_t tiles, uint32_t micro_batches, std::vector<float> x = {});

// ---- jacobi ------------------------------------------------------------------------
struct JacobiExpect {
  uint32_t hash = 0;      // FNV-1a over the tiles' strip hashes, tile order
  uint32_t sum_bits = 0;  // f32 sum of the tiles' strip sums, tile order
  uint32_t grid_rows = 0;
};
JacobiExpect jacobi(uint32_t tiles, uint32_t nx = 64, uint32_t rows_per_tile = 16,
                    uint32_t iterations = 50);

// ---- gemm --------------------------------------------------------------------------
struct GemmExpect {
  uint32_t grid_p = 0, grid_q = 0;  // tiles as P x Q
  uint64_t m = 0, n = 0, k = 0;
  uint32_t hash = 0;                // FNV-1a over the tiles' hashes, tile order
};
// amp_rows: the chip's R16; nt: C columns per tile; ks: k-slices of 4 (K = 4 ks).
GemmExpect gemm(uint32_t tiles, uint32_t amp_rows, uint32_t nt, uint32_t ks = 24);

// ---- memory bandwidth ----------------------------------------------------------------
// B/cycle per tile of a wide access moving `load` and `store` bytes in every issue slot it
// takes, on a tile with memory paths of `load_path` / `store_path` bytes per cycle: it
// takes max(1, ceil(L / load_path), ceil(S / store_path)) slots (docs/xipu.md "Timing"),
// and a tile issues one slot per cycle.
double wide_bytes_per_slot(uint32_t load_path, uint32_t store_path, uint32_t load, uint32_t store);

// ---- output ------------------------------------------------------------------------
// The lines of `console` that contain "<name>: " (tags like "[ipu 0 tile 0] " before it
// allowed), each as the text after "<name>: ".
std::vector<std::string> lines_of(const std::string& console, const std::string& name);
// "k1 v1 k2 v2 ..." -> {k1: v1, ...}; with an odd number of words the first is a label
// ("cycles total 5 compute 3") and is skipped.
std::map<std::string, std::string> pairs(const std::string& line);
// The first line of `name` whose first key is `first_key` (with value `first_value` if
// given), as key / value pairs.
std::optional<std::map<std::string, std::string>> find_line(const std::string& console,
                                                            const std::string& name,
                                                            const std::string& first_key,
                                                            const std::string& first_value = "");
uint64_t to_u64(const std::string& text);  // decimal or 0x hex; throws on anything else
double to_double(const std::string& text);

}  // namespace kref
