/* RV32I: arithmetic, logic, shifts, compares, loads / stores of every width. */
#include "progs_common.h"

static volatile uint32_t values[] = {
    0u,          1u,          2u,          0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu,
    0xfffffffeu, 0x12345678u, 0x87654321u, 0x0000ffffu, 0xffff0000u, 0x000007ffu, 0xfffff800u,
    31u,         32u,         33u,         0x55555555u, 0xaaaaaaaau, 100u,        0xffffff9cu,
};

#define R(op)                                                                 \
  static uint32_t op_##op(uint32_t a, uint32_t b) {                           \
    uint32_t r;                                                               \
    __asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));           \
    return r;                                                                 \
  }
R(add) R(sub) R(and) R(or) R(xor) R(sll) R(srl) R(sra) R(slt) R(sltu)

struct rop {
  const char *name;
  uint32_t (*fn)(uint32_t, uint32_t);
};
static const struct rop rops[] = {
    {"add", op_add}, {"sub", op_sub}, {"and", op_and}, {"or", op_or},   {"xor", op_xor},
    {"sll", op_sll}, {"srl", op_srl}, {"sra", op_sra}, {"slt", op_slt}, {"sltu", op_sltu},
};

static void immediates(uint32_t a) {
  uint32_t r[12];
  __asm__ volatile("addi %0, %1, -2048" : "=r"(r[0]) : "r"(a));
  __asm__ volatile("addi %0, %1, 2047" : "=r"(r[1]) : "r"(a));
  __asm__ volatile("slti %0, %1, -1" : "=r"(r[2]) : "r"(a));
  __asm__ volatile("sltiu %0, %1, -1" : "=r"(r[3]) : "r"(a));
  __asm__ volatile("xori %0, %1, -1" : "=r"(r[4]) : "r"(a));
  __asm__ volatile("ori %0, %1, 0x555" : "=r"(r[5]) : "r"(a));
  __asm__ volatile("andi %0, %1, -16" : "=r"(r[6]) : "r"(a));
  __asm__ volatile("slli %0, %1, 31" : "=r"(r[7]) : "r"(a));
  __asm__ volatile("srli %0, %1, 31" : "=r"(r[8]) : "r"(a));
  __asm__ volatile("srai %0, %1, 31" : "=r"(r[9]) : "r"(a));
  __asm__ volatile("srai %0, %1, 7" : "=r"(r[10]) : "r"(a));
  __asm__ volatile("sltiu %0, %1, 1" : "=r"(r[11]) : "r"(a)); /* seqz */
  printf("imm %08lx:", (unsigned long)a);
  for (unsigned i = 0; i < COUNT_OF(r); ++i) {
    printf(" %08lx", (unsigned long)r[i]);
    mix(r[i]);
  }
  printf("\n");
}

static void upper(void) {
  uint32_t lui, pc1, pc2;
  __asm__ volatile("lui %0, 0xfffff" : "=r"(lui));
  /* auipc: only the difference of two is the same on both platforms. */
  __asm__ volatile("auipc %0, 0\n\tauipc %1, 1" : "=r"(pc1), "=r"(pc2));
  printf("lui %08lx auipc delta %08lx\n", (unsigned long)lui, (unsigned long)(pc2 - pc1));
}

static volatile uint8_t bytes[16] __attribute__((aligned(4))) = {0x80, 0x7f, 0xff, 0x01, 0x34, 0x12, 0xfe, 0xca,
                                     0x00, 0x80, 0x01, 0x00, 0xef, 0xbe, 0xad, 0xde};

static void loads_stores(void) {
  for (unsigned i = 0; i < 16; ++i) {
    int32_t lb;
    uint32_t lbu;
    __asm__ volatile("lb %0, 0(%1)" : "=r"(lb) : "r"(&bytes[i]));
    __asm__ volatile("lbu %0, 0(%1)" : "=r"(lbu) : "r"(&bytes[i]));
    printf("b%u %ld %lu", i, (long)lb, (unsigned long)lbu);
    mix((uint32_t)lb + lbu);
    if (i % 2 == 0) {
      int32_t lh;
      uint32_t lhu;
      __asm__ volatile("lh %0, 0(%1)" : "=r"(lh) : "r"(&bytes[i]));
      __asm__ volatile("lhu %0, 0(%1)" : "=r"(lhu) : "r"(&bytes[i]));
      printf(" h %ld %lu", (long)lh, (unsigned long)lhu);
      mix((uint32_t)lh ^ lhu);
    }
    if (i % 4 == 0) {
      uint32_t lw;
      __asm__ volatile("lw %0, 0(%1)" : "=r"(lw) : "r"(&bytes[i]));
      printf(" w %08lx", (unsigned long)lw);
      mix(lw);
    }
    printf("\n");
  }
  static volatile uint32_t word[2];
  word[0] = 0;
  word[1] = 0;
  __asm__ volatile("sb %0, 1(%1)" ::"r"(0x1234abcdu), "r"(word) : "memory");
  __asm__ volatile("sh %0, 2(%1)" ::"r"(0x5678ef01u), "r"(word) : "memory");
  __asm__ volatile("sw %0, 4(%1)" ::"r"(0xdeadbeefu), "r"(word) : "memory");
  __asm__ volatile("sb %0, 7(%1)" ::"r"(0x42u), "r"(word) : "memory");
  printf("stores %08lx %08lx\n", (unsigned long)word[0], (unsigned long)word[1]);
  mix(word[0]);
  mix(word[1]);
}

static void branches(void) {
  /* Every branch kind, taken and not, on signed / unsigned edge pairs. */
  unsigned n = COUNT_OF(values);
  uint32_t taken = 0;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      uint32_t a = values[i], b = values[j], bits = 0, t;
#define BR(insn, bit)                                                       \
  __asm__ volatile("li %0, 0\n\t" insn " %1, %2, 1f\n\tli %0, 1\n1:"        \
                   : "=&r"(t) : "r"(a), "r"(b));                            \
  bits |= t << bit;
      BR("beq", 0) BR("bne", 1) BR("blt", 2) BR("bge", 3) BR("bltu", 4) BR("bgeu", 5)
      mix(bits);
      taken += 6 - __builtin_popcount(bits);
    }
  printf("branches taken %lu of %u\n", (unsigned long)taken, n * n * 6);
}

static void jumps(void) {
  uint32_t link, target;
  __asm__ volatile(
      "la %1, 2f\n\t"
      "jalr %0, 0(%1)\n\t"
      "nop\n"
      "2:\n\t"
      "sub %0, %1, %0\n\t"
      : "=&r"(link), "=&r"(target));
  printf("jalr link distance %lu\n", (unsigned long)link);
}

int main(void) {
  unsigned n = COUNT_OF(values);
  for (unsigned k = 0; k < COUNT_OF(rops); ++k) {
    uint32_t acc = 0;
    printf("%s:", rops[k].name);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j) {
        uint32_t r = rops[k].fn(values[i], values[j]);
        mix(r);
        acc = acc * 33u + r;
        if (i == j || j == 0) printf(" %lx", (unsigned long)r);
      }
    printf(" | %08lx\n", (unsigned long)acc);
  }
  for (unsigned i = 0; i < n; ++i) immediates(values[i]);
  upper();
  loads_stores();
  branches();
  jumps();
  print_hash("int_ops");
  return 0;
}
