/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T threads made by clone(CLONE_VM | CLONE_THREAD ...): each runs W
 * iterations of a 2-instruction loop and exits; the first thread then runs
 * M iterations and exits too (exit, not exit_group: the process ends with
 * its last thread). No stack is touched. */
        .globl _start
        .text
_start:
        mov     $T, %r12d
spawn:
        mov     $56, %eax              /* clone */
        mov     $0x50f00, %edi         /* VM FS FILES SIGHAND THREAD SYSVSEM */
        xor     %esi, %esi
        xor     %edx, %edx
        xor     %r10d, %r10d
        xor     %r8d, %r8d
        syscall
        test    %rax, %rax
is_child:
        jz      worker
        dec     %r12d
spawn_back:
        jnz     spawn
        mov     $M, %ecx
1:      dec     %ecx
main_back:
        jnz     1b
        mov     $60, %eax              /* exit (this thread) */
        xor     %edi, %edi
        syscall
worker:
        mov     $W, %ecx
2:      dec     %ecx
worker_back:
        jnz     2b
        mov     $60, %eax
        xor     %edi, %edi
        syscall
