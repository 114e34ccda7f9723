/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The holes among QEMU's own mappings closed (layout.c): QEMU 8.1 on lets
 * the host kernel place a guest's mmap without an address, first fit from
 * the bottom in the layout softpmu runs QEMU in, so a hole QEMU's start
 * left (the host dynamic linker's unmapped cache) took the guest's
 * dynamic linker's first pages, and its next page then came right after
 * them (1 instruction more than under 7.2, which places each mapping
 * after the last). README.md, "The guest's layout". */
#ifndef SOFTPMU_QEMU_LAYOUT_H
#define SOFTPMU_QEMU_LAYOUT_H

/* Reserve (PROT_NONE, no memory) each hole between two of this process's
 * mappings from the host dynamic linker up to QEMU's program, in the
 * bottom-up layout only; the number of holes closed, -1 if none could be
 * looked at. Before QEMU maps anything of the guest. */
int spmu_qemu_layout_close_holes(void);

#endif
