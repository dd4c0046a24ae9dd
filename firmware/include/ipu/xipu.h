/*
 * ipu/xipu.h: the Xipu extension of the ipusim tile core, as C inline functions.
 *
 * One function per custom instruction and per CSR of docs/xipu.md (the semantics). The
 * numbers are not written here: CSR numbers, the memory map, the limits and every
 * encoding come from ipu/xipu_isa.h, generated from the ISA source hw/isa/xipu.yaml
 * (tables: docs/xipu_isa.md). Custom instructions are emitted with that header's
 * `.insn r major, funct3, funct7` heads (IPU_OP_<NAME>_INSN), so no patched assembler
 * is needed.
 *
 * The CSR numbers and the constants are also visible to assembly (crt0.S includes this
 * header with __ASSEMBLER__ defined).
 */
#ifndef IPU_XIPU_H
#define IPU_XIPU_H

/* IPU_SRAM_BASE, IPU_CSR_*, IPU_SYNC_* (sync zones), IPU_AMP_F16 / _F32, IPU_AMP_BANKS,
 * IPU_AMP_MAX_ROWS, IPU_MAX_WORKERS, IPU_SMEM_ALIGN, IPU_XFER_MAX, IPU_STREAMS, IPU_OP_*. */
#include <ipu/xipu_isa.h>

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a CSR whose value never changes while the program runs (identity, sizes). */
#define IPU_CSR_READ_CONST(csr, out) __asm__("csrr %0, " IPU_ISA_STR(csr) : "=r"(out))
/* Reads a CSR whose value changes (counters, fp state, superstep). */
#define IPU_CSR_READ(csr, out) __asm__ volatile("csrr %0, " IPU_ISA_STR(csr) : "=r"(out))
#define IPU_CSR_WRITE(csr, in) __asm__ volatile("csrw " IPU_ISA_STR(csr) ", %0" ::"r"(in) : "memory")

/* ---- identity and sizes (read-only Xipu CSRs) ------------------------------------ */

static inline uint32_t ipu_tile_id(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_TILE, v); return v; }
static inline uint32_t ipu_id(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_IPU, v); return v; }
static inline uint32_t ipu_thread_id(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_THREAD, v); return v; }
static inline uint32_t ipu_num_tiles(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_NTILES, v); return v; }
static inline uint32_t ipu_num_ipus(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_NIPUS, v); return v; }
static inline uint32_t ipu_num_workers(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_NWORKERS, v); return v; }
static inline uint32_t ipu_sram_base(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_SRAMBASE, v); return v; }
static inline uint32_t ipu_sram_size(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_SRAMSIZE, v); return v; }
static inline uint32_t ipu_superstep(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_SUPERSTEP, v); return v; }
static inline int ipu_is_supervisor(void) { return ipu_thread_id() == 0; }
/* This tile's id in the whole system, as the exchange names tiles: ipu * ntiles + tile. */
static inline uint32_t ipu_global_tile_id(void) { return ipu_id() * ipu_num_tiles() + ipu_tile_id(); }
/* AMP rows: one ipu_amp_mac_f16 updates R16 accumulators, ipu_amp_mac_f32 R32. */
static inline uint32_t ipu_amp_rows16(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_AMPROWS16, v); return v; }
static inline uint32_t ipu_amp_rows32(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_AMPROWS32, v); return v; }

/* ---- worker stack / exit configuration (read-write Xipu CSRs) --------------------- */

static inline uint32_t ipu_wstackbase(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_WSTACKBASE, v); return v; }
static inline uint32_t ipu_wstacksize(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_WSTACKSIZE, v); return v; }
static inline uint32_t ipu_wexitpc(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_WEXITPC, v); return v; }
static inline void ipu_set_wstackbase(uint32_t v) { IPU_CSR_WRITE(IPU_CSR_WSTACKBASE, v); }
static inline void ipu_set_wstacksize(uint32_t v) { IPU_CSR_WRITE(IPU_CSR_WSTACKSIZE, v); }
static inline void ipu_set_wexitpc(uint32_t v) { IPU_CSR_WRITE(IPU_CSR_WEXITPC, v); }

/* ---- counters (standard CSRs) ----------------------------------------------------- */

/* The tile cycle in which the reading instruction issues. */
static inline uint64_t ipu_cycles(void) {
  uint32_t hi, lo, hi2;
  do {
    IPU_CSR_READ(IPU_CSR_CYCLEH, hi);
    IPU_CSR_READ(IPU_CSR_CYCLE, lo);
    IPU_CSR_READ(IPU_CSR_CYCLEH, hi2);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

/* Same as ipu_cycles() on a tile (the `time` CSR counts tile cycles). */
static inline uint64_t ipu_time(void) {
  uint32_t hi, lo, hi2;
  do {
    IPU_CSR_READ(IPU_CSR_TIMEH, hi);
    IPU_CSR_READ(IPU_CSR_TIME, lo);
    IPU_CSR_READ(IPU_CSR_TIMEH, hi2);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

/* Instructions retired by the calling thread before this one. */
static inline uint64_t ipu_instret(void) {
  uint32_t hi, lo, hi2;
  do {
    IPU_CSR_READ(IPU_CSR_INSTRETH, hi);
    IPU_CSR_READ(IPU_CSR_INSTRET, lo);
    IPU_CSR_READ(IPU_CSR_INSTRETH, hi2);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

/* ---- floating-point state (standard CSRs; <fenv.h> offers the portable API) ------- */

static inline uint32_t ipu_fflags(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_FFLAGS, v); return v; }
static inline uint32_t ipu_frm(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_FRM, v); return v; }
static inline uint32_t ipu_fcsr(void) { uint32_t v; IPU_CSR_READ(IPU_CSR_FCSR, v); return v; }
static inline void ipu_set_fflags(uint32_t v) { IPU_CSR_WRITE(IPU_CSR_FFLAGS, v); }
static inline void ipu_set_frm(uint32_t v) { IPU_CSR_WRITE(IPU_CSR_FRM, v); }
static inline void ipu_set_fcsr(uint32_t v) { IPU_CSR_WRITE(IPU_CSR_FCSR, v); }

/* ---- threads and sync (funct3 = 0) ------------------------------------------------ */

/* A worker entry point: runs with a0 = arg; its return value is its wexit status. */
typedef int (*ipu_worker_fn)(void *arg);

/* Starts a worker at fn with a0 = arg and returns its id (1..6). Faults if six run.
 * The memory clobber makes every store before the call visible to the worker. */
static inline uint32_t ipu_run(ipu_worker_fn fn, void *arg) {
  uint32_t id;
  __asm__ volatile(IPU_OP_RUN_INSN ", %0, %1, %2" : "=r"(id) : "r"(fn), "r"(arg) : "memory");
  return id;
}

/* Supervisor only: waits until no worker runs. */
static inline void ipu_join(void) {
  __asm__ volatile(IPU_OP_JOIN_INSN ", x0, x0, x0" ::: "memory");
}

/* Worker only: ends the calling worker with a status (recorded in the stats). */
static inline __attribute__((noreturn)) void ipu_wexit(int status) {
  __asm__ volatile(IPU_OP_WEXIT_INSN ", x0, %0, x0" ::"r"(status) : "memory");
  __builtin_unreachable();
}

/* Supervisor only: ends the tile's program with an exit code, after the workers end.
 * Prefer exit() or returning from main, which also run atexit handlers. */
static inline __attribute__((noreturn)) void ipu_halt(int code) {
  __asm__ volatile(IPU_OP_HALT_INSN ", x0, %0, x0" ::"r"(code) : "memory");
  __builtin_unreachable();
}

/* Supervisor only: BSP sync over a zone (IPU_SYNC_WORKERS, IPU_SYNC_IPU, IPU_SYNC_GROUP). */
static inline void ipu_sync(uint32_t zone) {
  __asm__ volatile(IPU_OP_SYNC_INSN ", x0, %0, x0" ::"r"(zone) : "memory");
}

/* ---- console (funct3 = 1) --------------------------------------------------------- */

/* Appends one byte to this thread's console line; '\n' ends the line. */
static inline void ipu_cputc(char c) {
  __asm__ volatile(IPU_OP_CPUTC_INSN ", x0, %0, x0" ::"r"((uint32_t)(unsigned char)c));
}

/* Appends n bytes from buf (all inside SRAM) to this thread's console; returns n. */
static inline size_t ipu_cwrite(const void *buf, size_t n) {
  size_t written;
  __asm__ volatile(IPU_OP_CWRITE_INSN ", %0, %1, %2"
                   : "=r"(written)
                   : "r"(buf), "r"(n)
                   : "memory");
  return written;
}

/* ---- exchange (funct3 = 2; supervisor only) --------------------------------------- */
/*
 * After a sync over the IPU or the group, the supervisor posts messages; nothing moves
 * until ipu_xwait() (or the next sync / halt), which first waits for the workers, then
 * lets the fabric move every posted message and returns when this tile's part is done.
 * Tiles are named by global id (ipu_global_tile_id()). Buffers: 4-byte aligned, lengths
 * a multiple of 4, inside SRAM. A send from tile A to tile B matches B's receives from A
 * in posting order. Typical superstep:
 *
 *   ipu_sync(IPU_SYNC_IPU);
 *   ipu_xdst(right, 1); ipu_send(out, sizeof out);
 *   ipu_xsrc(left);     ipu_recv(in, sizeof in);
 *   ipu_xwait();
 */

/* Adds tiles first .. first + count - 1 to the destination set of the next send. */
static inline void ipu_xdst(uint32_t first, uint32_t count) {
  __asm__ volatile(IPU_OP_XDST_INSN ", x0, %0, %1" ::"r"(first), "r"(count));
}

/* Posts a send of len bytes at buf to the destination set (then empty). The bytes are
 * read during the exchange, so buf must keep them until ipu_xwait() returns. */
static inline void ipu_send(const void *buf, size_t len) {
  __asm__ volatile(IPU_OP_SEND_INSN ", x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}

/* Sets the source tile of the following receives. */
static inline void ipu_xsrc(uint32_t tile) {
  __asm__ volatile(IPU_OP_XSRC_INSN ", x0, %0, x0" ::"r"(tile));
}

/* Posts a receive of len bytes into buf from the source tile; buf is written during the
 * exchange and holds the message once ipu_xwait() returns. */
static inline void ipu_recv(void *buf, size_t len) {
  __asm__ volatile(IPU_OP_RECV_INSN ", x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}

/* Ends the exchange phase: waits for the workers, then for this tile's exchange. */
static inline void ipu_xwait(void) {
  __asm__ volatile(IPU_OP_XWAIT_INSN ", x0, x0, x0" ::: "memory");
}

/* ---- streaming memory (funct3 = 3) and host streams (funct3 = 4; supervisor only) --- */
/*
 * Copies between this tile's SRAM and the board's streaming memory or a host stream,
 * posted in the exchange phase like send / recv and done while the tile waits in
 * ipu_xwait() (docs/xipu.md, docs/streaming.md). Tile buffer, streaming-memory offset
 * and length are multiples of IPU_SMEM_ALIGN (4); a copy moves at most IPU_XFER_MAX
 * bytes; stream ids are 0 .. IPU_STREAMS-1 (ipu/xipu_isa.h). Reads land after the
 * phase's messages, writes read the buffer as the messages left it:
 *
 *   ipu_sync(IPU_SYNC_IPU);
 *   ipu_smem_write(out, offset, sizeof out);   // out -> streaming memory
 *   ipu_stream_read(0, in, sizeof in);         // host stream 0 -> in
 *   ipu_xwait();
 */

/* Sets the streaming-memory offset of the following smread / smwrite. */
static inline void ipu_smaddr(uint64_t offset) {
  __asm__ volatile(IPU_OP_SMADDR_INSN ", x0, %0, %1" ::"r"((uint32_t)offset), "r"((uint32_t)(offset >> 32)));
}
/* Posts a copy of len bytes from streaming memory (at the last ipu_smaddr) into buf. */
static inline void ipu_smread(void *buf, size_t len) {
  __asm__ volatile(IPU_OP_SMREAD_INSN ", x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}
/* Posts a copy of len bytes at buf to streaming memory (at the last ipu_smaddr). */
static inline void ipu_smwrite(const void *buf, size_t len) {
  __asm__ volatile(IPU_OP_SMWRITE_INSN ", x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}
/* Posts a copy of len bytes from streaming memory offset smem_offset into buf. */
static inline void ipu_smem_read(void *buf, uint64_t smem_offset, size_t len) {
  ipu_smaddr(smem_offset);
  ipu_smread(buf, len);
}
/* Posts a copy of len bytes at buf to streaming memory offset smem_offset. */
static inline void ipu_smem_write(const void *buf, uint64_t smem_offset, size_t len) {
  ipu_smaddr(smem_offset);
  ipu_smwrite(buf, len);
}

/* Selects the host stream of the following hsread / hswrite. */
static inline void ipu_hsid(uint32_t stream) {
  __asm__ volatile(IPU_OP_HSID_INSN ", x0, %0, x0" ::"r"(stream));
}
/* Posts a read of len bytes from host stream `stream` (host to device) into buf. */
static inline void ipu_stream_read(uint32_t stream, void *buf, size_t len) {
  ipu_hsid(stream);
  __asm__ volatile(IPU_OP_HSREAD_INSN ", x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}
/* Posts a write of len bytes at buf to host stream `stream` (device to host). */
static inline void ipu_stream_write(uint32_t stream, const void *buf, size_t len) {
  ipu_hsid(stream);
  __asm__ volatile(IPU_OP_HSWRITE_INSN ", x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}

/* ---- zero-overhead repeat (custom-0 funct3 = 5; docs/xipu.md "Zero-overhead loops") - */

/* Assembler text of `rpt rs1, size`, for an inline-asm template: the next `size`
 * instructions (1..31, a literal or a macro expanding to one) run rs1 times (unsigned,
 * read once; 0 skips them) with no loop overhead. A loop body cannot be wrapped by a C
 * function, so the body is the instructions that follow in the same asm block; they must
 * be straight-line (no branch, jump, rpt, ecall / ebreak, thread, sync, exchange, console
 * or streaming instruction) or the rpt is an illegal instruction. `rs1` is a register as
 * the template names it ("%[n]", "a0"):
 *
 *   __asm__ volatile(IPU_RPT("%[n]", 3) "\n\t"
 *                    "lw %[v], 0(%[p])\n\t"
 *                    "add %[s], %[s], %[v]\n\t"
 *                    "addi %[p], %[p], 4"
 *                    : [s] "+r"(sum), [p] "+r"(p), [v] "=&r"(v) : [n] "r"(n) : "memory");
 */
#define IPU_RPT(rs1, size) IPU_OP_RPT_INSN ", x0, " rs1 ", x" IPU_ISA_STR(size)

/* ---- AMP: accumulating matrix product (custom-1) ---------------------------------- */
/*
 * Per thread: a weight block W of R rows x 4 columns and IPU_AMP_BANKS banks of R f32
 * accumulators. One amp.mac does acc[bank][i] += W[i][0]*x[0] + ... + W[i][3]*x[3] for
 * every row (the tile's peak MACs per cycle), in the exact order of docs/xipu.md. f16 data
 * is IEEE binary16 bits (uint16_t). Alignment: weights 4, f16 inputs 8, f32 inputs 16,
 * accumulators 4. The functions use bank 0; the IPU_AMP_*(..., bank) macros take the
 * bank as a compile-time constant 0..7 (it is encoded in the instruction's rs2 field).
 */
typedef struct { uint16_t v[4]; } ipu_amp_in16_t; /* one f16 input vector (8 bytes) */
typedef struct { float v[4]; } ipu_amp_in32_t;    /* one f32 input vector (16 bytes) */

/* Loads W: R16 rows x 4 f16 values, row-major. */
static inline void ipu_amp_ldw_f16(const void *w) {
  __asm__ volatile(IPU_OP_AMP_LDW_F16_INSN ", x0, %0, x0" ::"r"(w) : "memory");
}
/* Loads W: R32 rows x 4 f32 values, row-major. */
static inline void ipu_amp_ldw_f32(const float *w) {
  __asm__ volatile(IPU_OP_AMP_LDW_F32_INSN ", x0, %0, x0" ::"r"(w) : "memory");
}
/* Multiplies W (f16) by the 4 f16 inputs at x into the accumulators; returns x + 8 bytes. */
static inline const void *ipu_amp_mac_f16(const void *x) {
  const void *next;
  __asm__ volatile(IPU_OP_AMP_MAC_F16_INSN ", %0, %1, x0"
                   : "=r"(next)
                   : "r"(x), "m"(*(const ipu_amp_in16_t *)x));
  return next;
}
/* Multiplies W (f32) by the 4 f32 inputs at x into the accumulators; returns x + 16 bytes. */
static inline const float *ipu_amp_mac_f32(const float *x) {
  const float *next;
  __asm__ volatile(IPU_OP_AMP_MAC_F32_INSN ", %0, %1, x0"
                   : "=r"(next)
                   : "r"(x), "m"(*(const ipu_amp_in32_t *)x));
  return next;
}
/* Stores the first R16 (f16 form) or R32 (f32 form) accumulators as f32. */
static inline void ipu_amp_st_f16(float *out) {
  __asm__ volatile(IPU_OP_AMP_ST_F16_INSN ", x0, %0, x0" ::"r"(out) : "memory");
}
static inline void ipu_amp_st_f32(float *out) {
  __asm__ volatile(IPU_OP_AMP_ST_F32_INSN ", x0, %0, x0" ::"r"(out) : "memory");
}
/* Sets every accumulator to zero (either form clears them all). */
static inline void ipu_amp_clr_f16(void) { __asm__ volatile(IPU_OP_AMP_CLR_F16_INSN ", x0, x0, x0"); }
static inline void ipu_amp_clr_f32(void) { __asm__ volatile(IPU_OP_AMP_CLR_F32_INSN ", x0, x0, x0"); }
/* Short forms: stores R16 accumulators; clears them all (every bank). */
static inline void ipu_amp_st(float *out) { ipu_amp_st_f16(out); }
static inline void ipu_amp_clr(void) { ipu_amp_clr_f16(); }

/* Accumulator banks: `bank` is a literal (or a macro expanding to one) 0..7, written into
 * the rs2 field as the register name x<bank>; anything else fails to assemble or, 8..31,
 * is an illegal instruction. IPU_AMP_MAC_F16(x, b) evaluates to x + 8 bytes. */
#define IPU_AMP_BANK_(bank) "x" IPU_ISA_STR_(bank)
#define IPU_AMP_MAC_F16(x, bank)                                                   \
  __extension__({                                                                  \
    const void *ipu_amp_next_;                                                     \
    __asm__ volatile(IPU_OP_AMP_MAC_F16_INSN ", %0, %1, " IPU_AMP_BANK_(bank)            \
                     : "=r"(ipu_amp_next_)                                         \
                     : "r"(x), "m"(*(const ipu_amp_in16_t *)(x)));                 \
    ipu_amp_next_;                                                                 \
  })
#define IPU_AMP_MAC_F32(x, bank)                                                   \
  __extension__({                                                                  \
    const float *ipu_amp_next_;                                                    \
    __asm__ volatile(IPU_OP_AMP_MAC_F32_INSN ", %0, %1, " IPU_AMP_BANK_(bank)            \
                     : "=r"(ipu_amp_next_)                                         \
                     : "r"(x), "m"(*(const ipu_amp_in32_t *)(x)));                 \
    ipu_amp_next_;                                                                 \
  })
/* Stores bank `bank`'s first R16 (F16) or R32 (F32) accumulators as f32 at out. */
#define IPU_AMP_ST_F16(out, bank) \
  __asm__ volatile(IPU_OP_AMP_ST_F16_INSN ", x0, %0, " IPU_AMP_BANK_(bank) ::"r"(out) : "memory")
#define IPU_AMP_ST_F32(out, bank) \
  __asm__ volatile(IPU_OP_AMP_ST_F32_INSN ", x0, %0, " IPU_AMP_BANK_(bank) ::"r"(out) : "memory")

/* AMP accumulator banks per context (8). */
static inline uint32_t ipu_amp_banks(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_AMPBANKS, v); return v; }

/* ---- Vector arithmetic: paired f32, quad f16 (custom-2; docs/xipu.md) --------------- */
/*
 * A pair is the 64 bits of an f-register pair fN, fN+1 (N even): an ipu_f32x2 holds two
 * f32 lanes, an ipu_f16x4 four IEEE binary16 lanes (raw bits), lane 0 the low half of
 * fN, so the lanes are in memory order. Every lane is rounded to nearest even whatever
 * frm says; mac / axpy are fused; NaN results are canonical; each lane's flags are ORed
 * into fflags.
 *
 * Both types are _Complex float, the two 32-bit words the registers hold: on rv32imf it
 * is the only type GCC keeps in two consecutive f registers (a double or a vector of
 * floats lives in integer registers or memory, so every use would rebuild it). GCC still
 * cannot pick the pair itself: nothing in an asm constraint asks for an even register
 * (its float allocation order starts with fa5, f15, so its pairs start odd), and it
 * splits a complex value into two floats between statements, which costs two fmv.s
 * before and after every asm. So each instruction comes in two forms:
 *
 *  - a macro (IPU_F32V2_AXPY(d, a, s), IPU_LD64_PI(d, p), ...) whose pair operands are
 *    variables the caller binds to even pairs, `register ipu_f32x2 x __asm__("fa0");`,
 *    and which writes its result into the destination variable: no moves, a loop of
 *    them is the instructions it names. GCC keeps such a variable in its registers only
 *    as an asm operand, so a pair variable is only ever one (IPU_PAIR_SET and
 *    IPU_PAIR_GET move values in and out), lives in code without calls or in
 *    callee-saved pairs (fs0, fs2 .. fs10), and stays off ft0..ft7 where the function
 *    forms are used;
 *  - a function (ipu_f32v2_axpy(acc, a, s), ...) taking and returning values wherever
 *    GCC keeps them: it binds each lane to a fixed caller-saved register (ft0..ft7) and
 *    GCC moves the values there and back (fmv.s: floating-point, so they may co-issue).
 *
 * The arithmetic asm is volatile so an operation stays between the fflags accesses
 * around it (frflags / fsflags in asm volatile) and its flags land where the code says.
 */
typedef _Complex float ipu_f32x2;
typedef _Complex float ipu_f16x4;
typedef float ipu_f32x4 __attribute__((vector_size(16)));
typedef uint16_t ipu_f16x2 __attribute__((vector_size(4)));

/* Bits of one 32-bit word as a float for an f register, and back (moves, no arithmetic:
 * NaN payloads survive). The fmv.w.x is an asm so its result is a value in an f
 * register: a union's float is a view of the integer register that GCC moves again at
 * every use, inside a loop too. */
static inline float ipu_vec_word_(uint32_t w) {
  float f;
  __asm__("fmv.w.x %0, %1" : "=f"(f) : "r"(w));
  return f;
}
static inline uint32_t ipu_vec_bits_(float f) {
  union { float f; uint32_t u; } c;
  c.f = f;
  return c.u;
}

/* Lanes, for C code that wants them one by one (each is a move between register files,
 * so loops keep whole pairs). */
static inline ipu_f32x2 ipu_f32x2_make(float lo, float hi) {
  ipu_f32x2 v = lo;
  __imag__ v = hi;
  return v;
}
static inline float ipu_f32x2_lane(ipu_f32x2 v, int i) { return i ? __imag__ v : __real__ v; }
/* Word i (0: lanes 0, 1; 1: lanes 2, 3) of an f16 pair, and a pair made of two words. */
static inline uint32_t ipu_f16x4_word(ipu_f16x4 v, int i) { return ipu_vec_bits_(ipu_f32x2_lane(v, i)); }
static inline ipu_f16x4 ipu_f16x4_of_words(uint32_t lo, uint32_t hi) {
  return ipu_f32x2_make(ipu_vec_word_(lo), ipu_vec_word_(hi));
}
static inline ipu_f16x4 ipu_f16x4_make(uint16_t l0, uint16_t l1, uint16_t l2, uint16_t l3) {
  return ipu_f16x4_of_words((uint32_t)l0 | (uint32_t)l1 << 16, (uint32_t)l2 | (uint32_t)l3 << 16);
}
static inline uint16_t ipu_f16x4_lane(ipu_f16x4 v, int i) {
  return (uint16_t)(ipu_f16x4_word(v, i >> 1) >> (16 * (i & 1)));
}
/* The f16 scale of f16v4.axpy as its register holds it: the binary16 in the low half. */
static inline float ipu_f16_scalar(uint16_t h) { return ipu_vec_word_(h); }

/* Register forms: d, a, b pair variables bound to even pairs (see above), s a float. A
 * pair variable is only ever an asm operand: IPU_PAIR_SET gives it a value, IPU_PAIR_GET
 * takes its value (a C assignment or lane read of the variable itself is what gcse
 * mishandles, see the function forms below). */
#define IPU_PAIR_SET(d, v) __asm__ volatile("" : "=f"(d) : "0"((ipu_f32x2)(v)))
#define IPU_PAIR_GET(d)                                                                    \
  __extension__({                                                                          \
    ipu_f32x2 ipu_v_;                                                                      \
    __asm__ volatile("" : "=f"(ipu_v_) : "0"(d));                                          \
    ipu_v_;                                                                                \
  })
#define IPU_VEC_OP_(insn, d, a, b) __asm__ volatile(insn ", %0, %1, %2" : "=f"(d) : "f"(a), "f"(b))
#define IPU_VEC_ACC_(insn, d, a, b) __asm__ volatile(insn ", %0, %1, %2" : "+f"(d) : "f"(a), "f"(b))
/* d = a op b per lane. */
#define IPU_F32V2_ADD(d, a, b) IPU_VEC_OP_(IPU_OP_F32V2_ADD_INSN, d, a, b)
#define IPU_F32V2_SUB(d, a, b) IPU_VEC_OP_(IPU_OP_F32V2_SUB_INSN, d, a, b)
#define IPU_F32V2_MUL(d, a, b) IPU_VEC_OP_(IPU_OP_F32V2_MUL_INSN, d, a, b)
#define IPU_F16V4_ADD(d, a, b) IPU_VEC_OP_(IPU_OP_F16V4_ADD_INSN, d, a, b)
#define IPU_F16V4_SUB(d, a, b) IPU_VEC_OP_(IPU_OP_F16V4_SUB_INSN, d, a, b)
#define IPU_F16V4_MUL(d, a, b) IPU_VEC_OP_(IPU_OP_F16V4_MUL_INSN, d, a, b)
/* d += a * b per lane, fused. */
#define IPU_F32V2_MAC(d, a, b) IPU_VEC_ACC_(IPU_OP_F32V2_MAC_INSN, d, a, b)
#define IPU_F16V4_MAC(d, a, b) IPU_VEC_ACC_(IPU_OP_F16V4_MAC_INSN, d, a, b)
/* d += s * a per lane, fused: s a float (f32), or ipu_f16_scalar(h) for f16. */
#define IPU_F32V2_AXPY(d, a, s) IPU_VEC_ACC_(IPU_OP_F32V2_AXPY_INSN, d, a, s)
#define IPU_F16V4_AXPY(d, a, s) IPU_VEC_ACC_(IPU_OP_F16V4_AXPY_INSN, d, a, s)

/* Function forms: each lane bound to its own register (a: ft0, ft1; b: ft2, ft3; the
 * result or accumulator: ft4, ft5), the first of a pair named in the instruction. Lanes,
 * not pair variables: GCC 12 does not see that an asm writing a pair variable at ft0
 * also writes ft1, and moves a read of the second lane across it (gcse hoists it out of
 * a loop). */
#define IPU_VEC_BIND_(v, r0, r1, init)                                                  \
  register float v##0 __asm__(r0) = __real__(init);                                        \
  register float v##1 __asm__(r1) = __imag__(init)
#define IPU_VEC_BINARY_FN_(name, T, insn)                                                  \
  static inline T name(T a, T b) {                                                         \
    IPU_VEC_BIND_(ipu_a_, "ft0", "ft1", a);                                             \
    IPU_VEC_BIND_(ipu_b_, "ft2", "ft3", b);                                             \
    register float ipu_d_0 __asm__("ft4"), ipu_d_1 __asm__("ft5");                         \
    __asm__ volatile(insn ", %0, %2, %4"                                                   \
                     : "=f"(ipu_d_0), "=f"(ipu_d_1)                                        \
                     : "f"(ipu_a_0), "f"(ipu_a_1), "f"(ipu_b_0), "f"(ipu_b_1));            \
    return ipu_f32x2_make(ipu_d_0, ipu_d_1);                                               \
  }
#define IPU_VEC_MAC_FN_(name, T, insn)                                                     \
  static inline T name(T acc, T a, T b) {                                                  \
    IPU_VEC_BIND_(ipu_a_, "ft0", "ft1", a);                                             \
    IPU_VEC_BIND_(ipu_b_, "ft2", "ft3", b);                                             \
    IPU_VEC_BIND_(ipu_d_, "ft4", "ft5", acc);                                           \
    __asm__ volatile(insn ", %0, %2, %4"                                                   \
                     : "+f"(ipu_d_0), "+f"(ipu_d_1)                                        \
                     : "f"(ipu_a_0), "f"(ipu_a_1), "f"(ipu_b_0), "f"(ipu_b_1));            \
    return ipu_f32x2_make(ipu_d_0, ipu_d_1);                                               \
  }
#define IPU_VEC_AXPY_FN_(name, T, S, insn, scale)                                          \
  static inline T name(T acc, T a, S s) {                                                  \
    IPU_VEC_BIND_(ipu_a_, "ft0", "ft1", a);                                             \
    register float ipu_s_ __asm__("ft2") = scale(s);                                       \
    IPU_VEC_BIND_(ipu_d_, "ft4", "ft5", acc);                                           \
    __asm__ volatile(insn ", %0, %2, %4"                                                   \
                     : "+f"(ipu_d_0), "+f"(ipu_d_1)                                        \
                     : "f"(ipu_a_0), "f"(ipu_a_1), "f"(ipu_s_));                           \
    return ipu_f32x2_make(ipu_d_0, ipu_d_1);                                               \
  }
#define IPU_VEC_F32_SCALE_(s) (s)
/* a + b, a - b, a * b per lane. */
IPU_VEC_BINARY_FN_(ipu_f32v2_add, ipu_f32x2, IPU_OP_F32V2_ADD_INSN)
IPU_VEC_BINARY_FN_(ipu_f32v2_sub, ipu_f32x2, IPU_OP_F32V2_SUB_INSN)
IPU_VEC_BINARY_FN_(ipu_f32v2_mul, ipu_f32x2, IPU_OP_F32V2_MUL_INSN)
IPU_VEC_BINARY_FN_(ipu_f16v4_add, ipu_f16x4, IPU_OP_F16V4_ADD_INSN)
IPU_VEC_BINARY_FN_(ipu_f16v4_sub, ipu_f16x4, IPU_OP_F16V4_SUB_INSN)
IPU_VEC_BINARY_FN_(ipu_f16v4_mul, ipu_f16x4, IPU_OP_F16V4_MUL_INSN)
/* acc + a * b per lane, fused. */
IPU_VEC_MAC_FN_(ipu_f32v2_mac, ipu_f32x2, IPU_OP_F32V2_MAC_INSN)
IPU_VEC_MAC_FN_(ipu_f16v4_mac, ipu_f16x4, IPU_OP_F16V4_MAC_INSN)
/* acc + s * a per lane, fused (s one f32). */
IPU_VEC_AXPY_FN_(ipu_f32v2_axpy, ipu_f32x2, float, IPU_OP_F32V2_AXPY_INSN, IPU_VEC_F32_SCALE_)
/* acc + s * a per lane, fused (s one binary16, raw bits). */
IPU_VEC_AXPY_FN_(ipu_f16v4_axpy, ipu_f16x4, uint16_t, IPU_OP_F16V4_AXPY_INSN, ipu_f16_scalar)

/* Conversions: f32 -> f16 rounds to nearest even (OF / UF / NX, NV for a sNaN); f16 -> f32
 * is exact (NV for a sNaN). Functions only, their lanes bound one register each. */
static inline ipu_f16x2 ipu_f32v2_tof16(ipu_f32x2 a) {
  IPU_VEC_BIND_(ipu_a_, "ft0", "ft1", a);
  register float d __asm__("ft4");
  __asm__ volatile(IPU_OP_F32V2_TOF16_INSN ", %0, %1, x0" : "=f"(d) : "f"(ipu_a_0), "f"(ipu_a_1));
  const uint32_t w = ipu_vec_bits_(d);
  ipu_f16x2 r = {(uint16_t)w, (uint16_t)(w >> 16)};
  return r;
}
static inline ipu_f32x2 ipu_f16v2_tof32(ipu_f16x2 a) {
  register float s __asm__("ft0") = ipu_vec_word_((uint32_t)a[0] | (uint32_t)a[1] << 16);
  register float d0 __asm__("ft4");
  register float d1 __asm__("ft5");
  __asm__ volatile(IPU_OP_F16V2_TOF32_INSN ", %0, %2, x0" : "=f"(d0), "=f"(d1) : "f"(s));
  return ipu_f32x2_make(d0, d1);
}
static inline ipu_f16x4 ipu_f32v4_tof16(ipu_f32x4 a) {
  register float a0 __asm__("ft0") = a[0];
  register float a1 __asm__("ft1") = a[1];
  register float a2 __asm__("ft2") = a[2];
  register float a3 __asm__("ft3") = a[3];
  register float d0 __asm__("ft4");
  register float d1 __asm__("ft5");
  __asm__ volatile(IPU_OP_F32V4_TOF16_INSN ", %0, %2, x0"
          : "=f"(d0), "=f"(d1)
          : "f"(a0), "f"(a1), "f"(a2), "f"(a3));
  return ipu_f32x2_make(d0, d1);
}
static inline ipu_f32x4 ipu_f16v4_tof32(ipu_f16x4 a) {
  IPU_VEC_BIND_(ipu_a_, "ft0", "ft1", a);
  register float d0 __asm__("ft4");
  register float d1 __asm__("ft5");
  register float d2 __asm__("ft6");
  register float d3 __asm__("ft7");
  __asm__ volatile(IPU_OP_F16V4_TOF32_INSN ", %0, %4, x0"
          : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
          : "f"(ipu_a_0), "f"(ipu_a_1));
  ipu_f32x4 r = {d0, d1, d2, d3};
  return r;
}

/* ---- wide loads and stores (custom-2) --------------------------------------------- */
/*
 * 8 or 16 bytes between memory and an f-register pair / quad in one instruction (docs/xipu.md
 * "Wide loads and stores"): the address must be aligned to the access size, a store may
 * not write code, and the _pi forms advance the pointer by the access size. Element i of
 * a vector is at the address + 4 i (in f[fd + i]). ld128st64_pi loads 16 bytes and stores
 * 8 in one instruction (the load reads before the store writes).
 *
 * The pair accesses come in the two forms of "Vector arithmetic" above: macros on pair
 * variables the caller binds to even pairs (IPU_LD64_PI(d, p), IPU_ST64_PI(v, p), with
 * the mnemonic's operand order; p a pointer variable, advanced in place), and functions
 * on values, bound to ft0, ft1 (loaded) and ft4, ft5 (stored). The quad accesses are
 * functions only, their lanes bound to ft0..ft3: GCC has no type it keeps in four
 * registers. Nothing moves when a loaded value is stored as it is.
 */
/* The bytes an access reads or writes, as the asm's memory operand: floats, as the
 * pointers say (f16 data is reached through float pointers too), so GCC orders the
 * access against float accesses and keeps other data (a loop bound) in registers. */
typedef struct { float w[2]; } ipu_mem64_;
typedef struct { float w[4]; } ipu_mem128_;

/* Register forms: d / v a pair variable bound to an even pair, p (ld, st) a pointer. */
#define IPU_LD64(d, p) __asm__(IPU_OP_LD64_INSN ", %0, %1, x0" : "=f"(d) : "r"(p), "m"(*(const ipu_mem64_ *)(p)))
#define IPU_LD64_PI(d, p) \
  __asm__(IPU_OP_LD64_PI_INSN ", %0, %1, x0" : "=f"(d), "+r"(p) : "m"(*(const ipu_mem64_ *)(p)))
#define IPU_ST64(v, p) \
  __asm__ volatile(IPU_OP_ST64_INSN ", x0, %1, %2" : "=m"(*(ipu_mem64_ *)(p)) : "r"(p), "f"(v))
#define IPU_ST64_PI(v, p) \
  __asm__ volatile(IPU_OP_ST64_PI_INSN ", x0, %1, %2" : "=m"(*(ipu_mem64_ *)(p)), "+r"(p) : "f"(v))
/* d = the 8 bytes at ld, the 8 bytes at st = v (the old v if d and v are one variable);
 * ld += 8 bytes, st += 8 bytes. */
#define IPU_LD64ST64_PI(d, ld, st, v)                                                      \
  __asm__ volatile(IPU_OP_LD64ST64_PI_INSN ", %0, %1, %2, %4"                               \
                   : "=f"(d), "+r"(ld), "+r"(st), "=m"(*(ipu_mem64_ *)(st))                \
                   : "f"(v), "m"(*(const ipu_mem64_ *)(ld)))

/* The function forms: a loaded pair in ft0, ft1, a stored one in ft4, ft5, a quad in
 * ft0..ft3, one register a lane ("Vector arithmetic" says why). */
#define IPU_WIDE_LOAD2_(insn, p)                                                           \
  register float ipu_r0_ __asm__("ft0");                                                  \
  register float ipu_r1_ __asm__("ft1");                                                  \
  __asm__(insn ", %0, %2, x0" : "=f"(ipu_r0_), "=f"(ipu_r1_), "+r"(p) : "m"(*(const ipu_mem64_ *)(p))); \
  const ipu_f32x2 ipu_v_ = ipu_f32x2_make(ipu_r0_, ipu_r1_)
#define IPU_WIDE_LOAD4_(insn, p)                                                           \
  register float ipu_r0_ __asm__("ft0");                                                  \
  register float ipu_r1_ __asm__("ft1");                                                  \
  register float ipu_r2_ __asm__("ft2");                                                  \
  register float ipu_r3_ __asm__("ft3");                                                  \
  __asm__(insn ", %0, %4, x0"                                                             \
          : "=f"(ipu_r0_), "=f"(ipu_r1_), "=f"(ipu_r2_), "=f"(ipu_r3_), "+r"(p)           \
          : "m"(*(const ipu_mem128_ *)(p)));                                               \
  ipu_f32x4 ipu_v_ = {ipu_r0_, ipu_r1_, ipu_r2_, ipu_r3_}

/* The 8 bytes at p (8-byte aligned). */
static inline ipu_f32x2 ipu_ld64(const void *p) {
  const void *a = p;
  IPU_WIDE_LOAD2_(IPU_OP_LD64_INSN, a);
  return ipu_v_;
}
/* The 16 bytes at p (16-byte aligned). */
static inline ipu_f32x4 ipu_ld128(const void *p) {
  const void *a = p;
  IPU_WIDE_LOAD4_(IPU_OP_LD128_INSN, a);
  return ipu_v_;
}
/* The 8 bytes at *p; then *p += 2 floats. */
static inline ipu_f32x2 ipu_ld64_pi(const float **p) {
  const float *a = *p;
  IPU_WIDE_LOAD2_(IPU_OP_LD64_PI_INSN, a);
  *p = a;
  return ipu_v_;
}
/* The 16 bytes at *p; then *p += 4 floats. */
static inline ipu_f32x4 ipu_ld128_pi(const float **p) {
  const float *a = *p;
  IPU_WIDE_LOAD4_(IPU_OP_LD128_PI_INSN, a);
  *p = a;
  return ipu_v_;
}

#define IPU_WIDE_STORE2_(insn, p, v)                                                        \
  IPU_VEC_BIND_(ipu_s_, "ft4", "ft5", v);                                                  \
  __asm__ volatile(insn ", x0, %1, %2"                                                    \
                   : "=m"(*(ipu_mem64_ *)(p)), "+r"(p)                                     \
                   : "f"(ipu_s_0), "f"(ipu_s_1))
#define IPU_WIDE_STORE4_(insn, p, v)                                                        \
  register float ipu_s0_ __asm__("ft0") = (v)[0];                                      \
  register float ipu_s1_ __asm__("ft1") = (v)[1];                                      \
  register float ipu_s2_ __asm__("ft2") = (v)[2];                                      \
  register float ipu_s3_ __asm__("ft3") = (v)[3];                                      \
  __asm__ volatile(insn ", x0, %1, %2"                                                    \
                   : "=m"(*(ipu_mem128_ *)(p)), "+r"(p)                                    \
                   : "f"(ipu_s0_), "f"(ipu_s1_), "f"(ipu_s2_), "f"(ipu_s3_))

/* Stores v at p (8-byte aligned, not in code). */
static inline void ipu_st64(void *p, ipu_f32x2 v) {
  void *a = p;
  IPU_WIDE_STORE2_(IPU_OP_ST64_INSN, a, v);
}
/* Stores v at p (16-byte aligned, not in code). */
static inline void ipu_st128(void *p, ipu_f32x4 v) {
  void *a = p;
  IPU_WIDE_STORE4_(IPU_OP_ST128_INSN, a, v);
}
/* Stores v at *p; then *p += 2 floats. */
static inline void ipu_st64_pi(float **p, ipu_f32x2 v) {
  float *a = *p;
  IPU_WIDE_STORE2_(IPU_OP_ST64_PI_INSN, a, v);
  *p = a;
}
/* Stores v at *p; then *p += 4 floats. */
static inline void ipu_st128_pi(float **p, ipu_f32x4 v) {
  float *a = *p;
  IPU_WIDE_STORE4_(IPU_OP_ST128_PI_INSN, a, v);
  *p = a;
}

/* Returns the 16 bytes at *ld and stores v at *st, in one instruction; then *ld += 4
 * floats, *st += 2. ld and st are distinct pointers (they may point to overlapping memory:
 * the load sees the memory as it was before the store). */
static inline ipu_f32x4 ipu_ld128st64_pi(const float **ld, float **st, ipu_f32x2 v) {
  const float *l = *ld;
  float *s = *st;
  register float ipu_r0_ __asm__("ft0");
  register float ipu_r1_ __asm__("ft1");
  register float ipu_r2_ __asm__("ft2");
  register float ipu_r3_ __asm__("ft3");
  IPU_VEC_BIND_(ipu_s_, "ft4", "ft5", v);
  __asm__ volatile(IPU_OP_LD128ST64_PI_INSN ", %0, %4, %5, %7"
                   : "=f"(ipu_r0_), "=f"(ipu_r1_), "=f"(ipu_r2_), "=f"(ipu_r3_), "+r"(l), "+r"(s),
                     "=m"(*(ipu_mem64_ *)*st)
                   : "f"(ipu_s_0), "f"(ipu_s_1), "m"(*(const ipu_mem128_ *)*ld));
  *ld = l;
  *st = s;
  ipu_f32x4 r = {ipu_r0_, ipu_r1_, ipu_r2_, ipu_r3_};
  return r;
}
/* The same with an 8-byte load: *ld += 2 floats, *st += 2. */
static inline ipu_f32x2 ipu_ld64st64_pi(const float **ld, float **st, ipu_f32x2 v) {
  const float *l = *ld;
  float *s = *st;
  register float ipu_r0_ __asm__("ft0");
  register float ipu_r1_ __asm__("ft1");
  IPU_VEC_BIND_(ipu_s_, "ft4", "ft5", v);
  __asm__ volatile(IPU_OP_LD64ST64_PI_INSN ", %0, %2, %3, %5"
                   : "=f"(ipu_r0_), "=f"(ipu_r1_), "+r"(l), "+r"(s), "=m"(*(ipu_mem64_ *)*st)
                   : "f"(ipu_s_0), "f"(ipu_s_1), "m"(*(const ipu_mem64_ *)*ld));
  *ld = l;
  *st = s;
  return ipu_f32x2_make(ipu_r0_, ipu_r1_);
}

#ifdef __cplusplus
}
#endif

#else /* __ASSEMBLER__ */

/* The wide loads and stores for hand-written kernels (.S files): IPU_LD128_PI(ft0, a0)
 * assembles `ld128.pi ft0, a0`, with the same operand order as the mnemonic. fd / fs
 * name the first register of the pair (even) or quad (a multiple of 4). */
#define IPU_LD64(fd, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_LD64_F3, IPU_OP_LD64_F7, fd, rs1, x0
#define IPU_LD128(fd, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_LD128_F3, IPU_OP_LD128_F7, fd, rs1, x0
#define IPU_LD64_PI(fd, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_LD64_PI_F3, IPU_OP_LD64_PI_F7, fd, rs1, x0
#define IPU_LD128_PI(fd, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_LD128_PI_F3, IPU_OP_LD128_PI_F7, fd, rs1, x0
#define IPU_ST64(fs, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_ST64_F3, IPU_OP_ST64_F7, x0, rs1, fs
#define IPU_ST128(fs, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_ST128_F3, IPU_OP_ST128_F7, x0, rs1, fs
#define IPU_ST64_PI(fs, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_ST64_PI_F3, IPU_OP_ST64_PI_F7, x0, rs1, fs
#define IPU_ST128_PI(fs, rs1) .insn r IPU_OPC_CUSTOM2, IPU_OP_ST128_PI_F3, IPU_OP_ST128_PI_F7, x0, rs1, fs
#define IPU_LD128ST64_PI(fd, rs1, rs2, fs) \
  .insn r4 IPU_OPC_CUSTOM2, IPU_OP_LD128ST64_PI_F3, IPU_OP_LD128ST64_PI_F7, fd, rs1, rs2, fs
#define IPU_LD64ST64_PI(fd, rs1, rs2, fs) \
  .insn r4 IPU_OPC_CUSTOM2, IPU_OP_LD64ST64_PI_F3, IPU_OP_LD64ST64_PI_F7, fd, rs1, rs2, fs

#endif /* __ASSEMBLER__ */
#endif /* IPU_XIPU_H */
