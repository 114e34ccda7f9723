/* SPDX-License-Identifier: MIT */
/* Loads and stores (MEM_INST_RETIRED.ALL_LOADS D0H/81H, ALL_STORES
 * D0H/82H, SDM Vol. 3B Table 19-3): 1000 iterations of a loop whose
 * instructions read and write memory, stack accesses included: MOV load
 * (load), MOV store (store), ADD to memory (load and store), PUSH
 * (store), POP (load), CALL (store), RET (load), LEA (neither). 4000
 * loads and 4000 stores; instructions 2 + 10 x 1000 + 3 = 10,005. */
	.globl _start
	.text
_start:
	lea	buf(%rip), %rsi
	mov	$1000, %ecx
1:	mov	(%rsi), %eax
	mov	%eax, 8(%rsi)
	add	%eax, (%rsi)
	push	%rax
	pop	%rdx
	call	f
	lea	16(%rsi), %rdi
	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
f:	ret
	.bss
buf:	.skip	64
