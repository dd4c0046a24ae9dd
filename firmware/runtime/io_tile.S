/*
 * io_tile.S: console and exit of the tile runtime (the Xipu side of the platform layer).
 * Encodings from ipu/xipu_isa.h (generated from hw/isa/xipu.yaml).
 */
#include "ipu/xipu.h"

    .section .ipu_platform.text.putc, "ax", @progbits
    /* int __ipu_putc(char c, FILE *f): the stdio put function; one cputc per byte. */
    .globl __ipu_putc
    .type __ipu_putc, @function
__ipu_putc:
    andi    a0, a0, 0xff
    .insn r IPU_OPC_CUSTOM0, IPU_OP_CPUTC_F3, IPU_OP_CPUTC_F7, x0, a0, x0   /* cputc a0 */
    ret
    .size __ipu_putc, . - __ipu_putc

    .section .ipu_platform.text.exit, "ax", @progbits
    /* void __ipu_exit(int code): halt (after the workers end). */
    .globl __ipu_exit
    .type __ipu_exit, @function
__ipu_exit:
    .insn r IPU_OPC_CUSTOM0, IPU_OP_HALT_F3, IPU_OP_HALT_F7, x0, a0, x0   /* halt a0 */
1:  j       1b
    .size __ipu_exit, . - __ipu_exit
