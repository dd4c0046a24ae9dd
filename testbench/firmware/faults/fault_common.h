/*
 * Fault test programs: each one stops on exactly one fault, at the instruction labelled
 * `fault_site` (a global symbol the test looks up in the ELF, together with the
 * instruction word there). Each prints a line first, so the test also sees that output
 * printed before a fault is not lost.
 */
#ifndef FAULT_COMMON_H
#define FAULT_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

/* Marks the next instruction of an asm block as the fault site. */
#define FAULT_SITE ".globl fault_site\n\t.type fault_site, @function\nfault_site:\n\t"

#define FAULT_FN __attribute__((noinline, noclone))

#endif
