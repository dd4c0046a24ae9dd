# %% [markdown]
# # GEMM on a GC200, from Python
#
# The README's GEMM demo (`host_driver/examples/gemm`) with the `ipusim` Python package
# (docs/python.md): the same firmware (`gemm_host.elf`, firmware/kernels/gemm_host.c) on
# the 1472 tiles of IPU 0 of an IPU-M2000, the weights A in streaming memory, the
# activations B through host stream 0, C read back from streaming memory into numpy,
# checked bit for bit against numpy, and the per-superstep compute / sync / exchange
# cycles plotted with matplotlib.
#
# A notebook in percent format: open it in Jupyter (jupytext) or VS Code and run the
# cells, or run it as a script:
#
#     PYTHONPATH=build/python /usr/bin/python3 host_driver/examples/python/gemm_gc200.py --plot gemm.png
#
# Exit status 0 when every element equals numpy's, 1 otherwise.

# %%
import argparse
import os
import sys
import time

IN_NOTEBOOK = "ipykernel" in sys.modules
if not IN_NOTEBOOK and not os.environ.get("DISPLAY") and "MPLBACKEND" not in os.environ:
    os.environ["MPLBACKEND"] = "Agg"  # headless: render to files only

import matplotlib.pyplot as plt
import numpy as np

import ipusim

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
parser = argparse.ArgumentParser(description="GEMM on a GC200 through the ipusim Python package")
parser.add_argument("--locator", default="config:" + os.path.join(ROOT, "configs", "m2000.yaml"),
                    help="config:PATH (the model in this process) or unix:PATH (an `ipusim serve`)")
parser.add_argument("--elf", default=os.path.join(os.environ.get("IPUSIM_FIRMWARE_DIR", os.path.join(ROOT, "build", "firmware")),
                                                  "gemm_host.elf"))
parser.add_argument("--plot", default="gemm_gc200_supersteps.png", help="where the per-superstep plot goes (PNG)")
args, _ = parser.parse_known_args()  # a notebook kernel passes arguments of its own

# %% [markdown]
# ## The inputs
# Every element is a function of (seed, row, column): firmware/kernels/kinputs.h, here in
# numpy's uint32 arithmetic (which wraps as C's does). f16 values, one in 64 a subnormal.

# %%
SEED_A, SEED_B = 0x47454D41, 0x47454D42  # KIN_SEED_GEMM_A / _B
WORKERS, KS, NT, CB = 6, 24, 64, 8  # gemm_amp.h
K = 4 * KS


def kin_mix(x):
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def kin_f16(seed, rows, cols):
    """The f16 matrix [rows x cols] of kin_f16(kin_word(seed, i, j))."""
    i = np.arange(rows, dtype=np.uint32)[:, None]
    j = np.arange(cols, dtype=np.uint32)[None, :]
    word = kin_mix(kin_mix(np.uint32(seed) ^ (i * np.uint32(0x9E3779B9))) ^ (j * np.uint32(0x85EBCA6B)))
    sign = (word >> np.uint32(31)) << np.uint32(15)
    mant = (word >> np.uint32(6)) & np.uint32(0x3FF)
    exp = np.uint32(12) + ((word >> np.uint32(16)) & np.uint32(3))
    bits = np.where((word & np.uint32(0x3F)) == 0, sign | mant | np.uint32(1), sign | (exp << np.uint32(10)) | mant)
    return bits.astype(np.uint16).view(np.float16)


def grid_rows(n):
    return max(p for p in range(1, int(n**0.5) + 1) if n % p == 0)


t_open = time.monotonic()
dev = ipusim.open(args.locator)  # in process: elaborates the system (four GC200s)
open_s = time.monotonic() - t_open
info = dev.info
tiles, r = info.tiles_per_ipu, info.amp_f16_macs // 4
gp = grid_rows(tiles)
gq = tiles // gp
m, n = gp * WORKERS * r, gq * NT
if r == 0 or info.smem_bytes == 0:
    sys.exit(f"{args.locator}: the board needs an f16 AMP and streaming memory")
print(f"gemm: {info.locator}, IPU 0: {tiles} tiles, C[{m} x {n}] = A[{m} x {K}] x B[{K} x {n}] (f16 in, f32 out)")
A = kin_f16(SEED_A, m, K)
B = kin_f16(SEED_B, K, n)

# %% [markdown]
# ## Packing, loading, running
# The layouts are the contract at the top of gemm_host.c: A by grid row, worker and
# weight block (R x 4, row-major); B per tile q = t mod Q, packed
# [column block][k-step][column][4]. `write_smem` and `connect_h2d_stream` take the numpy
# arrays as they are (no copy on the Python side; the driver's DMA staging copies them).

# %%
a_packed = np.ascontiguousarray(A.reshape(gp, WORKERS, r, KS, 4).transpose(0, 1, 3, 2, 4))
b_per_q = B.reshape(KS, 4, gq, NT // CB, CB).transpose(2, 3, 0, 4, 1)  # [q][block][k-step][column][4]
b_stream = np.ascontiguousarray(b_per_q[np.arange(tiles) % gq])
c_tile_floats = WORKERS * NT * r

setup0 = time.monotonic()
dev.set_console(ipusim.console_printer())  # the firmware's lines, in this notebook's output
dev.load({(0, 0, tiles): args.elf})
a_buf = dev.alloc_smem(a_packed.nbytes)
c_buf = dev.alloc_smem(c_tile_floats * 4 * tiles)
dev.write_smem(a_buf, a_packed)
params = np.array([a_buf.offset, c_buf.offset], dtype=np.uint64)  # struct gemm_host_params
every_tile = ipusim.Mapping.replicated(ipusim.tile_range(0, 0, tiles))  # one broadcast descriptor
dev.write_tensor(ipusim.TensorLayout(params.shape, params.dtype, every_tile,
                                     ipusim.Location.symbol("gemm_host_params")), params)
dev.connect_h2d_stream(0, b_stream)
t0 = time.monotonic()
result = dev.run(timeout=600)  # the GIL is released while the device runs
run_s = time.monotonic() - t0
assert result.exit_code == 0, f"the firmware exited with {result.exit_code}"

c_tiles = dev.read_smem(c_buf, dtype=np.float32)  # every tile's C, in one transfer into numpy
C = c_tiles.reshape(gp, gq, WORKERS, NT, r).transpose(0, 2, 4, 1, 3).reshape(m, n)
kc = dev.read_symbol(0, 0, "kc_result", 8, np.uint32)
print(f"gemm: open {open_s:.2f} s, load + inputs {t0 - setup0:.2f} s, run {run_s:.2f} s host, "
      f"{result.stats.sim_time_ns / 1e6:.3f} ms modelled, {result.stats.supersteps} supersteps")

# %% [markdown]
# ## Checked against numpy
# The AMP multiplies f16 exactly and adds in f32, one rounding per addition, in k order:
# numpy does the same with a float32 accumulator, column of A by row of B. The result
# must be bit-exact; numpy's float64 matmul is the sanity check of the whole.

# %%
A32, B32 = A.astype(np.float32), B.astype(np.float32)
want = np.zeros((m, n), dtype=np.float32)
for k in range(K):
    want += np.multiply.outer(A32[:, k], B32[k, :])  # exact product, rounded sum
wrong = np.count_nonzero(want.view(np.uint32) != C.view(np.uint32))
close = np.allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-4)
print(f"gemm: checked {C.size} results against numpy: " + ("all bit-exact" if wrong == 0 else f"MISMATCH ({wrong} differ)")
      + f"; {'within' if close else 'NOT within'} 1e-4 of numpy's float64 matmul")
clock_hz = info.tile_clock_khz * 1e3
product_s = kc[4] / clock_hz
print(f"gemm: product {kc[4]} cycles = {product_s * 1e6:.2f} us modelled, "
      f"{2.0 * m * n * K / product_s / 1e12:.1f} TFLOPS ({kc[5] / 100:.1f}% of the AMP peak)")

# %% [markdown]
# ## Per-superstep figures
# `Device.superstep_array(ipu)` is a numpy structured array, one row per superstep (its
# compute phase, the sync that ends it, the exchange after the sync); the cycles are
# summed over the tiles, so per tile is / tiles. gemm_host.c's reads of A and B are
# superstep 0's exchange, the product superstep 2's compute, the writes of C its exchange.

# %%
steps = dev.superstep_array(0)
cols = ipusim.superstep_columns(steps)
per_tile = {k: cols[k] / np.maximum(cols["tiles"], 1) for k in ("compute_cycles", "sync_cycles", "exchange_cycles")}
print(" step  tiles  compute/tile  sync/tile  exchange/tile    begin      end")
for s in range(len(steps)):
    print(f"{s:5d} {cols['tiles'][s]:6d} {per_tile['compute_cycles'][s]:13.0f} {per_tile['sync_cycles'][s]:10.0f} "
          f"{per_tile['exchange_cycles'][s]:14.0f} {cols['begin_cycle'][s]:8d} {cols['end_cycle'][s]:8d}")

fig, ax = plt.subplots(figsize=(8, 4))
width = 0.27
for i, (key, label) in enumerate((("compute_cycles", "compute"), ("sync_cycles", "sync"),
                                  ("exchange_cycles", "exchange"))):
    ax.bar(cols["superstep"] + (i - 1) * width, per_tile[key], width, label=label)
ax.set_yscale("log")  # the product's 12k compute cycles beside millions of gateway cycles
ax.set_xlabel("superstep: its compute phase, sync and exchange (0: A and B in, 2: the product, then C out)")
ax.set_ylabel("cycles per tile (mean over the tiles)")
ax.set_title(f"GEMM {m}x{K}x{n} on {tiles} tiles of a GC200")
ax.set_xticks(cols["superstep"])
ax.legend()
fig.tight_layout()
fig.savefig(args.plot, dpi=100)
print(f"gemm: per-superstep plot in {args.plot}")
dev.close()

if not IN_NOTEBOOK and (wrong or not close):
    sys.exit(1)
