/* The event lines the QEMU plugin produces: one table, read by the plugin
 * (plugin.c), which hands these (event, umask) lines to the model, and by
 * softpmu stat (cli/stat_events.c), which prints <not supported> for every
 * other event rather than a count of 0.
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
#ifndef SOFTPMU_QEMU_LINES_H
#define SOFTPMU_QEMU_LINES_H

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

#endif
