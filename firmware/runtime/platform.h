/*
 * Section placement for the runtime's platform layer (internal to firmware/runtime).
 *
 * Everything that differs between the tile runtime and the Linux user-mode build used
 * for the qemu differential test (startup, console, exit, heap) lives in
 * .ipu_platform.* sections, which tile.ld links after all other code and data. Code
 * below __ipu_platform_start is then the same bytes in both builds.
 */
#ifndef IPU_RUNTIME_PLATFORM_H
#define IPU_RUNTIME_PLATFORM_H

#define IPU_PLATFORM_TEXT(name) __attribute__((section(".ipu_platform.text." #name), used))
/* Data sections are sorted by name in tile.ld; `order` fixes their layout. */
#define IPU_PLATFORM_DATA(order, name) \
  __attribute__((section(".ipu_platform.data." #order "." #name)))

#endif
