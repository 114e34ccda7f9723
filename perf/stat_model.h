/* SPDX-License-Identifier: MIT */
/* softpmu stat and record: the modelled micro-architecture a run counts
 * with (uarch/uarch.h), as the command line chooses it.
 *
 *   --model SPEC   any specification spmu_uarch_config_parse takes
 *                  (part:NAME, cachegrind:I1=S,A,L:D1=S,A,L:LL=S,A,L);
 *   --no-model     none: modelled events are <not supported> and the
 *                  plugin loads no model (no cost);
 *   neither        the profile's part (spmu_profile_part_name), as
 *                  part:NAME; a profile without one has no model, and a
 *                  modelled event is then an error (stat_events.h).
 *
 * The plugin gets the specification as its argument model=SPEC
 * (protocol/args.h writes it, commas doubled). The description says which model
 * produced the counts: one line (stat_model_summary) and, for --verbose, every
 * geometry and timing parameter (stat_model_details). */
#ifndef SOFTPMU_STAT_MODEL_H
#define SOFTPMU_STAT_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include <softpmu/profile.h>

#include "stat_events.h"
#include "uarch.h" /* the modelled micro-architecture (uarch/) */

#define STAT_MODEL_SPEC_MAX 256
#define STAT_MODEL_DETAILS 8 /* lines of stat_model_details, at most */

struct stat_model {
  enum stat_model_use use;
  char spec[STAT_MODEL_SPEC_MAX]; /* STAT_MODEL_ON: as given or part:NAME */
  spmu_uarch_config cfg;          /* STAT_MODEL_ON: the parsed spec */
  char why[256]; /* STAT_MODEL_NONE: why the profile has no model */
};

/* Choose the model for profile p: given (--model SPEC, or NULL) or off
 * (--no-model). 0, or -1 with the reason in why (the parser's message for
 * a SPEC it refuses; --model with --no-model). */
int stat_model_choose(struct stat_model *m, const spmu_profile *p,
                      const char *given, bool off, char *why, size_t whylen);

/* One line: the specification and its essentials, e.g. "part:skylake (L1I
 * 32K 8-way, L1D 32K 8-way, L2 256K 4-way, LLC 8M 16-way inclusive, 64 B
 * lines; gshare 2^16, BTB 4096, RSB 16; 4 wide, +12/+42/+250 cycles to
 * L2/LLC/memory, +16 a mispredict)". */
void stat_model_summary(const struct stat_model *m, char *buf, size_t len);

/* Every parameter, one line each into lines[0..STAT_MODEL_DETAILS); the
 * number of lines (0 when no model runs). */
unsigned stat_model_details(const struct stat_model *m,
                            char lines[][STAT_MODEL_SPEC_MAX]);

#endif
