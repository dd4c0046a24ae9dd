/*
 * ipu_allreduce.h: the host interface of the `ipu_allreduce` kernel (ipu_allreduce.c,
 * docs/kernels.md), plain C shared with the host reference and the host program.
 *
 * The vector's size is the workload's (a model's gradient size), so a host program
 * chooses it: the chunk C (floats per tile chunk; each IPU's vector is C x T floats, T
 * tiles). The simulator stores what the kernel writes, 8 C T bytes per tile (the vector
 * and the receive buffer), so C is also what sets a big system's host memory.
 */
#ifndef KERNELS_IPU_ALLREDUCE_H
#define KERNELS_IPU_ALLREDUCE_H

#include <stdint.h>

/* What a host program may write (by symbol, on every tile of every IPU, before the run).
 * The loader leaves the ELF's value: 0 in ipu_allreduce.elf, which means the default
 * chunk (kc_reduce_chunk: the largest of 64, 32, ..., 4 that fits the SRAM). Any other
 * value is the chunk: it must be 1 .. kc_reduce_chunk_max (8 C T + 128 KiB <= SRAM), else
 * tile 0 of IPU 0 prints why and every tile exits 1. */
struct ipu_allreduce_params {
  uint32_t chunk;
};

#endif /* KERNELS_IPU_ALLREDUCE_H */
