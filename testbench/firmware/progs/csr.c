/* Zicsr on the floating-point CSRs: fcsr / frm / fflags through every CSR instruction
 * form (csrrw, csrrs, csrrc and their immediate forms), the field masking between the
 * three views, and the counters (read and checked to move forward, never printed:
 * cycle and instret legitimately differ between ipusim and qemu). */
#include "progs_common.h"

#define CSR_OP(name, insn, csr)                                                   \
  static uint32_t name(uint32_t v) {                                              \
    uint32_t old;                                                                 \
    __asm__ volatile(insn " %0, " #csr ", %1" : "=r"(old) : "r"(v) : "memory");   \
    return old;                                                                   \
  }
CSR_OP(fcsr_rw, "csrrw", fcsr) CSR_OP(fcsr_rs, "csrrs", fcsr) CSR_OP(fcsr_rc, "csrrc", fcsr)
CSR_OP(frm_rw, "csrrw", frm) CSR_OP(frm_rs, "csrrs", frm) CSR_OP(frm_rc, "csrrc", frm)
CSR_OP(fflags_rw, "csrrw", fflags) CSR_OP(fflags_rs, "csrrs", fflags)
CSR_OP(fflags_rc, "csrrc", fflags)

static uint32_t read_fcsr(void) {
  uint32_t v;
  __asm__ volatile("csrr %0, fcsr" : "=r"(v));
  return v;
}

static void show(const char *what, uint32_t old) {
  uint32_t fcsr = read_fcsr(), frm, fflags;
  __asm__ volatile("csrr %0, frm" : "=r"(frm));
  __asm__ volatile("csrr %0, fflags" : "=r"(fflags));
  printf("%-28s old %08lx fcsr %08lx frm %lx fflags %02lx\n", what, (unsigned long)old,
         (unsigned long)fcsr, (unsigned long)frm, (unsigned long)fflags);
  mix(old);
  mix(fcsr);
}

static volatile uint32_t patterns[] = {0xffffffffu, 0x000000ffu, 0x000000e0u, 0x0000001fu,
                                       0x00000015u, 0x12345678u, 0x00000100u, 0x00000000u};

int main(void) {
  for (unsigned i = 0; i < COUNT_OF(patterns); ++i) {
    uint32_t p = patterns[i];
    char label[40];
    snprintf(label, sizeof label, "fcsr rw %08lx", (unsigned long)p);
    show(label, fcsr_rw(p));
    snprintf(label, sizeof label, "frm rw %08lx", (unsigned long)(p & 0x3));
    show(label, frm_rw(p & 0x3)); /* only legal rounding modes: rne..rdn */
    snprintf(label, sizeof label, "fflags rw %08lx", (unsigned long)p);
    show(label, fflags_rw(p));
    snprintf(label, sizeof label, "fcsr rs %08lx", (unsigned long)(p & 0x1f));
    show(label, fcsr_rs(p & 0x1f));
    snprintf(label, sizeof label, "fcsr rc %08lx", (unsigned long)p);
    show(label, fcsr_rc(p));
    snprintf(label, sizeof label, "frm rs 4 / rc 3");
    show(label, frm_rs(4));
    show(label, frm_rc(3));
    snprintf(label, sizeof label, "fflags rs / rc %08lx", (unsigned long)p);
    show(label, fflags_rs(p));
    show(label, fflags_rc(p & 0x0a));
  }

  uint32_t old;
  __asm__ volatile("csrrwi %0, fcsr, 0x1f" : "=r"(old));
  show("csrrwi fcsr 0x1f", old);
  __asm__ volatile("csrrsi %0, frm, 2" : "=r"(old));
  show("csrrsi frm 2", old);
  __asm__ volatile("csrrci %0, fflags, 0x11" : "=r"(old));
  show("csrrci fflags 0x11", old);
  __asm__ volatile("csrrwi %0, frm, 1" : "=r"(old));
  show("csrrwi frm 1", old);
  __asm__ volatile("csrrsi x0, fflags, 4");
  show("csrrsi x0 fflags 4", 0);
  __asm__ volatile("csrrci x0, fcsr, 31");
  show("csrrci x0 fcsr 31", 0);
  __asm__ volatile("fsrmi %0, 3" : "=r"(old));
  show("fsrmi 3", old);
  __asm__ volatile("fsflagsi %0, 9" : "=r"(old));
  show("fsflagsi 9", old);

  /* An fp operation sets flags through fcsr too; the rounding mode from frm applies. */
  __asm__ volatile("fscsr x0");
  float r, a = u2f(0x3f800000u), b = u2f(0x40400000u);
  __asm__ volatile("fsrmi 1\n\tfdiv.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));
  show("1/3 with frm=rtz", f2u(r));
  __asm__ volatile("fscsr x0");

  /* Counters: read, check they advance, print only the verdict. */
  uint32_t c0, c1, i0, i1, t0, t1;
  __asm__ volatile("rdcycle %0" : "=r"(c0));
  __asm__ volatile("rdinstret %0" : "=r"(i0));
  __asm__ volatile("rdtime %0" : "=r"(t0));
  volatile uint32_t spin = 0;
  for (int k = 0; k < 100; ++k) spin += (uint32_t)k;
  __asm__ volatile("rdcycle %0" : "=r"(c1));
  __asm__ volatile("rdinstret %0" : "=r"(i1));
  __asm__ volatile("rdtime %0" : "=r"(t1));
  printf("counters advance: cycle %d instret %d, time never goes back %d (spin %lu)\n",
         c1 != c0, i1 != i0, t1 - t0 < 0x80000000u, (unsigned long)spin);
  print_hash("csr");
  return 0;
}
