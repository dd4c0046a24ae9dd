/*
 * profile_kernel: functions whose costs follow from their code, for `ipusim run --profile`
 * (testbench/system/cli/profile_test.cpp derives every figure it checks from the counts
 * below). Written in assembly so that the compiler cannot change them: integer only (no
 * co-issued pairs), `jal` calls (one instruction each).
 *
 *   prof_loop(n)    2n + 2 instructions: li, n x (addi, bne), ret
 *   prof_rec(n)     8 instructions per level n > 0, 2 at n = 0 (beqz taken, ret); calls
 *                   itself n times: 8n + 2 in all
 *   prof_outer(k)   8 + 3k of its own (prologue 4, k x (jal, addi, bnez), epilogue 4) and
 *                   k calls of prof_helper, 2 instructions each
 *   prof_tail(n)    1 instruction, a tail call (j) of prof_loop(n)
 *
 * The supervisor runs them alone (6 tile cycles an instruction), then one worker runs
 * prof_loop(50) (1 tile cycle an instruction: its issue slot).
 */
#include "ipu/xipu.h"

#include <stdint.h>

uint32_t prof_loop(uint32_t n);
void prof_rec(uint32_t n);
void prof_outer(uint32_t k);
uint32_t prof_tail(uint32_t n);

__asm__(
    ".text\n"
    ".globl prof_loop\n.type prof_loop, @function\n.p2align 2\n"
    "prof_loop:\n"
    "  li t0, 0\n"
    "1: addi t0, t0, 1\n"
    "  bne t0, a0, 1b\n"
    "  ret\n"
    ".size prof_loop, .-prof_loop\n"

    ".globl prof_rec\n.type prof_rec, @function\n.p2align 2\n"
    "prof_rec:\n"
    "  beqz a0, 2f\n"
    "  addi sp, sp, -16\n"
    "  sw ra, 12(sp)\n"
    "  addi a0, a0, -1\n"
    "  jal ra, prof_rec\n"
    "  lw ra, 12(sp)\n"
    "  addi sp, sp, 16\n"
    "2: ret\n"
    ".size prof_rec, .-prof_rec\n"

    ".globl prof_helper\n.type prof_helper, @function\n.p2align 2\n"
    "prof_helper:\n"
    "  addi a1, a1, 1\n"
    "  ret\n"
    ".size prof_helper, .-prof_helper\n"

    ".globl prof_outer\n.type prof_outer, @function\n.p2align 2\n"
    "prof_outer:\n"
    "  addi sp, sp, -16\n"
    "  sw ra, 12(sp)\n"
    "  sw s0, 8(sp)\n"
    "  mv s0, a0\n"
    "3: jal ra, prof_helper\n"
    "  addi s0, s0, -1\n"
    "  bnez s0, 3b\n"
    "  lw ra, 12(sp)\n"
    "  lw s0, 8(sp)\n"
    "  addi sp, sp, 16\n"
    "  ret\n"
    ".size prof_outer, .-prof_outer\n"

    ".globl prof_tail\n.type prof_tail, @function\n.p2align 2\n"
    "prof_tail:\n"
    "  j prof_loop\n"
    ".size prof_tail, .-prof_tail\n");

static int worker(void *arg) {
  prof_loop((uint32_t)(uintptr_t)arg);
  return 0;
}

int main(void) {
  prof_loop(100);
  prof_rec(5);
  prof_outer(7);
  prof_tail(20);
  ipu_run(worker, (void *)50);
  ipu_join();
  return 0;
}
