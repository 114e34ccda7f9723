/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A loop, then kill(getpid(), SIGTERM): the program dies by a signal. */
        .globl _start
        .text
_start: mov $1000, %ecx
1:      dec %ecx
        jnz 1b
        mov $39, %eax      # getpid
        syscall
        mov %eax, %edi
        mov $15, %esi      # SIGTERM
        mov $62, %eax      # kill
        syscall
        hlt                  /* not reached */
