/* SPDX-License-Identifier: MIT */
/* Two 10^7-iteration dec/jnz loops with a pause between them, in which
 * the machine is saved and restored (integrations/qemu/guest
 * --save-restore): the program writes "softpmu-save-now" and sleeps 5 s
 * (nanosleep) while its counters hold the first loop's counts.
 * instructions:u = 1 + 2 x 10^7 (loop) + 5 (write) + 4 (nanosleep) + 1 +
 * 2 x 10^7 (loop) + 3 (exit) = 40,000,014; branches:u = 2 x 10^7 jnz + 3
 * SYSCALLs = 20,000,003. */
	.globl _start
	.text
_start:
	mov	$10000000, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$1, %eax		/* write(1, msg, 17) */
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$17, %edx
	syscall
	mov	$35, %eax		/* nanosleep(&ts, NULL) */
	lea	ts(%rip), %rdi
	xor	%esi, %esi
	syscall
	mov	$10000000, %ecx
2:	dec	%ecx
	jnz	2b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.data
msg:	.ascii	"softpmu-save-now\n"
	.balign	8
ts:	.quad	5, 0
