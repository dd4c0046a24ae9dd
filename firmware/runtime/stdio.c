/*
 * stdio.c: picolibc tinystdio's stdin/stdout/stderr, all one unbuffered stream whose
 * put function is the platform's __ipu_putc (cputc on a tile). Unbuffered, so output
 * needs no flush and a fault loses nothing already printed; each byte goes to the
 * printing thread's own console line.
 */
#include <stdio.h>

#include "platform.h"

int __ipu_putc(char c, FILE *f);

IPU_PLATFORM_DATA(0, stdio) static FILE ipu_console =
    FDEV_SETUP_STREAM(__ipu_putc, NULL, NULL, _FDEV_SETUP_WRITE);

IPU_PLATFORM_DATA(1, stdin) FILE *const stdin = &ipu_console;
IPU_PLATFORM_DATA(2, stdout) FILE *const stdout = &ipu_console;
IPU_PLATFORM_DATA(3, stderr) FILE *const stderr = &ipu_console;
