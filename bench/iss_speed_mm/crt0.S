/* iss_speed kernel, tile build: crt0 (gp, sp at the top of a 624 KiB SRAM, main, then Xipu halt with main's result). */
  .section .text.init
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  call main
  .insn r 0x0B, 0, 3, x0, a0, x0
1: j 1b
