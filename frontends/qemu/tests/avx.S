/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of one 32-byte AVX load and one 32-byte AVX store (VMOVDQU
 * ymm; with -DZMM, 64-byte AVX-512 ones, VMOVDQU64 zmm) of the same
 * bytes, the load first (with -DSTORE_FIRST, the store), at buf + OFF +
 * i * STRIDE for iteration i, in a zero-filled buffer aligned to a 64-byte
 * line. Each access lies within one line (OFF + width <= 64) or across
 * two (OFF + width > 64). STRIDE 0: every iteration touches the same
 * bytes. STRIDE 64: each iteration's bytes start in the line after the
 * previous one's start, a line not touched before (and, across lines,
 * end in the next). STRIDE 128: every line an iteration touches is new.
 * Loads N, stores N; no other data access (no stack is touched). */
#ifdef ZMM
#define VLOAD(m, r) vmovdqu64 m, %zmm##r
#define VSTORE(r, m) vmovdqu64 %zmm##r, m
#else
#define VLOAD(m, r) vmovdqu m, %ymm##r
#define VSTORE(r, m) vmovdqu %ymm##r, m
#endif
        .globl _start
        .text
_start:
        lea     buf+OFF(%rip), %rsi
        mov     $N, %ecx
loop:
#ifdef STORE_FIRST
        VSTORE(0, (%rsi))
        VLOAD((%rsi), 0)
#else
        VLOAD((%rsi), 0)
        VSTORE(0, (%rsi))
#endif
        add     $STRIDE, %rsi
        dec     %ecx
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
        .balign 64
buf:    .skip   N * STRIDE + 2 * 64
