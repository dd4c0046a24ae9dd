/*
 * line_text: a console line's "text" + decimal n built by hand, for the test firmware that
 * prints a lot (chatter, uneven): printf would cost most of their runs.
 */
#ifndef TESTBENCH_LINE_TEXT_H
#define TESTBENCH_LINE_TEXT_H

#include <stdint.h>

static inline char *put_text(char *p, const char *s) {
  while (*s) *p++ = *s++;
  return p;
}

static inline char *put_u32(char *p, uint32_t n) {
  char digits[10];
  int k = 0;
  do {
    digits[k++] = (char)('0' + n % 10);
    n /= 10;
  } while (n);
  while (k) *p++ = digits[--k];
  return p;
}

#endif
