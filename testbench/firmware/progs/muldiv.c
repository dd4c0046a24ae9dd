/* RV32M: every multiply / divide instruction on edge values, including division by
 * zero (quotient all ones, remainder = dividend) and INT_MIN / -1 (overflow). */
#include "progs_common.h"

static volatile uint32_t values[] = {
    0u,          1u,          2u,          3u,          7u,          0x7fffffffu, 0x80000000u,
    0x80000001u, 0xffffffffu, 0xfffffffeu, 0xfffffff9u, 0x12345678u, 0x87654321u, 0x0000ffffu,
    0x00010000u, 0xffff0000u, 0x55555555u, 0xaaaaaaaau, 1000000007u, 0xc0000000u,
};

#define M(op)                                                                 \
  static uint32_t op_##op(uint32_t a, uint32_t b) {                           \
    uint32_t r;                                                               \
    __asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));           \
    return r;                                                                 \
  }
M(mul) M(mulh) M(mulhsu) M(mulhu) M(div) M(divu) M(rem) M(remu)

struct mop {
  const char *name;
  uint32_t (*fn)(uint32_t, uint32_t);
};
static const struct mop mops[] = {
    {"mul", op_mul}, {"mulh", op_mulh}, {"mulhsu", op_mulhsu}, {"mulhu", op_mulhu},
    {"div", op_div}, {"divu", op_divu}, {"rem", op_rem},       {"remu", op_remu},
};

int main(void) {
  unsigned n = COUNT_OF(values);
  for (unsigned k = 0; k < COUNT_OF(mops); ++k) {
    uint32_t acc = 0;
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        uint32_t r = mops[k].fn(values[i], values[j]);
        mix(r);
        acc = acc * 33u + r;
      }
    printf("%-6s all pairs %08lx\n", mops[k].name, (unsigned long)acc);
  }

  /* The architecturally defined special cases, one by one. */
  static const struct { uint32_t a, b; } special[] = {
      {7u, 0u}, {0x80000000u, 0u}, {0u, 0u}, {0xffffffffu, 0u},
      {0x80000000u, 0xffffffffu}, {0x80000001u, 0xffffffffu}, {0xfffffff9u, 2u}, {7u, 0xfffffffeu},
  };
  for (unsigned i = 0; i < COUNT_OF(special); ++i) {
    uint32_t a = special[i].a, b = special[i].b;
    printf("%08lx / %08lx: div %08lx divu %08lx rem %08lx remu %08lx\n", (unsigned long)a,
           (unsigned long)b, (unsigned long)op_div(a, b), (unsigned long)op_divu(a, b),
           (unsigned long)op_rem(a, b), (unsigned long)op_remu(a, b));
    printf("%08lx * %08lx: mul %08lx mulh %08lx mulhsu %08lx mulhu %08lx\n", (unsigned long)a,
           (unsigned long)b, (unsigned long)op_mul(a, b), (unsigned long)op_mulh(a, b),
           (unsigned long)op_mulhsu(a, b), (unsigned long)op_mulhu(a, b));
  }

  /* 64-bit arithmetic through libgcc (mul / div / shifts on register pairs). */
  static volatile int64_t w[] = {0, 1, -1, INT64_MAX, INT64_MIN, 0x123456789abcdefLL, -1000000007LL,
                                 4294967296LL, -4294967297LL};
  for (unsigned i = 0; i < COUNT_OF(w); ++i)
    for (unsigned j = 0; j < COUNT_OF(w); ++j) {
      int64_t a = w[i], b = w[j];
      uint64_t p = (uint64_t)a * (uint64_t)b;
      mix((uint32_t)p);
      mix((uint32_t)(p >> 32));
      if (b != 0 && !(a == INT64_MIN && b == -1)) {
        int64_t q = a / b, r = a % b;
        uint64_t uq = (uint64_t)a / (uint64_t)b;
        mix((uint32_t)q ^ (uint32_t)(q >> 32));
        mix((uint32_t)r ^ (uint32_t)(r >> 32));
        mix((uint32_t)uq ^ (uint32_t)(uq >> 32));
      }
    }
  printf("i64 %lld %lld %llu\n", (long long)(w[5] / w[6]), (long long)(w[4] % w[6]),
         (unsigned long long)((uint64_t)w[2] / 3u));
  print_hash("muldiv");
  return 0;
}
