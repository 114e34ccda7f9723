/* SPDX-License-Identifier: MIT */
/* Known branches, for the LBRs and BTS (SDM Vol. 3B 17.4.8): N
 * iterations of a loop that takes, in this order, a near relative CALL,
 * a near indirect JMP, a near RET, a near indirect CALL, a near RET, a
 * near relative JMP and a conditional branch (addresses as linked by gcc
 * -nostdlib -static, text at 0x401000):
 *   1 401018 -> 40102f  call f          5 40103a -> 40101f  ret (g)
 *   2 401036 -> 401039  jmp *%rax       6 40101f -> 401022  jmp 2f
 *   3 401039 -> 40101d  ret (f)         7 401024 -> 401018  jnz 1b
 *   4 40101d -> 40103a  call *%rbx
 * With no argument N = 100000 and the JE 40100a -> 401011 is taken
 * first; with one, N = 100 and it is not. Retired instructions: 4 + 9 N
 * + 3 = 900,007, or 5 + 9 N + 3 = 908; taken branches in the loop: 7 N
 * - 1 (the last JNZ falls through). */
	.globl _start
	.text
_start:
	mov	$100000, %ecx
	cmpq	$1, (%rsp)	/* argc */
	je	0f
	mov	$100, %ecx
0:	lea	g(%rip), %rbx
1:	call	f
	call	*%rbx
	jmp	2f
	nop
2:	dec	%ecx
	jnz	1b
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
f:	lea	3f(%rip), %rax
	jmp	*%rax
	nop
3:	ret
g:	ret
