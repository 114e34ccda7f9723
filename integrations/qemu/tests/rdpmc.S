/* SPDX-License-Identifier: MIT */
/* RDPMC at CPL 3 of fixed counter 0 (ECX = 1 << 30, SDM Vol. 2B RDPMC),
 * twice, around 1000 dec/jnz iterations, while perf counts
 * instructions:u on that counter. Exit status: ((second - first) - 2006)
 * & 0xff, so 0 when the difference is exactly the engine's count. The
 * engine counts a block's instructions when the block starts (README.md,
 * "Counting"): the first read sees its whole block (mov, rdpmc, mov, mov,
 * dec, jnz: 6), the second sees 999 loop blocks (dec, jnz: 1998) and its
 * own block whole (8): 2006 between the two. */
	.globl _start
	.text
_start:
	mov	$0x40000000, %ecx
	rdpmc
	mov	%eax, %r8d
	mov	$1000, %ebx
1:	dec	%ebx
	jnz	1b
	mov	$0x40000000, %ecx
	rdpmc
	sub	%r8d, %eax
	sub	$2006, %eax
	mov	%eax, %edi
	and	$0xff, %edi
	mov	$60, %eax
	syscall
