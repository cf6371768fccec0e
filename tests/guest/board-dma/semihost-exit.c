// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * semihost-exit - end a QEMU guest whose machine cannot power off.
 *
 * QEMU's microchip-icicle-kit has no power-off or reset device: OpenSBI
 * offers no shutdown, `poweroff -f` halts the harts and QEMU runs on until
 * the harness's timeout.  The icicle target runs QEMU with
 * `-semihosting-config enable=on,userspace=on`, and its /init ends with
 * this program (udmemqemu/boards.py, board-poweroff.sh): the RISC-V
 * semihosting call SYS_EXIT, "application exit, status 0", makes QEMU exit
 * with status 0.
 *
 * QEMU takes an EBREAK as a semihosting call only between the two marker
 * instructions below, all three uncompressed and on one page.  Without
 * semihosting the EBREAK is a breakpoint (SIGTRAP); on another
 * architecture there is nothing to call.  Both end with a non-zero status.
 */
#include <stdio.h>

#define SEMIHOST_SYS_EXIT		0x18
#define ADP_STOPPED_APPLICATION_EXIT	0x20026UL

#if defined(__riscv) && __riscv_xlen == 64
static long semihost_call(long op, void *arg)
{
	register long a0 asm("a0") = op;
	register void *a1 asm("a1") = arg;

	asm volatile(".option push\n\t"
		     ".option norvc\n\t"
		     ".balign 16\n\t"
		     "slli zero, zero, 0x1f\n\t"
		     "ebreak\n\t"
		     "srai zero, zero, 7\n\t"
		     ".option pop"
		     : "+r" (a0) : "r" (a1) : "memory");
	return a0;
}

/* The 64-bit SYS_EXIT takes a block: the reason, then the exit status. */
static void semihost_exit(int status)
{
	unsigned long block[2] = { ADP_STOPPED_APPLICATION_EXIT, (unsigned long)status };

	semihost_call(SEMIHOST_SYS_EXIT, block);
}
#else
static void semihost_exit(int status)
{
	(void)status;
}
#endif

int main(void)
{
	fflush(NULL);
	semihost_exit(0);
	fprintf(stderr, "semihost-exit: QEMU is still running (no riscv64 semihosting)\n");
	return 1;
}
