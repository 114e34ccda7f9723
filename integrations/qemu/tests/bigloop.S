/* tests/loop.S ten times longer, long enough to save and restore the
 * machine while it runs: 10^8 dec/jnz iterations, instructions:u =
 * 1 + 2 x 10^8 + 3 = 200,000,004, branches:u = 10^8 + 1 (the SYSCALL). */
	.globl _start
	.text
_start:
	mov	$100000000, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
