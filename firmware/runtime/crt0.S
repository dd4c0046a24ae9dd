/*
 * crt0.S: startup of a tile program (the supervisor thread at the ELF entry point).
 *
 * Memory it lays out, from the top of SRAM down (docs/firmware.md):
 *   [top - __ipu_stack_size, top)      supervisor stack (sp starts at top)
 *   [wstackbase, top - stack size)     nworkers worker stacks of __ipu_worker_stack_size
 *   [__heap_start, wstackbase)         heap (sbrk)
 * then sets the worker CSRs, runs constructors and main, and exits with
 * main's return value (exit -> _exit -> halt).
 *
 * Built twice: for the tile, and with IPU_PLATFORM_LINUX for the Linux user-mode twin
 * that qemu-riscv32 runs (no Xipu; the SRAM top is the link-time __ipu_sram_top).
 * All of it is platform code: it lives in .ipu_platform.* sections.
 */
#include "ipu/xipu.h"

#define ABS(reg, sym) lui reg, %hi(sym); addi reg, reg, %lo(sym)

    .section .ipu_platform.text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    ABS(tp, __tls_base)               /* errno and other TLS: one block, shared by threads */

#ifdef IPU_PLATFORM_LINUX
    ABS(t0, __ipu_sram_top)
    li      t3, IPU_MAX_WORKERS       /* nworkers of a full tile: the tile's stack layout */
#else
    csrr    t0, IPU_CSR_SRAMBASE
    csrr    t1, IPU_CSR_SRAMSIZE
    add     t0, t0, t1                /* top of this tile's SRAM */
    csrr    t3, IPU_CSR_NWORKERS
#endif
    mv      sp, t0
    ABS(t1, __ipu_stack_size)
    sub     t2, t0, t1                /* top of the worker stack area */
    ABS(t4, __ipu_worker_stack_size)
    mul     t5, t3, t4
    sub     t2, t2, t5                /* wstackbase */
#ifndef IPU_PLATFORM_LINUX
    csrw    IPU_CSR_WSTACKBASE, t2
    csrw    IPU_CSR_WSTACKSIZE, t4
    la      t5, __ipu_worker_exit
    csrw    IPU_CSR_WEXITPC, t5
#endif
    la      t5, __ipu_heap_limit
    sw      t2, 0(t5)
    la      t6, __heap_start
    bltu    t2, t6, .Ldoes_not_fit

    /* No .bss clearing here: every loader zeroes it (the ISS's reset, the driver's DMA
     * of each segment's zeros, Linux for the qemu twin), and a host program may write a
     * .bss symbol (a kernel's parameters) between loading and running. */
    call    __libc_init_array
    li      a0, 0                     /* argc */
    li      a1, 0                     /* argv */
    call    main
    call    exit

.Ldoes_not_fit:                       /* image + stacks exceed this tile's SRAM */
    la      s0, .Lfit_msg
    la      s1, .Lfit_msg_end
3:  bgeu    s0, s1, 4f
    lbu     a0, 0(s0)
    call    __ipu_putc
    addi    s0, s0, 1
    j       3b
4:  li      a0, 127
    j       __ipu_exit
.Lfit_msg:
    .ascii  "ipu runtime: program image, heap and stacks do not fit this tile's SRAM\n"
.Lfit_msg_end:
    .size   _start, . - _start

#ifndef IPU_PLATFORM_LINUX
    /* A worker returning from its entry function lands here (its ra = wexitpc). */
    .section .ipu_platform.text.worker_exit, "ax", @progbits
    .p2align 2
    .globl __ipu_worker_exit
    .type __ipu_worker_exit, @function
__ipu_worker_exit:
    .insn r IPU_OPC_CUSTOM0, IPU_OP_WEXIT_F3, IPU_OP_WEXIT_F7, x0, a0, x0   /* wexit a0 */
    .size __ipu_worker_exit, . - __ipu_worker_exit
#endif

    /*
     * Entry points that common (libc) code calls. They sit at the start of the platform
     * range, one section each, sorted by name, so their addresses are the same in every
     * build of a program whatever the platform code behind them.
     */
    .section .ipu_platform.vector.0_exit, "ax", @progbits
    .globl _exit
    .type _exit, @function
_exit:
    j       __ipu_exit
    .size _exit, . - _exit

    .section .ipu_platform.vector.1sbrk, "ax", @progbits
    .globl sbrk
    .type sbrk, @function
sbrk:
    j       __ipu_sbrk
    .size sbrk, . - sbrk
