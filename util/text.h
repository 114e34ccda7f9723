/* SPDX-License-Identifier: MIT */
/* Words and numbers as a user types them on a command line or in a
 * script, for the softpmu command and the profiler library alike. */
#ifndef SOFTPMU_TEXT_H
#define SOFTPMU_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* A number: 0x-prefixed hex or decimal (a leading 0 is not octal), no
 * sign, at most 64 bits. */
bool text_parse_u64(const char *s, uint64_t *out);

/* A register value as rdmsr (msr-tools) prints it: hex with or without
 * 0x (300000001 is 0x300000001), or decimal after 0n (0n42); no sign, at
 * most 64 bits. */
bool text_parse_msr_value(const char *s, uint64_t *out);

/* Case-insensitive equality of two strings. */
bool text_ieq(const char *a, const char *b);

#endif
