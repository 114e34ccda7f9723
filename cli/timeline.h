/* SPDX-License-Identifier: MIT */
/* The timeline of a `softpmu run`, drawn as SVG (--svg FILE): one lane per
 * counter that was enabled, its value over the clocks delivered, overflow
 * and PMI markers, and the spans in which a logical processor's counters
 * were frozen. cmd_run.c records; timeline.c keeps and draws. Plain SVG
 * text, no dependencies.
 */
#ifndef SOFTPMU_CLI_TIMELINE_H
#define SOFTPMU_CLI_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct timeline;

/* NULL if out of memory. */
struct timeline *timeline_new(void);
void timeline_free(struct timeline *tl);

/* A counter of logical processor lp, `width` bits wide, labelled label
 * ("IA32_PMC0"). Returns its id (0, 1, ...) or -1 if out of memory. Its
 * lane is drawn only once timeline_show() has been called for it. */
int timeline_counter(struct timeline *tl, unsigned lp, const char *label,
                     unsigned width);
void timeline_show(struct timeline *tl, int id);

/* Counter id has value at clock: reached by counting since the previous
 * sample (a ramp), or set at once by a write (a step). False if out of
 * memory. */
bool timeline_ramp(struct timeline *tl, int id, uint64_t clock, uint64_t value);
bool timeline_step(struct timeline *tl, int id, uint64_t clock, uint64_t value);

bool timeline_overflow(struct timeline *tl, int id, uint64_t clock);
/* A PMI requested on lp at clock, by script line `line`. */
bool timeline_pmi(struct timeline *tl, unsigned lp, uint64_t clock,
                  unsigned line);
/* lp's counters are frozen (or no longer) from clock on. */
bool timeline_freeze(struct timeline *tl, unsigned lp, uint64_t clock,
                     bool frozen);

/* The drawing, clocks 0..end, as one SVG document. title is plain text. */
void timeline_write_svg(const struct timeline *tl, FILE *f, const char *title,
                        uint64_t end);

#endif
