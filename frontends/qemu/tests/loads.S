/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N iterations of NLOADS load instructions (MEM_INST_RETIRED.ALL_LOADS),
 * each reading only its own buffer, at offset i * STRIDE for iteration i
 * (STRIDE 0: the same bytes every time; STRIDE 1024: bytes no iteration
 * touched before), buffers 64-byte aligned and 1024 bytes apart beyond
 * the walk, zero-filled:
 *   REP MOVSB of L bytes (L reads of one byte, L writes elsewhere),
 *   REP LODSB of L bytes, REPE CMPSB of L bytes (2 L reads: the bytes are
 *   equal, so it runs to RCX = 0), REP MOVSB with RCX = 0 (reads nothing),
 *   an 8-byte MOV across two lines, a 32-byte VMOVDQU ymm across two
 *   lines (QEMU reads it in four pieces of 8), FXRSTOR of the 512 bytes
 *   the FXSAVE before it wrote, XRSTOR (x87 and SSE state, RFBM 3) of
 *   what the XSAVE before it wrote (SDM Vol. 1 13.7, 13.8).
 * FXSAVE and XSAVE are stores; each iteration's other instructions load
 * nothing. No stack is touched. L <= 1024. */
#define NLOADS 8
#define AREA (N * STRIDE + 1024)
        .globl _start
        .text
_start:
        xor     %r9d, %r9d              /* the offset, i * STRIDE */
        mov     $N, %r8d
        mov     $3, %eax                /* XSAVE's RFBM: x87, SSE */
        xor     %edx, %edx
loop:
        lea     b_movs(%rip), %rsi
        add     %r9, %rsi
        lea     b_dst(%rip), %rdi
        add     %r9, %rdi
        mov     $L, %ecx
ld_movs:
        rep movsb
        lea     b_lods(%rip), %rsi
        add     %r9, %rsi
        mov     $L, %ecx
ld_lods:
        rep lodsb
        lea     b_cmps1(%rip), %rsi
        add     %r9, %rsi
        lea     b_cmps2(%rip), %rdi
        add     %r9, %rdi
        mov     $L, %ecx
ld_cmps:
        repe cmpsb
        xor     %ecx, %ecx
hit_rep0:
        rep movsb                       /* RCX = 0: no iteration */
        lea     b_cross(%rip), %rsi
        add     %r9, %rsi
ld_cross:
        mov     60(%rsi), %r10          /* bytes 60 to 67: two lines */
        lea     b_ymm(%rip), %rsi
        add     %r9, %rsi
ld_ymm:
        vmovdqu 48(%rsi), %ymm0         /* bytes 48 to 79: two lines */
        lea     b_fx(%rip), %rsi
        add     %r9, %rsi
        fxsave  (%rsi)
hit_fx:
        fxrstor (%rsi)
        lea     b_xs(%rip), %rsi
        add     %r9, %rsi
ld_xsave:
        xsave   (%rsi)
hit_xs:
        xrstor  (%rsi)
        add     $STRIDE, %r9
        dec     %r8d
        jnz     loop
        mov     $60, %eax
        xor     %edi, %edi
        syscall

        .bss
        .balign 64
b_movs: .skip   AREA
b_dst:  .skip   AREA
b_lods: .skip   AREA
b_cmps1: .skip  AREA
b_cmps2: .skip  AREA
b_cross: .skip  AREA
b_ymm:  .skip   AREA
b_fx:   .skip   AREA
b_xs:   .skip   AREA
