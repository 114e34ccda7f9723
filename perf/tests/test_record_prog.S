/* SPDX-License-Identifier: MIT */
/* A freestanding program whose symbols the record/report tests sample:
 * _start calls main, main calls foo, foo calls bar; each call is followed
 * by a NOP, so every return address lies inside its caller. It is never
 * run: the tests place samples at its addresses (nm). */
        .text
        .globl  _start
        .type   _start, @function
_start:
        call    main
        nop
        mov     $60, %eax
        xor     %edi, %edi
        syscall
        .size   _start, . - _start

        .type   main, @function
main:
        call    foo
        nop
        ret
        .size   main, . - main

        .type   foo, @function
foo:
        call    bar
        nop
        ret
        .size   foo, . - foo

        .type   bar, @function
bar:
        nop
        nop
        ret
        .size   bar, . - bar
