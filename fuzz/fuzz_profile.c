/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the custom-profile parser (include/softpmu/profile.h).
 *
 * The input, cut at its first NUL and at MAX_SPEC bytes, is a profile
 * string. Properties:
 *   parse-result      spmu_profile_parse returns SPMU_OK, SPMU_ENOENT,
 *                     SPMU_EINVAL or SPMU_EPROFILE, with a non-empty,
 *                     terminated reason on failure; a short reason buffer
 *                     gives the same result (and is not overrun: ASan).
 *   validate-agrees   a parsed profile passes spmu_profile_validate.
 *   format-size       spmu_profile_format reports its length, refuses a
 *                     buffer one byte short with SPMU_ENOSPC and still
 *                     terminates it.
 *   format-roundtrip  parse(format(p)) succeeds and gives a profile equal
 *                     to p, field by field (name included).
 *   format-stable     format(parse(format(p))) == format(p).
 *   core-new          a core can be created for p and its state passes
 *                     every invariant (invariants.h).
 * A violation prints "fuzz_profile: <property>: <detail>" and aborts. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_SPEC 1024
#define FORMAT_MAX 1024

/* After a violation's message: the input. */
static void print_spec(const void *spec)
{
  fprintf(stderr, "  input: \"%s\"\n", (const char *)spec);
}

/* The field that differs, or NULL when a and b are the same profile. */
static const char *profile_diff(const spmu_profile *a, const spmu_profile *b)
{
  if (strncmp(a->name, b->name, sizeof a->name) != 0)
    return "name";
  if (a->version != b->version)
    return "version";
  if (a->gp != b->gp)
    return "gp";
  if (a->gp_width != b->gp_width)
    return "gp_width";
  if (a->events_len != b->events_len)
    return "events_len";
  if (a->events_unavailable != b->events_unavailable)
    return "events_unavailable";
  if (a->fixed_mask != b->fixed_mask)
    return "fixed_mask";
  if (a->fixed_width != b->fixed_width)
    return "fixed_width";
  if (a->threads != b->threads)
    return "threads";
  if (a->features != b->features)
    return "features";
  if (a->perf_capabilities != b->perf_capabilities)
    return "perf_capabilities";
  return NULL;
}

static bool terminated(const char *s, size_t len)
{
  return memchr(s, '\0', len) != NULL;
}

static void check_failure(const char *spec, int rc, const char *why,
                          size_t whylen)
{
  char *small;
  spmu_profile q;
  int rs;

  if (rc != SPMU_ENOENT && rc != SPMU_EINVAL && rc != SPMU_EPROFILE)
    fz_die("parse-result: %s", spmu_errname(rc));
  if (!terminated(why, whylen) || why[0] == '\0')
    fz_die("parse-result: %s with no reason", spmu_errname(rc));
  /* A reason buffer of 7 bytes, on the heap so ASan sees an overrun. */
  small = malloc(7);
  if (!small)
    abort();
  rs = spmu_profile_parse(spec, &q, small, 7);
  if (rs != rc || !terminated(small, 7))
    fz_die("parse-result: %s with a 7-byte reason buffer, %s with 256",
           spmu_errname(rs), spmu_errname(rc));
  free(small);
}

/* spmu_profile_format into an exact-size heap buffer; returns it. */
static char *format_exact(const spmu_profile *p)
{
  char big[FORMAT_MAX], *buf;
  int n = spmu_profile_format(p, big, sizeof big);

  if (n <= 0 || (size_t)n >= sizeof big || strlen(big) != (size_t)n)
    fz_die("format-size: spmu_profile_format gave %d", n);
  buf = malloc((size_t)n + 1);
  if (!buf)
    abort();
  /* One byte short: SPMU_ENOSPC, and the output is still terminated. */
  memset(buf, 'x', (size_t)n + 1);
  if (spmu_profile_format(p, buf, (size_t)n) != SPMU_ENOSPC ||
      !terminated(buf, (size_t)n))
    fz_die("format-size: a %d-byte buffer for %d characters", n, n);
  if (spmu_profile_format(p, NULL, 0) != SPMU_ENOSPC)
    fz_die("format-size: no buffer must give SPMU_ENOSPC");
  if (spmu_profile_format(p, buf, (size_t)n + 1) != n || strcmp(buf, big) != 0)
    fz_die("format-size: the exact-size buffer gives another string");
  return buf;
}

static void check_success(const spmu_profile *p)
{
  char why[256] = "", *text, *again;
  spmu_profile q;
  const char *diff;
  spmu_core *core = NULL;
  int rc;

  rc = spmu_profile_validate(p, why, sizeof why);
  if (rc != SPMU_OK)
    fz_die("validate-agrees: parsed, but validate says %s: %s",
           spmu_errname(rc), why);

  text = format_exact(p);
  rc = spmu_profile_parse(text, &q, why, sizeof why);
  if (rc != SPMU_OK)
    fz_die("format-roundtrip: \"%s\" does not parse: %s: %s", text,
           spmu_errname(rc), why);
  diff = profile_diff(p, &q);
  if (diff)
    fz_die("format-roundtrip: \"%s\" parses to another %s", text, diff);
  again = format_exact(&q);
  if (strcmp(text, again) != 0)
    fz_die("format-stable: \"%s\" then \"%s\"", text, again);
  free(again);
  free(text);

  rc = spmu_core_new(p, &core);
  if (rc != SPMU_OK)
    fz_die("core-new: %s", spmu_errname(rc));
  if (spmu_core_threads(core) != p->threads)
    fz_die("core-new: %u logical processors for threads=%u",
           spmu_core_threads(core), p->threads);
  if (spmu_check_invariants(core, why, sizeof why) != 0)
    fz_die("core-new: %s", why);
  spmu_core_free(core);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t n = size < MAX_SPEC ? size : MAX_SPEC;
  char *spec = malloc(n + 1);
  char why[256];
  spmu_profile p;
  int rc;

  if (!spec)
    abort();
  fz_at = (fz_where){
      .harness = "fuzz_profile", .tail = print_spec, .tail_arg = spec};
  memcpy(spec, data, n);
  spec[n] = '\0';
  memset(why, 0, sizeof why);
  rc = spmu_profile_parse(spec, &p, why, sizeof why);
  if (rc == SPMU_OK)
    check_success(&p);
  else
    check_failure(spec, rc, why, sizeof why);
  free(spec);
  return 0;
}
