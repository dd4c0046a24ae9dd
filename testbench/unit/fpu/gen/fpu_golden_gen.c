/*
 * Golden-vector generator for the FPU unit test (testbench/unit/fpu/golden_vectors.txt).
 *
 * A bare RV32IMF program for qemu-riscv32 (Linux user mode), whose RISC-V F implementation
 * (SoftFloat-based) is the oracle. It runs a deterministic list of operand tuples through
 * every F instruction in every rounding mode (fsrm + the dyn rounding mode), reads fflags
 * after each one, and prints one line per execution:
 *
 *   <op> <rm> <operand>... <result> <fflags>      (all hex, no 0x; rm 0..4; fflags 5 bits)
 *
 * Operands and result are raw register bits (integers for fcvt.s.w[u] operands and for
 * the results of fcvt.w[u].s, feq/flt/fle and fclass). Non-rounding ops print rm 0.
 * Build and run with regen.sh. No libc: a few Linux syscalls suffice.
 */
#include <stdint.h>

/* ---- minimal runtime: _start, write, exit ---- */

static long sys3(long n, long a, long b, long c) {
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = n;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

static char out_buf[8192];
static unsigned out_len;

static void flush(void) {
  unsigned done = 0;
  while (done < out_len) {
    long n = sys3(64 /* write */, 1, (long)(out_buf + done), out_len - done);
    if (n <= 0) sys3(93 /* exit */, 2, 0, 0);
    done += (unsigned)n;
  }
  out_len = 0;
}

static void put_char(char c) {
  if (out_len == sizeof out_buf) flush();
  out_buf[out_len++] = c;
}

static void put_str(const char *s) {
  while (*s) put_char(*s++);
}

static void put_hex(uint32_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) put_char("0123456789abcdef"[(v >> (4 * i)) & 0xf]);
}

int main(void);
void __attribute__((noreturn)) _cstart(void) {
  int rc = main();
  flush();
  sys3(93 /* exit */, rc, 0, 0);
  for (;;) {}
}
__asm__(".section .text.init\n.globl _start\n_start:\n .option push\n .option norelax\n"
        " la gp, __global_pointer$\n .option pop\n call _cstart\n");

/* ---- one F instruction at a time, with the mode set and fflags read back ---- */

#define PRE "fsrm %[rm]\n\tfsflags zero\n\t"
#define POST "\n\tfrflags %[f]"

static uint32_t run_op(int op, uint32_t rm, uint32_t a, uint32_t b, uint32_t c, uint32_t *flags) {
  uint32_t r = 0, f = 0;
#define FP3(insn)                                                                           \
  __asm__ volatile(PRE "fmv.w.x ft0, %[a]\n\tfmv.w.x ft1, %[b]\n\tfmv.w.x ft2, %[c]\n\t" insn \
                   "\n\tfmv.x.w %[r], ft3" POST                                             \
                   : [r] "=r"(r), [f] "=r"(f)                                               \
                   : [a] "r"(a), [b] "r"(b), [c] "r"(c), [rm] "r"(rm)                       \
                   : "ft0", "ft1", "ft2", "ft3")
#define INT_OUT(insn)                                                                       \
  __asm__ volatile(PRE "fmv.w.x ft0, %[a]\n\tfmv.w.x ft1, %[b]\n\t" insn POST               \
                   : [r] "=r"(r), [f] "=r"(f)                                               \
                   : [a] "r"(a), [b] "r"(b), [rm] "r"(rm)                                   \
                   : "ft0", "ft1")
  switch (op) {
    case 0: FP3("fadd.s ft3, ft0, ft1, dyn"); break;
    case 1: FP3("fsub.s ft3, ft0, ft1, dyn"); break;
    case 2: FP3("fmul.s ft3, ft0, ft1, dyn"); break;
    case 3: FP3("fdiv.s ft3, ft0, ft1, dyn"); break;
    case 4: FP3("fsqrt.s ft3, ft0, dyn"); break;
    case 5: FP3("fmadd.s ft3, ft0, ft1, ft2, dyn"); break;
    case 6: FP3("fmsub.s ft3, ft0, ft1, ft2, dyn"); break;
    case 7: FP3("fnmsub.s ft3, ft0, ft1, ft2, dyn"); break;
    case 8: FP3("fnmadd.s ft3, ft0, ft1, ft2, dyn"); break;
    case 9: FP3("fmin.s ft3, ft0, ft1"); break;
    case 10: FP3("fmax.s ft3, ft0, ft1"); break;
    case 11: INT_OUT("feq.s %[r], ft0, ft1"); break;
    case 12: INT_OUT("flt.s %[r], ft0, ft1"); break;
    case 13: INT_OUT("fle.s %[r], ft0, ft1"); break;
    case 14: INT_OUT("fclass.s %[r], ft0"); break;
    case 15: INT_OUT("fcvt.w.s %[r], ft0, dyn"); break;
    case 16: INT_OUT("fcvt.wu.s %[r], ft0, dyn"); break;
    case 17:
      __asm__ volatile(PRE "fcvt.s.w ft3, %[a], dyn\n\tfmv.x.w %[r], ft3" POST
                       : [r] "=r"(r), [f] "=r"(f) : [a] "r"(a), [rm] "r"(rm) : "ft3");
      break;
    case 18:
      __asm__ volatile(PRE "fcvt.s.wu ft3, %[a], dyn\n\tfmv.x.w %[r], ft3" POST
                       : [r] "=r"(r), [f] "=r"(f) : [a] "r"(a), [rm] "r"(rm) : "ft3");
      break;
  }
  *flags = f;
  return r;
}

/* Mnemonics as the unit test names them; operand counts; whether the op rounds. */
static const char *const kNames[] = {"fadd",  "fsub",   "fmul",   "fdiv",   "fsqrt",
                                     "fmadd", "fmsub",  "fnmsub", "fnmadd", "fmin",
                                     "fmax",  "feq",    "flt",    "fle",    "fclass",
                                     "fcvt.w.s", "fcvt.wu.s", "fcvt.s.w", "fcvt.s.wu"};
static const int kArity[] = {2, 2, 2, 2, 1, 3, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1};
static const int kRounds[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
enum { kOpCount = 19 };

/* ---- operands ---- */

static const uint32_t kSpecials[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc12345,
    0x7fa00042, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
    0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x40000000, 0x3f000000, 0x3f800001,
    0x3f7fffff, 0x40400000, 0x33800000, 0x4f000000, 0xcf000000, 0x4f800000, 0x4b800000,
    0x3e99999a, 0x40200000, 0xc0200000, 0x3fc00000, 0x00000003, 0x00400000, 0x1a000000,
    0x73000000, 0x72800000, 0x17800000, 0x19800000, 0xbf000000,
};
enum { kSpecialCount = sizeof kSpecials / sizeof kSpecials[0] };

static const uint32_t kIntSpecials[] = {
    0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x80000001, 16777216, 16777217, 16777219,
    0xfeffffff, 0x01000001, 0xff000001, 0x7fffff80, 0x7fffffc0, 0xffffff80, 0xffffffc0,
    0x00ffffff, 0x02000003, 0xfefffffd, 12345678,
};
enum { kIntSpecialCount = sizeof kIntSpecials / sizeof kIntSpecials[0] };

/* Hand-picked corner cases (see fpu_directed_test.cpp), run in every mode. */
static const uint32_t kCurated2[][2] = {
    {0x3f800000, 0x33800000}, {0x3f800001, 0x33800000}, {0xbf800000, 0xb3800000},
    {0x7f7fffff, 0x7f7fffff}, {0xff7fffff, 0xff7fffff}, {0x7f7fffff, 0x73000000},
    {0x7f7fffff, 0x72800000}, {0x3f800000, 0xbf800000}, {0x00000001, 0x80000001},
    {0x00800001, 0x80800000}, {0x00800000, 0x3f000000}, {0x00000001, 0x3f000000},
    {0x80000001, 0x3f000000}, {0x00000003, 0x3f000000}, {0x00000001, 0x00000001},
    {0x3f7fffff, 0x00800000}, {0x7f7fffff, 0x40000000}, {0xff7fffff, 0x3f000000},
    {0x3f800000, 0x40400000}, {0xbf800000, 0x40400000}, {0x00800000, 0x40400000},
    {0x00000006, 0x00000003}, {0x3f800000, 0x00000000}, {0x3f800000, 0x80000000},
    {0x00000000, 0x80000000}, {0x7f800000, 0xff800000}, {0x00000000, 0x7f800000},
    {0x7f800000, 0x00000000}, {0x7f800001, 0x3f800000}, {0x7fc00000, 0x3f800000},
    {0x80000000, 0x80000000}, {0x007fffff, 0x00000001}, {0x4b800000, 0x3f000000},
    {0x4b800001, 0x3f000000}, {0x3f800000, 0x3fc00000}, {0x00ffffff, 0x3f000000},
};
enum { kCurated2Count = sizeof kCurated2 / sizeof kCurated2[0] };

static const uint32_t kCurated3[][3] = {
    {0x3f800001, 0x3f800001, 0xbf800000}, {0x40000000, 0x40400000, 0x3f800000},
    {0x3f800000, 0x3f800000, 0x00000001}, {0x3f800000, 0x3f800000, 0x80000001},
    {0x00000001, 0x00000001, 0xbf800000}, {0x00000000, 0x40000000, 0x00000001},
    {0x7f7fffff, 0x40000000, 0x80000000}, {0x7f7fffff, 0x40000000, 0x7f7fffff},
    {0x97800000, 0x17800000, 0x00800000}, {0x9a000000, 0x19800000, 0x00800000},
    {0x1a000000, 0x19800000, 0x80800000}, {0x3f800000, 0x3f800000, 0xbf800000},
    {0x00000000, 0x3f800000, 0x80000000}, {0x80000000, 0x3f800000, 0x80000000},
    {0x00000000, 0x7f800000, 0x7fc00000}, {0xff800000, 0x00000000, 0xffc12345},
    {0x7f800000, 0x80000000, 0x3f800000}, {0x7f800000, 0x3f800000, 0xff800000},
    {0x7f800000, 0x3f800000, 0x7f800000}, {0x3f800000, 0x40000000, 0x7f800001},
    {0x3f800000, 0x7fa00042, 0x7fc00000}, {0x7f800000, 0x40000000, 0xffc12345},
    {0x3f7fffff, 0x00800000, 0x00000000}, {0x00000001, 0x3f000000, 0x80000000},
};
enum { kCurated3Count = sizeof kCurated3 / sizeof kCurated3[0] };

/* A bulk cross-check build (regen.sh --random N --seed S) overrides these two. */
#ifndef RANDOM_TUPLES
#define RANDOM_TUPLES 60
#endif
#ifndef SEED
#define SEED 0x9e3779b97f4a7c15ull
#endif

static uint64_t rng_state = SEED;
static uint32_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}
static uint32_t below(uint32_t n) { return rnd() % n; }

static uint32_t exp_field(int e) { return (uint32_t)(e < 0 ? 0 : e > 254 ? 254 : e) << 23; }
static uint32_t sparse_mantissa(void) { return (rnd() & 0x7fffff) & ~((1u << below(24)) - 1); }
static int biased_exp(uint32_t x) { return (int)((x >> 23) & 0xff); }

/* Random operands biased towards ties, cancellation, subnormals and overflow. */
static uint32_t operand(int near_exp) {
  uint32_t sign = below(2) << 31;
  switch (below(8)) {
    case 0: return rnd();
    case 1: return kSpecials[below(kSpecialCount)];
    case 2: return sign | (below(256) << 23) | (rnd() & 0x7fffff);
    case 3: return sign | exp_field(near_exp + (int)below(61) - 30) | sparse_mantissa();
    case 4: return sign | exp_field((int)below(26)) | sparse_mantissa();
    case 5: return sign | exp_field(228 + (int)below(27)) | sparse_mantissa();
    case 6: return sign | exp_field(near_exp + (int)below(5) - 2) | (rnd() & 0x7fffff);
    default: return sign | exp_field(97 + (int)below(61)) | sparse_mantissa();
  }
}

static uint32_t int_operand(void) {
  switch (below(4)) {
    case 0: return kIntSpecials[below(kIntSpecialCount)];
    case 1: return rnd();
    case 2: return rnd() >> below(32);
    default: return (uint32_t)(-(int32_t)(rnd() >> below(32)));
  }
}

/* ---- the vector list ---- */

static void emit(int op, uint32_t a, uint32_t b, uint32_t c) {
  const int modes = kRounds[op] ? 5 : 1;
  for (uint32_t rm = 0; rm < (uint32_t)modes; ++rm) {
    uint32_t flags;
    uint32_t r = run_op(op, rm, a, b, c, &flags);
    put_str(kNames[op]);
    put_char(' ');
    put_hex(rm, 1);
    put_char(' ');
    put_hex(a, 8);
    if (kArity[op] >= 2) { put_char(' '); put_hex(b, 8); }
    if (kArity[op] >= 3) { put_char(' '); put_hex(c, 8); }
    put_char(' ');
    put_hex(r, 8);
    put_char(' ');
    put_hex(flags, 2);
    put_char('\n');
  }
}

/* Tuples per op: curated, then random pairs of specials, then random operands. */
enum { kSpecialTuples = 40, kRandomTuples = RANDOM_TUPLES };

static void emit_op(int op) {
  const int arity = kArity[op];
  const int integer_in = op == 17 || op == 18;
  if (integer_in) {
    for (int i = 0; i < kIntSpecialCount; ++i) emit(op, kIntSpecials[i], 0, 0);
    for (int i = 0; i < kRandomTuples; ++i) emit(op, int_operand(), 0, 0);
    return;
  }
  if (arity == 1) {
    for (int i = 0; i < kSpecialCount; ++i) emit(op, kSpecials[i], 0, 0);
  } else if (arity == 2) {
    for (int i = 0; i < kCurated2Count; ++i) emit(op, kCurated2[i][0], kCurated2[i][1], 0);
  } else {
    for (int i = 0; i < kCurated3Count; ++i)
      emit(op, kCurated3[i][0], kCurated3[i][1], kCurated3[i][2]);
  }
  if (op == 14) return; /* fclass: the specials cover every class */
  for (int i = 0; i < kSpecialTuples; ++i)
    emit(op, kSpecials[below(kSpecialCount)], kSpecials[below(kSpecialCount)],
         kSpecials[below(kSpecialCount)]);
  for (int i = 0; i < kRandomTuples; ++i) {
    const int multiplicative = op == 2 || op == 3 || (op >= 5 && op <= 8);
    uint32_t a = operand(127);
    uint32_t b = operand(multiplicative ? 127 : biased_exp(a));
    if (op >= 9 && op <= 13 && below(4) == 0) b = a ^ (below(2) << 31); /* equal or +-0 */
    uint32_t c = operand(biased_exp(a) + biased_exp(b) - 127);
    emit(op, a, b, c);
  }
}

int main(void) {
  put_str("# Golden vectors for the FPU unit test, produced by qemu-riscv32 running\n"
          "# gen/fpu_golden_gen.c (regenerate with gen/regen.sh; do not edit by hand).\n"
          "# <op> <rm> <operands...> <result> <fflags>, hex; fflags bits NV DZ OF UF NX.\n");
  for (int op = 0; op < kOpCount; ++op) emit_op(op);
  return 0;
}
