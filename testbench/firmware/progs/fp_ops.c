/* RV32F: every instruction on special values (zeros, denormals, limits, infinities,
 * quiet and signalling NaNs), in every rounding mode (dynamic via frm and static in
 * the instruction), with the exception flags each operation raises (read from fflags
 * after clearing them). */
#include "progs_common.h"

static volatile uint32_t values[] = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x3fc00000u, 0x40200000u,
    0xc0200000u, 0x3dcccccdu, 0x40400000u, 0x3eaaaaabu, 0x7f7fffffu, 0xff7fffffu,
    0x00800000u, 0x00000001u, 0x007fffffu, 0x80000001u, 0x7f800000u, 0xff800000u,
    0x7fc00000u, 0x7f800001u, 0xffc00000u, 0x7149f2cau, 0x0da24260u, 0x4b800001u,
    0x4f000000u, 0xcf000000u, 0x4f800000u, 0x3f000000u, 0xbf000000u, 0x3f800001u,
    0x33800000u, 0x4effffffu,
};
/* A smaller set for the three-operand fused operations. */
static volatile uint32_t fma_values[] = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x3eaaaaabu, 0x7f7fffffu,
    0x00800000u, 0x00000001u, 0x7f800000u, 0x7fc00000u, 0x7f800001u, 0x33800000u,
};

static const char *const rm_names[] = {"rne", "rtz", "rdn", "rup", "rmm"};

static inline void set_frm(uint32_t rm) { __asm__ volatile("fsrm %0" ::"r"(rm)); }
static inline void clear_flags(void) { __asm__ volatile("fsflags x0"); }
static inline uint32_t flags(void) {
  uint32_t f;
  __asm__ volatile("frflags %0" : "=r"(f));
  return f;
}

/* fn(a, b): f-register result; cmp(a, b): x-register result. */
#define FOP2(name, insn)                                                      \
  static uint32_t name(uint32_t a, uint32_t b) {                              \
    float r;                                                                  \
    __asm__ volatile(insn " %0, %1, %2" : "=f"(r) : "f"(u2f(a)), "f"(u2f(b))); \
    return f2u(r);                                                            \
  }
#define XOP2(name, insn)                                                      \
  static uint32_t name(uint32_t a, uint32_t b) {                              \
    uint32_t r;                                                               \
    __asm__ volatile(insn " %0, %1, %2" : "=r"(r) : "f"(u2f(a)), "f"(u2f(b))); \
    return r;                                                                 \
  }
FOP2(op_fadd, "fadd.s") FOP2(op_fsub, "fsub.s") FOP2(op_fmul, "fmul.s") FOP2(op_fdiv, "fdiv.s")
FOP2(op_fmin, "fmin.s") FOP2(op_fmax, "fmax.s")
FOP2(op_fsgnj, "fsgnj.s") FOP2(op_fsgnjn, "fsgnjn.s") FOP2(op_fsgnjx, "fsgnjx.s")
XOP2(op_feq, "feq.s") XOP2(op_flt, "flt.s") XOP2(op_fle, "fle.s")

struct binop {
  const char *name;
  uint32_t (*fn)(uint32_t, uint32_t);
  int rounds; /* result depends on the rounding mode: run it in all five */
};
static const struct binop binops[] = {
    {"fadd", op_fadd, 1}, {"fsub", op_fsub, 1},   {"fmul", op_fmul, 1},     {"fdiv", op_fdiv, 1},
    {"fmin", op_fmin, 0}, {"fmax", op_fmax, 0},   {"fsgnj", op_fsgnj, 0},   {"fsgnjn", op_fsgnjn, 0},
    {"fsgnjx", op_fsgnjx, 0}, {"feq", op_feq, 0}, {"flt", op_flt, 0},       {"fle", op_fle, 0},
};

#define FOP1(name, insn)                                                      \
  static uint32_t name(uint32_t a) {                                          \
    float r;                                                                  \
    __asm__ volatile(insn " %0, %1" : "=f"(r) : "f"(u2f(a)));                 \
    return f2u(r);                                                            \
  }
#define XOP1(name, insn)                                                      \
  static uint32_t name(uint32_t a) {                                          \
    uint32_t r;                                                               \
    __asm__ volatile(insn " %0, %1" : "=r"(r) : "f"(u2f(a)));                 \
    return r;                                                                 \
  }
#define FXOP1(name, insn)                                                     \
  static uint32_t name(uint32_t a) {                                          \
    float r;                                                                  \
    __asm__ volatile(insn " %0, %1" : "=f"(r) : "r"(a));                      \
    return f2u(r);                                                            \
  }
FOP1(op_fsqrt, "fsqrt.s")
XOP1(op_fcvt_w, "fcvt.w.s") XOP1(op_fcvt_wu, "fcvt.wu.s")
XOP1(op_fclass, "fclass.s") XOP1(op_fmv_x, "fmv.x.w")
FXOP1(op_fcvt_s_w, "fcvt.s.w") FXOP1(op_fcvt_s_wu, "fcvt.s.wu") FXOP1(op_fmv_w, "fmv.w.x")

struct unop {
  const char *name;
  uint32_t (*fn)(uint32_t);
  int rounds;
};
static const struct unop unops[] = {
    {"fsqrt", op_fsqrt, 1},     {"fcvt.w.s", op_fcvt_w, 1},     {"fcvt.wu.s", op_fcvt_wu, 1},
    {"fcvt.s.w", op_fcvt_s_w, 1}, {"fcvt.s.wu", op_fcvt_s_wu, 1}, {"fclass", op_fclass, 0},
    {"fmv.x.w", op_fmv_x, 0},   {"fmv.w.x", op_fmv_w, 0},
};

#define FOP3(name, insn)                                                                  \
  static uint32_t name(uint32_t a, uint32_t b, uint32_t c) {                              \
    float r;                                                                              \
    __asm__ volatile(insn " %0, %1, %2, %3" : "=f"(r) : "f"(u2f(a)), "f"(u2f(b)), "f"(u2f(c))); \
    return f2u(r);                                                                        \
  }
FOP3(op_fmadd, "fmadd.s") FOP3(op_fmsub, "fmsub.s") FOP3(op_fnmsub, "fnmsub.s")
FOP3(op_fnmadd, "fnmadd.s")

struct triop {
  const char *name;
  uint32_t (*fn)(uint32_t, uint32_t, uint32_t);
};
static const struct triop triops[] = {
    {"fmadd", op_fmadd}, {"fmsub", op_fmsub}, {"fnmsub", op_fnmsub}, {"fnmadd", op_fnmadd}};

/* Sweeps: one line per (operation, rounding mode) with a hash of results and flags, and
 * the union of the flags raised. */
static void sweep_binops(void) {
  unsigned n = COUNT_OF(values);
  for (unsigned k = 0; k < COUNT_OF(binops); ++k)
    for (uint32_t rm = 0; rm < (binops[k].rounds ? 5u : 1u); ++rm) {
      set_frm(rm);
      uint32_t acc = 0, all = 0;
      for (unsigned i = 0; i < n; ++i)
        for (unsigned j = 0; j < n; ++j) {
          clear_flags();
          uint32_t r = binops[k].fn(values[i], values[j]);
          uint32_t f = flags();
          acc = (acc * 31u) ^ r ^ (f << 27);
          all |= f;
          mix(r);
          mix(f);
        }
      printf("%-7s %s %08lx flags %02lx\n", binops[k].name, rm_names[rm], (unsigned long)acc,
             (unsigned long)all);
    }
}

static void sweep_unops(void) {
  static volatile uint32_t ints[] = {0u, 1u, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x01000001u,
                                     0x00ffffffu, 0xfffffff0u, 123456789u, 0x80000001u};
  for (unsigned k = 0; k < COUNT_OF(unops); ++k)
    for (uint32_t rm = 0; rm < (unops[k].rounds ? 5u : 1u); ++rm) {
      set_frm(rm);
      uint32_t acc = 0, all = 0;
      for (unsigned pass = 0; pass < 2; ++pass) {
        const volatile uint32_t *in = pass ? ints : values;
        unsigned n = pass ? COUNT_OF(ints) : COUNT_OF(values);
        for (unsigned i = 0; i < n; ++i) {
          clear_flags();
          uint32_t r = unops[k].fn(in[i]);
          uint32_t f = flags();
          acc = (acc * 31u) ^ r ^ (f << 27);
          all |= f;
          mix(r);
          mix(f);
        }
      }
      printf("%-9s %s %08lx flags %02lx\n", unops[k].name, rm_names[rm], (unsigned long)acc,
             (unsigned long)all);
    }
}

static void sweep_triops(void) {
  unsigned n = COUNT_OF(fma_values);
  for (unsigned k = 0; k < COUNT_OF(triops); ++k)
    for (uint32_t rm = 0; rm < 5; ++rm) {
      set_frm(rm);
      uint32_t acc = 0, all = 0;
      for (unsigned i = 0; i < n; ++i)
        for (unsigned j = 0; j < n; ++j)
          for (unsigned l = 0; l < n; ++l) {
            clear_flags();
            uint32_t r = triops[k].fn(fma_values[i], fma_values[j], fma_values[l]);
            uint32_t f = flags();
            acc = (acc * 31u) ^ r ^ (f << 27);
            all |= f;
            mix(r);
            mix(f);
          }
      printf("%-7s %s %08lx flags %02lx\n", triops[k].name, rm_names[rm], (unsigned long)acc,
             (unsigned long)all);
    }
}

/* Corner cases one by one: result bits and flags (NV DZ OF UF NX = 16 8 4 2 1). */
#define CASE2(label, fn, a, b)                                                            \
  do {                                                                                    \
    clear_flags();                                                                        \
    uint32_t r_ = fn(a, b);                                                               \
    uint32_t f_ = flags();                                                                \
    printf("  %-22s %08lx fflags %02lx\n", label, (unsigned long)r_, (unsigned long)f_);  \
    mix(r_);                                                                              \
  } while (0)
#define CASE1(label, fn, a)                                                               \
  do {                                                                                    \
    clear_flags();                                                                        \
    uint32_t r_ = fn(a);                                                                  \
    uint32_t f_ = flags();                                                                \
    printf("  %-22s %08lx fflags %02lx\n", label, (unsigned long)r_, (unsigned long)f_);  \
    mix(r_);                                                                              \
  } while (0)

static void corner_cases(void) {
  for (uint32_t rm = 0; rm < 5; ++rm) {
    set_frm(rm);
    printf("corner cases, frm = %s\n", rm_names[rm]);
    CASE2("1 + 2^-24", op_fadd, 0x3f800000u, 0x33800000u);
    CASE2("1 + 3*2^-24", op_fadd, 0x3f800000u, 0x34400000u);
    CASE2("-1 - 2^-24", op_fsub, 0xbf800000u, 0x33800000u);
    CASE2("1 / 3", op_fdiv, 0x3f800000u, 0x40400000u);
    CASE2("-1 / 3", op_fdiv, 0xbf800000u, 0x40400000u);
    CASE2("max * 2 (overflow)", op_fmul, 0x7f7fffffu, 0x40000000u);
    CASE2("-max * 2 (overflow)", op_fmul, 0xff7fffffu, 0x40000000u);
    CASE2("min / 3 (underflow)", op_fdiv, 0x00800000u, 0x40400000u);
    CASE2("min * 0.5 (exact den)", op_fmul, 0x00800000u, 0x3f000000u);
    CASE2("tiny * tiny", op_fmul, 0x00000001u, 0x00000001u);
    CASE2("0 / 0", op_fdiv, 0x00000000u, 0x00000000u);
    CASE2("1 / 0", op_fdiv, 0x3f800000u, 0x00000000u);
    CASE2("-1 / -0", op_fdiv, 0xbf800000u, 0x80000000u);
    CASE2("inf - inf", op_fsub, 0x7f800000u, 0x7f800000u);
    CASE2("0 * inf", op_fmul, 0x00000000u, 0x7f800000u);
    CASE2("x - x (sign of 0)", op_fsub, 0x3fc00000u, 0x3fc00000u);
    CASE2("snan + 1", op_fadd, 0x7f800001u, 0x3f800000u);
    CASE2("qnan + 1", op_fadd, 0xffc00001u, 0x3f800000u);
    CASE2("fmin(snan, 1)", op_fmin, 0x7f800001u, 0x3f800000u);
    CASE2("fmin(qnan, qnan)", op_fmin, 0x7fc00000u, 0xffc00000u);
    CASE2("fmin(-0, +0)", op_fmin, 0x80000000u, 0x00000000u);
    CASE2("fmax(-0, +0)", op_fmax, 0x80000000u, 0x00000000u);
    CASE2("feq(snan, snan)", op_feq, 0x7f800001u, 0x7f800001u);
    CASE2("feq(qnan, 1)", op_feq, 0x7fc00000u, 0x3f800000u);
    CASE2("flt(qnan, 1)", op_flt, 0x7fc00000u, 0x3f800000u);
    CASE2("fle(-0, +0)", op_fle, 0x80000000u, 0x00000000u);
    CASE1("sqrt(-1)", op_fsqrt, 0xbf800000u);
    CASE1("sqrt(-0)", op_fsqrt, 0x80000000u);
    CASE1("sqrt(2)", op_fsqrt, 0x40000000u);
    CASE1("sqrt(denormal)", op_fsqrt, 0x00000001u);
    CASE1("cvt.w(2.5)", op_fcvt_w, 0x40200000u);
    CASE1("cvt.w(-2.5)", op_fcvt_w, 0xc0200000u);
    CASE1("cvt.w(-0.5)", op_fcvt_w, 0xbf000000u);
    CASE1("cvt.w(nan)", op_fcvt_w, 0x7fc00000u);
    CASE1("cvt.w(-inf)", op_fcvt_w, 0xff800000u);
    CASE1("cvt.w(2^31)", op_fcvt_w, 0x4f000000u);
    CASE1("cvt.w(-2^31)", op_fcvt_w, 0xcf000000u);
    CASE1("cvt.wu(-1)", op_fcvt_wu, 0xbf800000u);
    CASE1("cvt.wu(-0.5)", op_fcvt_wu, 0xbf000000u);
    CASE1("cvt.wu(2^32)", op_fcvt_wu, 0x4f800000u);
    CASE1("cvt.wu(nan)", op_fcvt_wu, 0xffc00000u);
    CASE1("cvt.s.w(2^24+1)", op_fcvt_s_w, 0x01000001u);
    CASE1("cvt.s.w(-2^31+1)", op_fcvt_s_w, 0x80000001u);
    CASE1("cvt.s.wu(2^32-1)", op_fcvt_s_wu, 0xffffffffu);
    CASE1("fclass(snan)", op_fclass, 0x7f800001u);
    CASE1("fclass(-denormal)", op_fclass, 0x80000001u);
  }
}

/* The same operation with the rounding mode in the instruction (frm is left at rne). */
static void static_rounding(void) {
  set_frm(0);
  float a = u2f(0x3f800000u), b = u2f(0x3eaaaaabu), r[6];
  clear_flags();
  __asm__ volatile("fadd.s %0, %1, %2, rne" : "=f"(r[0]) : "f"(a), "f"(b));
  __asm__ volatile("fadd.s %0, %1, %2, rtz" : "=f"(r[1]) : "f"(a), "f"(b));
  __asm__ volatile("fadd.s %0, %1, %2, rdn" : "=f"(r[2]) : "f"(a), "f"(b));
  __asm__ volatile("fadd.s %0, %1, %2, rup" : "=f"(r[3]) : "f"(a), "f"(b));
  __asm__ volatile("fadd.s %0, %1, %2, rmm" : "=f"(r[4]) : "f"(a), "f"(b));
  __asm__ volatile("fadd.s %0, %1, %2, dyn" : "=f"(r[5]) : "f"(a), "f"(b));
  uint32_t f = flags();
  printf("static rm fadd:");
  for (int i = 0; i < 6; ++i) printf(" %08lx", (unsigned long)f2u(r[i]));
  printf(" fflags %02lx\n", (unsigned long)f);
  int32_t w[5];
  float x = u2f(0xc0200000u); /* -2.5 */
  __asm__ volatile("fcvt.w.s %0, %1, rne" : "=r"(w[0]) : "f"(x));
  __asm__ volatile("fcvt.w.s %0, %1, rtz" : "=r"(w[1]) : "f"(x));
  __asm__ volatile("fcvt.w.s %0, %1, rdn" : "=r"(w[2]) : "f"(x));
  __asm__ volatile("fcvt.w.s %0, %1, rup" : "=r"(w[3]) : "f"(x));
  __asm__ volatile("fcvt.w.s %0, %1, rmm" : "=r"(w[4]) : "f"(x));
  printf("static rm fcvt.w.s(-2.5): %ld %ld %ld %ld %ld\n", (long)w[0], (long)w[1], (long)w[2],
         (long)w[3], (long)w[4]);
}

/* flw / fsw keep every bit, including signalling NaN payloads. */
static void moves(void) {
  static volatile uint32_t in[2] = {0x7f800001u, 0xffa5a5a5u};
  static volatile uint32_t out[2];
  float t0, t1;
  __asm__ volatile("flw %0, 0(%2)\n\tflw %1, 4(%2)" : "=&f"(t0), "=&f"(t1) : "r"(in) : "memory");
  __asm__ volatile("fsw %0, 0(%2)\n\tfsw %1, 4(%2)" ::"f"(t0), "f"(t1), "r"(out) : "memory");
  printf("flw/fsw %08lx %08lx\n", (unsigned long)out[0], (unsigned long)out[1]);
}

int main(void) {
  sweep_binops();
  sweep_unops();
  sweep_triops();
  corner_cases();
  static_rounding();
  moves();
  set_frm(0);
  print_hash("fp_ops");
  return 0;
}
