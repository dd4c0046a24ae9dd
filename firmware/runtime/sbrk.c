/*
 * sbrk.c: the heap behind picolibc's malloc: [__heap_start, __ipu_heap_limit), where
 * crt0 sets the limit to the base of the worker stacks (known only at run time: it
 * depends on the tile's SRAM size). Reached through the `sbrk` entry in crt0.S.
 */
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

extern char __heap_start[];

IPU_PLATFORM_DATA(4, heap_limit) char *__ipu_heap_limit;
IPU_PLATFORM_DATA(5, heap_brk) static char *ipu_brk;

IPU_PLATFORM_TEXT(sbrk) void *__ipu_sbrk(ptrdiff_t increment) {
  char *brk = ipu_brk ? ipu_brk : __heap_start;
  if (increment > 0 ? increment > __ipu_heap_limit - brk : -increment > brk - __heap_start)
    return (void *)-1;
  ipu_brk = brk + increment;
  return brk;
}
