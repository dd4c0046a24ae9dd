/* Floating point from C: <fenv.h> rounding modes (fesetround, which writes frm) and
 * exception flags (fetestexcept, which reads fflags) around ordinary float expressions,
 * libm rounding functions, and software double arithmetic (libgcc's soft-fp reads frm
 * and raises fflags too). */
#include <fenv.h>
#include <float.h>
#include <math.h>

#include "progs_common.h"

static const struct {
  int mode;
  const char *name;
} modes[] = {{FE_TONEAREST, "nearest"},
             {FE_TOWARDZERO, "toward zero"},
             {FE_DOWNWARD, "downward"},
             {FE_UPWARD, "upward"},
             {FE_TONEAREST_MM, "nearest, ties away"}};

static volatile float fin[] = {1.0f, 3.0f, -7.0f, 0.1f, 1e-30f, 3e38f, 2.5f, -2.5f, 0.5f, 1e10f};
static volatile double din[] = {1.0, 3.0, -7.0, 0.1, 1e-300, 1e300, 2.5, -2.5};

static void print_flags(const char *what) {
  int e = fetestexcept(FE_ALL_EXCEPT);
  printf("    %-24s %s%s%s%s%s\n", what, e & FE_INVALID ? " invalid" : "",
         e & FE_DIVBYZERO ? " divbyzero" : "", e & FE_OVERFLOW ? " overflow" : "",
         e & FE_UNDERFLOW ? " underflow" : "", e & FE_INEXACT ? " inexact" : "");
  mix((uint32_t)e);
}

int main(void) {
  for (unsigned m = 0; m < COUNT_OF(modes); ++m) {
    if (fesetround(modes[m].mode) != 0) printf("fesetround(%s) failed\n", modes[m].name);
    printf("rounding %s (fegetround %d)\n", modes[m].name, fegetround());

    feclearexcept(FE_ALL_EXCEPT);
    float third = fin[0] / fin[1];
    float sevenths = fin[0] / fin[2];
    printf("  1/3 = %08lx  1/-7 = %08lx\n", (unsigned long)f2u(third), (unsigned long)f2u(sevenths));
    print_flags("after 1/3, 1/-7");

    feclearexcept(FE_ALL_EXCEPT);
    float big = fin[5] * fin[5];
    print_flags("3e38 * 3e38");
    feclearexcept(FE_ALL_EXCEPT);
    float tiny = fin[4] * fin[4];
    print_flags("1e-30 * 1e-30");
    feclearexcept(FE_ALL_EXCEPT);
    float inf = fin[0] / (fin[0] - fin[0]);
    print_flags("1 / 0");
    feclearexcept(FE_ALL_EXCEPT);
    float nan = sqrtf(fin[2]);
    print_flags("sqrtf(-7)");
    printf("  big %08lx tiny %08lx inf %08lx nan-is-nan %d\n", (unsigned long)f2u(big),
           (unsigned long)f2u(tiny), (unsigned long)f2u(inf), isnan(nan) ? 1 : 0);

    feclearexcept(FE_ALL_EXCEPT);
    printf("  rintf:");
    for (unsigned i = 0; i < COUNT_OF(fin); ++i) printf(" %g", (double)rintf(fin[i]));
    printf("\n  lrintf:");
    for (unsigned i = 0; i < COUNT_OF(fin) - 1; ++i) printf(" %ld", lrintf(fin[i] * 1.5f));
    printf("\n  (int) cast:");
    for (unsigned i = 0; i < COUNT_OF(fin) - 1; ++i) printf(" %d", (int)(fin[i] * 1.5f));
    printf("\n");
    print_flags("after rounding functions");

    /* Doubles are software (ilp32f has no D): libgcc soft-fp honours frm. */
    feclearexcept(FE_ALL_EXCEPT);
    double d3 = din[0] / din[1];
    double d7 = din[0] / din[2];
    double dsum = din[3] + din[0];
    double dbig = din[5] * din[5];
    double dtiny = din[4] * din[4];
    float narrowed = (float)din[3];
    uint64_t b3, b7, bs;
    memcpy(&b3, &d3, 8);
    memcpy(&b7, &d7, 8);
    memcpy(&bs, &dsum, 8);
    printf("  double bits 1/3 %016llx 1/-7 %016llx 0.1+1 %016llx (float)0.1 %08lx\n",
           (unsigned long long)b3, (unsigned long long)b7, (unsigned long long)bs,
           (unsigned long)f2u(narrowed));
    printf("  double big %g tiny %g\n", dbig, dtiny);
    print_flags("after double ops");
    mix((uint32_t)b3);
    mix((uint32_t)(b7 >> 32));
  }
  fesetround(FE_TONEAREST);
  feclearexcept(FE_ALL_EXCEPT);

  /* fegetexceptflag / fesetexceptflag / feraiseexcept round trip. */
  fexcept_t saved;
  feraiseexcept(FE_OVERFLOW | FE_INEXACT);
  fegetexceptflag(&saved, FE_ALL_EXCEPT);
  feclearexcept(FE_ALL_EXCEPT);
  print_flags("cleared");
  fesetexceptflag(&saved, FE_OVERFLOW);
  print_flags("restored overflow only");
  feclearexcept(FE_ALL_EXCEPT);

  /* Float math in the default mode, printed in decimal. */
  float acc = 0.0f;
  for (int i = 1; i <= 100; ++i) acc += 1.0f / (float)(i * i);
  printf("sum 1/i^2 (100 terms) = %.7f (%08lx)\n", (double)acc, (unsigned long)f2u(acc));
  printf("sqrtf(2) = %.9g, expf(1) = %.9g, logf(10) = %.9g, sinf(1) = %.9g, powf(2, 0.5) = %.9g\n",
         (double)sqrtf(2.0f), (double)expf(fin[0]), (double)logf(10.0f * fin[0]),
         (double)sinf(fin[0]), (double)powf(2.0f, fin[8]));
  print_hash("fp_fenv");
  return 0;
}
