/* SPDX-License-Identifier: MIT */
/* Words and numbers as typed (text.h). */
#include "text.h"

#include <ctype.h>

/* The value of a digit in bases up to 16; 16 for anything else. */
static unsigned digit_value(char c)
{
  if (c >= '0' && c <= '9')
    return (unsigned)(c - '0');
  if (c >= 'a' && c <= 'f')
    return (unsigned)(c - 'a' + 10);
  if (c >= 'A' && c <= 'F')
    return (unsigned)(c - 'A' + 10);
  return 16;
}

/* The digits of s in base (at least one), at most 64 bits. */
static bool parse_digits(const char *s, unsigned base, uint64_t *out)
{
  uint64_t v = 0;

  if (*s == '\0')
    return false;
  for (; *s; s++) {
    unsigned d = digit_value(*s);
    if (d >= base || v > (UINT64_MAX - d) / base)
      return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

bool text_parse_u64(const char *s, uint64_t *out)
{
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return parse_digits(s + 2, 16, out);
  return parse_digits(s, 10, out);
}

/* 0n is WinDbg's decimal prefix; n is no hex digit, so a value that rdmsr
 * printed can never be mistaken for one. */
bool text_parse_msr_value(const char *s, uint64_t *out)
{
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return parse_digits(s + 2, 16, out);
  if (s[0] == '0' && (s[1] == 'n' || s[1] == 'N'))
    return parse_digits(s + 2, 10, out);
  return parse_digits(s, 16, out);
}

bool text_ieq(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return false;
  return *a == *b;
}
