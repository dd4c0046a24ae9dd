/*
 * io_linux.S: console and exit of the Linux user-mode twin (qemu-riscv32), through the
 * write and exit_group system calls. Used only by the differential test builds.
 */
#define SYS_write 64
#define SYS_exit_group 94

    .section .ipu_platform.text.putc, "ax", @progbits
    /* int __ipu_putc(char c, FILE *f): write(1, &c, 1). */
    .globl __ipu_putc
    .type __ipu_putc, @function
__ipu_putc:
    addi    sp, sp, -16
    sb      a0, 0(sp)
    li      a0, 1
    mv      a1, sp
    li      a2, 1
    li      a7, SYS_write
    ecall
    lbu     a0, 0(sp)
    addi    sp, sp, 16
    ret
    .size __ipu_putc, . - __ipu_putc

    .section .ipu_platform.text.exit, "ax", @progbits
    /* void __ipu_exit(int code): exit_group(code). */
    .globl __ipu_exit
    .type __ipu_exit, @function
__ipu_exit:
    li      a7, SYS_exit_group
    ecall
1:  j       1b
    .size __ipu_exit, . - __ipu_exit
