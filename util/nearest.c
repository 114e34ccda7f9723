/* SPDX-License-Identifier: MIT */
/* "Did you mean": the names closest to a misspelt word (nearest.h).
 *
 * Closeness is the Levenshtein distance with case ignored. A name is a
 * candidate when it is within about a third of the word's length of it, or
 * when it contains the word (so "STATUS" finds the GLOBAL_STATUS MSRs). */
#include "nearest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Names longer than this are never suggested (none in the catalogue is). */
#define NEAREST_LEN 63

static int fold(char c)
{
  return tolower((unsigned char)c);
}

/* Edit distance of a and b, both at most NEAREST_LEN characters long; one
 * row of the dynamic-programming table at a time. */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
  unsigned row[NEAREST_LEN + 1];
  size_t i, j;

  for (j = 0; j <= lb; j++)
    row[j] = (unsigned)j;
  for (i = 1; i <= la; i++) {
    unsigned diag = row[0], up;
    row[0] = (unsigned)i;
    for (j = 1; j <= lb; j++) {
      unsigned best = diag + (fold(a[i - 1]) != fold(b[j - 1]));
      up = row[j];
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

static bool contains(const char *hay, const char *needle, size_t ln)
{
  size_t lh = strlen(hay), i, k;

  for (i = 0; i + ln <= lh; i++) {
    for (k = 0; k < ln && fold(hay[i + k]) == fold(needle[k]); k++)
      ;
    if (k == ln)
      return true;
  }
  return false;
}

void nearest_init(struct nearest *nb, const char *word)
{
  memset(nb, 0, sizeof(*nb));
  nb->word = word;
}

/* Keep name if it is among the NEAREST_MAX closest so far; on equal
 * distance the name offered first wins. */
void nearest_offer(struct nearest *nb, const char *name)
{
  size_t lw = strlen(nb->word), ln = strlen(name), at;
  unsigned d, near = lw / 3 > 2 ? (unsigned)(lw / 3) : 2;

  if (lw == 0 || lw > NEAREST_LEN || ln > NEAREST_LEN ||
      ln >= sizeof(nb->best[0].name))
    return;
  d = distance(nb->word, lw, name, ln);
  if (d == 0 || (d > near && !(lw >= 3 && contains(name, nb->word, lw))))
    return;
  for (at = nb->n; at > 0 && nb->best[at - 1].dist > d; at--)
    ;
  if (at == NEAREST_MAX)
    return;
  if (nb->n < NEAREST_MAX)
    nb->n++;
  memmove(&nb->best[at + 1], &nb->best[at],
          (nb->n - 1 - at) * sizeof(nb->best[0]));
  snprintf(nb->best[at].name, sizeof(nb->best[at].name), "%s", name);
  nb->best[at].dist = d;
}

bool nearest_text(const struct nearest *nb, char *buf, size_t len)
{
  size_t i, n, used = 0;

  buf[0] = '\0';
  if (nb->n == 0)
    return false;
  /* Only the names about as close as the closest one. */
  for (n = 1; n < nb->n && nb->best[n].dist <= 2 * nb->best[0].dist; n++)
    ;
  for (i = 0; i < n; i++) {
    int k = snprintf(buf + used, len - used, "%s%s",
                     i == 0       ? ""
                     : i + 1 == n ? " or "
                                  : ", ",
                     nb->best[i].name);
    if (k < 0 || (size_t)k >= len - used)
      break;
    used += (size_t)k;
  }
  return true;
}
