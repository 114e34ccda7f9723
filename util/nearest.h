/* SPDX-License-Identifier: MIT */
/* "Did you mean": the few names closest to a misspelt word, for the
 * messages of the softpmu command and of the profiler library.
 *
 * Offer every name the word might have meant, then take the text of the
 * closest ones; nothing is printed here. */
#ifndef SOFTPMU_NEAREST_H
#define SOFTPMU_NEAREST_H

#include <stdbool.h>
#include <stddef.h>

#define NEAREST_MAX 3 /* names kept */

struct nearest {
  const char *word;
  size_t n;
  struct {
    char name[48];
    unsigned dist;
  } best[NEAREST_MAX];
};

void nearest_init(struct nearest *nb, const char *word);
/* Keep name if it is among the NEAREST_MAX closest so far. */
void nearest_offer(struct nearest *nb, const char *name);
/* "A, B or C" into buf (truncated to fit len); false, and "", if none is
 * near. */
bool nearest_text(const struct nearest *nb, char *buf, size_t len);

#endif
