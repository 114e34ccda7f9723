/* SPDX-License-Identifier: MIT */
/* The event lines the QEMU plugin produces: one table, read by the plugin
 * (frontends/qemu), which hands these (event, umask) lines to the model, by
 * softpmu stat (perf/stat_events.c), which prints <not supported> for every
 * other event rather than a count of 0, and by QEMU's system-mode glue
 * (integrations/qemu/src/softpmu-qemu.c).
 *
 * (event, umask) as the Skylake event tables list them (SDM Vol. 3B
 * chapter 19, Table 19-3 for the 6th-generation Core processors; the same
 * encodings through the later cores):
 *   C0H/00H INST_RETIRED.ANY_P (IA32_FIXED_CTR0 counts it too, SDM 18.2.2.1)
 *   C4H/00H BR_INST_RETIRED.ALL_BRANCHES
 *   C4H/01H BR_INST_RETIRED.CONDITIONAL
 *   C4H/02H BR_INST_RETIRED.NEAR_CALL
 *   C4H/08H BR_INST_RETIRED.NEAR_RETURN
 *   C4H/20H BR_INST_RETIRED.NEAR_TAKEN
 *   C4H/40H BR_INST_RETIRED.FAR_BRANCH
 *   D0H/81H MEM_INST_RETIRED.ALL_LOADS
 *   D0H/82H MEM_INST_RETIRED.ALL_STORES
 * The plugin produces every line on every profile; which of them mean the
 * same on an older or newer profile is stat_events.c's per-profile mask. */
#ifndef SOFTPMU_PROTOCOL_LINES_H
#define SOFTPMU_PROTOCOL_LINES_H

#include <stdint.h>

enum line {
  L_INST,
  L_BR_ALL,
  L_BR_COND,
  L_BR_CALL,
  L_BR_RET,
  L_BR_TAKEN,
  L_BR_FAR,
  L_LOADS,
  L_STORES,
  NLINES
};

/* [line] = {event, umask}. */
static const uint8_t line_code[NLINES][2] = {
    [L_INST] = {0xc0, 0x00},    [L_BR_ALL] = {0xc4, 0x00},
    [L_BR_COND] = {0xc4, 0x01}, [L_BR_CALL] = {0xc4, 0x02},
    [L_BR_RET] = {0xc4, 0x08},  [L_BR_TAKEN] = {0xc4, 0x20},
    [L_BR_FAR] = {0xc4, 0x40},  [L_LOADS] = {0xd0, 0x81},
    [L_STORES] = {0xd0, 0x82},
};

/* Modelled lines: produced only with the modelled micro-architecture
 * (uarch/, plugin argument model=SPEC), estimates of a stated model and
 * never exact, so printed as modelled. Kept apart from the exact lines
 * above so that counting without the model carries none of them.
 *   3CH/00H CPU_CLK_UNHALTED.THREAD_P, architectural UnHalted Core Cycles
 *           (SDM Vol. 3B Table 18-1; IA32_FIXED_CTR1 counts it too)
 *   3CH/01H architectural UnHalted Reference Cycles (Table 18-1;
 *           CPU_CLK_UNHALTED.REF_XCLK on Skylake)
 *   00H/03H CPU_CLK_UNHALTED.REF_TSC (IA32_FIXED_CTR2)
 *   2EH/4FH LONGEST_LAT_CACHE.REFERENCE (Table 18-1)
 *   2EH/41H LONGEST_LAT_CACHE.MISS (Table 18-1)
 *   51H/01H L1D.REPLACEMENT
 *   C5H/00H BR_MISP_RETIRED.ALL_BRANCHES (Table 18-1)
 *   C5H/01H BR_MISP_RETIRED.CONDITIONAL
 *   D1H/01H MEM_LOAD_RETIRED.L1_HIT   D1H/08H MEM_LOAD_RETIRED.L1_MISS
 *   D1H/02H MEM_LOAD_RETIRED.L2_HIT   D1H/10H MEM_LOAD_RETIRED.L2_MISS
 *   D1H/04H MEM_LOAD_RETIRED.L3_HIT   D1H/20H MEM_LOAD_RETIRED.L3_MISS
 * (Skylake's encodings, SDM Vol. 3B Chapter 19, Table 19-3.) */
enum mline {
  M_CYCLES,
  M_REF_XCLK,
  M_REF_TSC,
  M_LLC_REF,
  M_LLC_MISS,
  M_L1D_REPL,
  M_MISP_ALL,
  M_MISP_COND,
  M_LD_L1_HIT,
  M_LD_L2_HIT,
  M_LD_L3_HIT,
  M_LD_L1_MISS,
  M_LD_L2_MISS,
  M_LD_L3_MISS,
  NMLINES
};

/* [mline] = {event, umask}. */
static const uint8_t mline_code[NMLINES][2] = {
    [M_CYCLES] = {0x3c, 0x00},     [M_REF_XCLK] = {0x3c, 0x01},
    [M_REF_TSC] = {0x00, 0x03},    [M_LLC_REF] = {0x2e, 0x4f},
    [M_LLC_MISS] = {0x2e, 0x41},   [M_L1D_REPL] = {0x51, 0x01},
    [M_MISP_ALL] = {0xc5, 0x00},   [M_MISP_COND] = {0xc5, 0x01},
    [M_LD_L1_HIT] = {0xd1, 0x01},  [M_LD_L2_HIT] = {0xd1, 0x02},
    [M_LD_L3_HIT] = {0xd1, 0x04},  [M_LD_L1_MISS] = {0xd1, 0x08},
    [M_LD_L2_MISS] = {0xd1, 0x10}, [M_LD_L3_MISS] = {0xd1, 0x20},
};

#endif
