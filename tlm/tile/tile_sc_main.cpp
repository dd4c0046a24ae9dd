// Compiled into every program that links ipusim_tile (an INTERFACE source): those
// programs have their own main() and drive the kernel through Platform::run(), so
// libsystemc's main(), which calls sc_main, is never used; but the shared library still
// needs the symbol to link. Weak, so a testbench with a real sc_main overrides it.
#include <cstdio>

extern "C" __attribute__((weak)) int sc_main(int, char*[]) {
  std::fprintf(stderr, "ipusim: sc_main is not this program's entry point\n");
  return 1;
}
