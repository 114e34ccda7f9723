/* SPDX-License-Identifier: MIT */
/* A freestanding program with analytic counts: 10^7 iterations of
 * dec/jnz. Retired user-mode instructions: 1 (mov) + 2 x 10^7 (dec, jnz)
 * + 3 (mov, xor, syscall) = 20,000,004; branches: 10^7 jnz + the SYSCALL
 * (a far branch, BR_INST_RETIRED.ALL_BRANCHES) = 10,000,001. */
	.globl _start
	.text
_start:
	mov	$10000000, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
