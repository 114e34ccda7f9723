/* Words and numbers as a user types them on a command line or in a
 * script, for the softpmu command and the profiler library alike. */
#ifndef SOFTPMU_TEXT_H
#define SOFTPMU_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* A number: 0x-prefixed hex or decimal (a leading 0 is not octal), no
 * sign, at most 64 bits. */
bool text_parse_u64(const char *s, uint64_t *out);

/* Case-insensitive equality of two strings. */
bool text_ieq(const char *a, const char *b);

#endif
