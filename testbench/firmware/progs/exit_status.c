/* Process end: atexit handlers run in reverse order after main, output printed with no
 * final newline is still delivered, and exit() carries its status out (42). */
#include <stdlib.h>

#include "progs_common.h"

static void first(void) { printf("atexit: registered first, runs last\n"); }
static void second(void) { printf("atexit: registered second, runs first\n"); }

static volatile int status = 42;

int main(void) {
  atexit(first);
  atexit(second);
  printf("main returns through exit(%d)\n", status);
  printf("a partial line without newline");
  exit(status);
}
