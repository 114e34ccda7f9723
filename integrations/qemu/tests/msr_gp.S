/* SPDX-License-Identifier: MIT */
/* WRMSR of a reserved bit is a #GP (SDM Vol. 2B WRMSR; Vol. 3B 18.2.1.1,
 * Figure 18-6: IA32_PERFEVTSELx bits 63:34 are reserved with TSX), which
 * the kernel's msr driver (/dev/cpu/0/msr, the MSR number is the file
 * offset) turns into EIO; the emulator goes on. IA32_PERFEVTSEL3 (189H):
 * writing 0 succeeds (8 bytes written), writing 1 << 40 fails with EIO.
 * An MSR the modelled processor does not have is a #GP too (SDM Vol. 2B
 * RDMSR, WRMSR), where QEMU's TCG reads 0: on a Skylake (SDM Vol. 4, its
 * MSR table) the LBR stack is at 680H, and 40H (Core 2's
 * MSR_LASTBRANCH_0_FROM_IP, SDM Vol. 3B 17.5) is absent: reading and
 * writing 40H fail with EIO, reading 680H gives 8 bytes. A processor with
 * architectural LBRs (CPUID.(EAX=07H,ECX=0):EDX[19], Sapphire Rapids) has
 * neither model-specific stack: its entry 0 is IA32_LBR_0_FROM_IP (1500H,
 * SDM Vol. 3B "Architectural Last Branch Records"), read instead of 680H,
 * and reading 680H fails with EIO.
 * Exit status: 0 all as said, 1 the valid write failed, 2 the reserved
 * one did not fail with EIO, 3 the device did not open, 4 reading 40H did
 * not fail with EIO, 5 writing 40H did not, 6 reading the LBR entry 0
 * (680H or 1500H) failed, 7 reading 680H with architectural LBRs did not
 * fail with EIO. */
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
	movq	$0, val(%rip)		/* pwrite64(fd, &val, 8, 0x189) */
	mov	$18, %r13d
	mov	$0x189, %r14d
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
	mov	$17, %r13d		/* pread64(fd, &val, 8, 0x40) */
	mov	$0x40, %r14d
	call	io
	mov	$4, %edi
	cmp	$-5, %rax
	jne	exit
	movq	$0, val(%rip)		/* pwrite64(fd, &val, 8, 0x40) */
	mov	$18, %r13d
	call	io
	mov	$5, %edi
	cmp	$-5, %rax
	jne	exit
	mov	$7, %eax		/* CPUID.(EAX=07H,ECX=0):EDX[19] */
	xor	%ecx, %ecx
	cpuid
	mov	$0x680, %r14d		/* the model-specific LBR entry 0 */
	mov	$0x1500, %eax		/* IA32_LBR_0_FROM_IP */
	bt	$19, %edx
	cmovc	%eax, %r14d
	mov	$17, %r13d		/* pread64(fd, &val, 8, r14) */
	call	io
	mov	$6, %edi
	cmp	$8, %rax
	jne	exit
	xor	%edi, %edi
	cmp	$0x680, %r14d		/* architectural LBRs: 680H absent */
	je	exit
	mov	$0x680, %r14d
	call	io
	mov	$7, %edi
	cmp	$-5, %rax
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
