/* SPDX-License-Identifier: MIT */
/* Shared helpers for the micro-architecture models' cmocka tests. */
#ifndef SPMU_UARCH_TEST_H
#define SPMU_UARCH_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "uarch.h"

/* A model for spec, which must parse and build. */
static inline spmu_uarch *new_model(const char *spec)
{
  spmu_uarch_config cfg;
  char err[256];
  spmu_uarch *u;

  if (spmu_uarch_config_parse(spec, &cfg, err, sizeof err) != 0)
    fail_msg("%s: %s", spec, err);
  u = spmu_uarch_new(&cfg, err, sizeof err);
  if (!u)
    fail_msg("%s: %s", spec, err);
  return u;
}

static inline spmu_uarch_counts counts_of(const spmu_uarch *u)
{
  spmu_uarch_counts n;

  spmu_uarch_get_counts(u, &n);
  return n;
}

#endif
