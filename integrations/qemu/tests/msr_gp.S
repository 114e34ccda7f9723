/* SPDX-License-Identifier: MIT */
/* WRMSR of a reserved bit is a #GP (SDM Vol. 2B WRMSR; Vol. 3B 18.2.1.1,
 * Figure 18-6: IA32_PERFEVTSELx bits 63:34 are reserved with TSX), which
 * the kernel's msr driver (/dev/cpu/0/msr, the MSR number is the file
 * offset) turns into EIO; the emulator goes on. IA32_PERFEVTSEL1 (187H,
 * every profile of the architectural PMU has it, SDM 18.2.1): writing 0
 * succeeds (8 bytes written), writing 1 << 40 fails with EIO.
 * (An MSR the modelled processor does not have is guest_checks.sh's.)
 * Exit status: 0 all as said, 1 the valid write failed, 2 the reserved
 * one did not fail with EIO, 3 the device did not open. */
	.globl _start
	.text
_start:
	mov	$2, %eax		/* open("/dev/cpu/0/msr", O_RDWR) */
	lea	path(%rip), %rdi
	mov	$2, %esi
	xor	%edx, %edx
	syscall
	mov	$3, %edi
	test	%rax, %rax
	js	exit
	mov	%rax, %r12
	movq	$0, val(%rip)		/* pwrite64(fd, &val, 8, 0x187) */
	mov	$18, %r13d
	mov	$0x187, %r14d
	call	io
	mov	$1, %edi
	cmp	$8, %rax
	jne	exit
	movabs	$0x10000000000, %rax	/* bit 40 */
	mov	%rax, val(%rip)
	call	io
	mov	$2, %edi
	cmp	$-5, %rax		/* -EIO */
	jne	exit
	xor	%edi, %edi
exit:	mov	$60, %eax
	syscall
io:	mov	%r13d, %eax		/* r13: the syscall, r14: the MSR */
	mov	%r12, %rdi
	lea	val(%rip), %rsi
	mov	$8, %edx
	mov	%r14, %r10
	syscall
	ret
	.data
path:	.asciz	"/dev/cpu/0/msr"
	.balign	8
val:	.quad	0
