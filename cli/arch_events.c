/* SPDX-License-Identifier: MIT */
/* The architectural performance events (SDM Vol. 3B 18.2.1.2, Table 18-1):
 * bit i of CPUID.0AH:EBX says whether event i is available. One table for
 * `softpmu cpuid` (the SDM names) and `softpmu run` (the short names). */
#include "cli.h"

const struct cli_arch_event cli_arch_events[] = {
    {"UnHalted Core Cycles", "cycles", 0x3C, 0x00, 1},
    {"Instruction Retired", "instructions", 0xC0, 0x00, 0},
    {"UnHalted Reference Cycles", "ref-cycles", 0x3C, 0x01, 2},
    {"LLC Reference", "llc-references", 0x2E, 0x4F, -1},
    {"LLC Misses", "llc-misses", 0x2E, 0x41, -1},
    {"Branch Instruction Retired", "branches", 0xC4, 0x00, -1},
    {"Branch Misses Retired", "branch-misses", 0xC5, 0x00, -1},
    /* Event 7 is past the SDM of 2016 (Vol. 2A Table 3-8, CPUID leaf 0AH
     * EBX[6:0] lists events 0-6); Linux defines it. */
    {"Topdown Slots", "topdown-slots", 0xA4, 0x01, 3},
};

const size_t cli_narch_events =
    sizeof(cli_arch_events) / sizeof(cli_arch_events[0]);
