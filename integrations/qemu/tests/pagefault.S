/* SPDX-License-Identifier: MIT */
/* Page faults in the middle of a block: each iteration's block is
 * [mov (store), add, dec, jnz], and the store's first touch of each of 256
 * fresh .bss pages faults (#PF, SDM Vol. 3A 6.15: a fault is reported
 * before the instruction, which then re-executes and retires once). The
 * instructions of a block after its faulting one have not retired: counted
 * exactly, instructions:u = 2 + 4 x 256 + 3 = 1029 and branches:u = 256 jnz
 * + the SYSCALL = 257, however many faults occur. */
	.globl _start
	.text
_start:
	lea	buf(%rip), %rsi
	mov	$256, %ecx
1:	mov	%eax, (%rsi)
	add	$4096, %rsi
	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.bss
	.balign	4096
buf:	.skip	256 * 4096
