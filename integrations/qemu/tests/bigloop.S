/* SPDX-License-Identifier: MIT */
/* The CPU-bound program of the speed comparison (bench/qemu_system.sh):
 * 3 x 10^8 dec/jnz iterations, instructions:u = 1 + 6 x 10^8 + 3 =
 * 600,000,004, branches:u = 3 x 10^8 + 1 (the SYSCALL). */
	.globl _start
	.text
_start:
	mov	$300000000, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
