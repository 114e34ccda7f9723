/* SPDX-License-Identifier: MIT */
/* The timeline of a run and its SVG drawing (timeline.h).
 *
 * The x axis is the clock number, linear from 0 to the last clock
 * delivered; writes take no clock, so they show as vertical steps. Each
 * lane has its own y scale. Values are drawn signed within the counter's
 * width (2^width taken from the upper half), so a counter preset to -N for
 * sampling climbs to 0 at its overflow instead of sitting near 2^48.
 */
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

struct sample {
  uint64_t clock, value;
};

struct lane {
  unsigned lp, width;
  char label[48];
  bool shown;
  struct sample *s;
  size_t n, cap;
};

struct mark {
  unsigned who; /* overflow: counter id; pmi, freeze: lp */
  uint64_t clock;
  unsigned line;
  bool on; /* freeze: starts (true) or ends */
};

struct marks {
  struct mark *m;
  size_t n, cap;
};

struct timeline {
  struct lane *lane;
  size_t nlane, cap;
  struct marks ovf, pmi, frz;
};

/* Grow *p (of *cap elements of size) to hold n + 1. */
static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
  size_t want;
  void *q;

  if (n < *cap)
    return true;
  want = *cap ? 2 * *cap : 16;
  q = realloc(*p, want * size);
  if (!q)
    return false;
  *p = q;
  *cap = want;
  return true;
}

struct timeline *timeline_new(void)
{
  return calloc(1, sizeof(struct timeline));
}

void timeline_free(struct timeline *tl)
{
  size_t i;

  if (!tl)
    return;
  for (i = 0; i < tl->nlane; i++)
    free(tl->lane[i].s);
  free(tl->lane);
  free(tl->ovf.m);
  free(tl->pmi.m);
  free(tl->frz.m);
  free(tl);
}

int timeline_counter(struct timeline *tl, unsigned lp, const char *label,
                     unsigned width)
{
  struct lane *l;

  if (!grow((void **)&tl->lane, &tl->cap, tl->nlane, sizeof(*tl->lane)))
    return -1;
  l = &tl->lane[tl->nlane];
  memset(l, 0, sizeof(*l));
  l->lp = lp;
  l->width = width;
  snprintf(l->label, sizeof l->label, "%s", label);
  return (int)tl->nlane++;
}

void timeline_show(struct timeline *tl, int id)
{
  tl->lane[id].shown = true;
}

static bool add_sample(struct lane *l, uint64_t clock, uint64_t value)
{
  if (!grow((void **)&l->s, &l->cap, l->n, sizeof(*l->s)))
    return false;
  l->s[l->n++] = (struct sample){clock, value};
  return true;
}

bool timeline_ramp(struct timeline *tl, int id, uint64_t clock, uint64_t value)
{
  struct lane *l = &tl->lane[id];

  /* A flat run needs only its two ends: move the last one. */
  if (l->n >= 2 && l->s[l->n - 1].value == value &&
      l->s[l->n - 2].value == value) {
    l->s[l->n - 1].clock = clock;
    return true;
  }
  return add_sample(l, clock, value);
}

bool timeline_step(struct timeline *tl, int id, uint64_t clock, uint64_t value)
{
  struct lane *l = &tl->lane[id];

  if (l->n && l->s[l->n - 1].value == value)
    return true;
  /* Hold the old value up to this clock, then jump. */
  if (l->n && l->s[l->n - 1].clock < clock &&
      !timeline_ramp(tl, id, clock, l->s[l->n - 1].value))
    return false;
  return add_sample(l, clock, value);
}

static bool add_mark(struct marks *m, struct mark k)
{
  if (!grow((void **)&m->m, &m->cap, m->n, sizeof(*m->m)))
    return false;
  m->m[m->n++] = k;
  return true;
}

bool timeline_overflow(struct timeline *tl, int id, uint64_t clock)
{
  return add_mark(&tl->ovf, (struct mark){.who = (unsigned)id, .clock = clock});
}

bool timeline_pmi(struct timeline *tl, unsigned lp, uint64_t clock,
                  unsigned line)
{
  return add_mark(&tl->pmi,
                  (struct mark){.who = lp, .clock = clock, .line = line});
}

bool timeline_freeze(struct timeline *tl, unsigned lp, uint64_t clock,
                     bool frozen)
{
  return add_mark(&tl->frz,
                  (struct mark){.who = lp, .clock = clock, .on = frozen});
}

/* ---- drawing ----------------------------------------------------------- */

enum {
  WIDTH = 1000,
  LEFT = 200, /* labels */
  RIGHT = 30,
  TOP = 56, /* title and PMI labels */
  LANE = 64,
  GAP = 10,
  BOTTOM = 64, /* axis and legend */
};

static const char *const colours[] = {
    "#1f77b4", "#2ca02c", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
};

struct frame {
  double span; /* clocks across the plot */
  const struct timeline *tl;
  int row[64 * 8]; /* lane id -> row, -1 if not drawn */
  unsigned rows;
};

static double x_of(const struct frame *fr, uint64_t clock)
{
  return LEFT + (double)clock / fr->span * (WIDTH - LEFT - RIGHT);
}

static double row_top(unsigned row)
{
  return TOP + row * (double)(LANE + GAP);
}

/* value as a signed number of `width` bits. */
static double signed_value(uint64_t v, unsigned width)
{
  if (width >= 64)
    return (double)(int64_t)v;
  if (v >> (width - 1) & 1)
    return (double)v - (double)(UINT64_C(1) << width);
  return (double)v;
}

static void put_escaped(FILE *f, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", f);
      break;
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    default:
      fputc(*s, f);
    }
  }
}

static void range_of(const struct lane *l, double *lo, double *hi)
{
  size_t i;

  *lo = *hi = 0;
  for (i = 0; i < l->n; i++) {
    double v = signed_value(l->s[i].value, l->width);
    if (i == 0 || v < *lo)
      *lo = v;
    if (i == 0 || v > *hi)
      *hi = v;
  }
  if (*hi == *lo) {
    *lo -= 1;
    *hi += 1;
  }
}

static void draw_lane(FILE *f, const struct frame *fr, int id)
{
  const struct lane *l = &fr->tl->lane[id];
  double top = row_top((unsigned)fr->row[id]), lo, hi;
  const char *colour = colours[(unsigned)id % 8];
  size_t i;

  range_of(l, &lo, &hi);
  fprintf(f,
          "<rect class=\"lane\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
          "height=\"%d\" fill=\"#f6f6f6\"/>\n",
          LEFT, top, WIDTH - LEFT - RIGHT, LANE);
  fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">", 8, top + 20);
  put_escaped(f, l->label);
  fprintf(f,
          "</text>\n<text x=\"%d\" y=\"%.1f\" fill=\"#555\">%.0f .. "
          "%.0f</text>\n",
          8, top + 36, lo, hi);
  if (l->n == 0)
    return;
  fprintf(f,
          "<polyline class=\"counter\" fill=\"none\" stroke=\"%s\" "
          "stroke-width=\"1.5\" points=\"",
          colour);
  for (i = 0; i < l->n; i++) {
    double v = signed_value(l->s[i].value, l->width);
    double y = top + 6 + (hi - v) / (hi - lo) * (LANE - 12);
    fprintf(f, "%s%.1f,%.1f", i ? " " : "", x_of(fr, l->s[i].clock), y);
  }
  fputs("\"/>\n", f);
}

static void draw_overflows(FILE *f, const struct frame *fr)
{
  size_t i;

  for (i = 0; i < fr->tl->ovf.n; i++) {
    const struct mark *m = &fr->tl->ovf.m[i];
    if (fr->row[m->who] < 0)
      continue;
    fprintf(f,
            "<circle class=\"overflow\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
            "fill=\"#ff7f0e\"><title>",
            x_of(fr, m->clock), row_top((unsigned)fr->row[m->who]) + 6);
    put_escaped(f, fr->tl->lane[m->who].label);
    fprintf(f, " overflowed at clock %llu</title></circle>\n",
            (unsigned long long)m->clock);
  }
}

static void draw_pmis(FILE *f, const struct frame *fr, double bottom)
{
  size_t i, n = fr->tl->pmi.n;

  for (i = 0; i < n; i++) {
    const struct mark *m = &fr->tl->pmi.m[i];
    double x = x_of(fr, m->clock);
    fprintf(f,
            "<g class=\"pmi\"><title>PMI on lp %u at clock %llu (line "
            "%u)</title><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>",
            m->who, (unsigned long long)m->clock, m->line, x, TOP - 12, x,
            bottom);
    /* Labels only while they can be read. */
    if (n <= 40)
      fprintf(f,
              "<text x=\"%.1f\" y=\"%d\" fill=\"#d62728\" "
              "text-anchor=\"middle\">PMI</text>",
              x, TOP - 16);
    fputs("</g>\n", f);
  }
}

/* The rows of logical processor lp: [*first, *last]; false if none. */
static bool rows_of(const struct frame *fr, unsigned lp, unsigned *first,
                    unsigned *last)
{
  size_t i;
  bool any = false;

  for (i = 0; i < fr->tl->nlane; i++) {
    unsigned r;
    if (fr->row[i] < 0 || fr->tl->lane[i].lp != lp)
      continue;
    r = (unsigned)fr->row[i];
    if (!any || r < *first)
      *first = r;
    if (!any || r > *last)
      *last = r;
    any = true;
  }
  return any;
}

static void draw_span(FILE *f, const struct frame *fr, unsigned lp,
                      uint64_t from, uint64_t to, double bottom)
{
  unsigned first = 0, last = 0;
  double x1 = x_of(fr, from), x2 = x_of(fr, to), y1 = TOP, y2 = bottom;

  if (rows_of(fr, lp, &first, &last)) {
    y1 = row_top(first);
    y2 = row_top(last) + LANE;
  }
  if (x2 - x1 < 2)
    x2 = x1 + 2;
  fprintf(f,
          "<rect class=\"freeze\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
          "height=\"%.1f\" fill=\"#4a90d9\" fill-opacity=\"0.22\"><title>lp "
          "%u frozen from clock %llu to %llu</title></rect>\n",
          x1, y1, x2 - x1, y2 - y1, lp, (unsigned long long)from,
          (unsigned long long)to);
}

static void draw_freezes(FILE *f, const struct frame *fr, uint64_t end,
                         double bottom)
{
  uint64_t since[64];
  bool on[64] = {false};
  size_t i;

  for (i = 0; i < fr->tl->frz.n; i++) {
    const struct mark *m = &fr->tl->frz.m[i];
    unsigned lp = m->who % 64;
    if (m->on && !on[lp]) {
      on[lp] = true;
      since[lp] = m->clock;
    } else if (!m->on && on[lp]) {
      on[lp] = false;
      draw_span(f, fr, lp, since[lp], m->clock, bottom);
    }
  }
  for (i = 0; i < 64; i++)
    if (on[i])
      draw_span(f, fr, (unsigned)i, since[i], end, bottom);
}

static void draw_axis(FILE *f, const struct frame *fr, uint64_t end, double y)
{
  unsigned t;

  fprintf(f,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
          "stroke=\"#333\"/>\n",
          LEFT, y, WIDTH - RIGHT, y);
  for (t = 0; t <= 4; t++) {
    /* The last tick is the last clock, exactly; the end labels stay
     * inside the plot. */
    uint64_t clock = t == 4 ? end : (uint64_t)((double)end * t / 4);
    double x = x_of(fr, clock);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#333\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"%s\">%llu</text>\n",
            x, y, x, y + 5, x, y + 18,
            t == 0   ? "start"
            : t == 4 ? "end"
                     : "middle",
            (unsigned long long)clock);
  }
  fprintf(f, "<text x=\"%d\" y=\"%.1f\">clock</text>\n", 8, y + 18);
  fprintf(f,
          "<text x=\"%d\" y=\"%.1f\" fill=\"#555\">Values are signed "
          "within the counter width; dots: overflows; dashed lines: PMIs; "
          "blue: frozen.</text>\n",
          8, y + 40);
}

void timeline_write_svg(const struct timeline *tl, FILE *f, const char *title,
                        uint64_t end)
{
  struct frame fr;
  double bottom;
  unsigned height;
  size_t i;

  memset(&fr, 0, sizeof fr);
  fr.tl = tl;
  fr.span = end ? (double)end : 1.0;
  for (i = 0; i < tl->nlane && i < sizeof fr.row / sizeof fr.row[0]; i++)
    fr.row[i] = tl->lane[i].shown ? (int)fr.rows++ : -1;
  bottom = row_top(fr.rows ? fr.rows : 1) - GAP;
  height = (unsigned)bottom + BOTTOM;
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%u\" viewBox=\"0 0 %d %u\" font-family=\"sans-serif\" "
          "font-size=\"12\">\n",
          WIDTH, height, WIDTH, height);
  fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"8\" "
        "y=\"20\" font-size=\"14\" font-weight=\"bold\">",
        f);
  put_escaped(f, title);
  fputs("</text>\n", f);
  if (!fr.rows)
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" fill=\"#555\">no counter was "
            "enabled</text>\n",
            LEFT, TOP + 20);
  for (i = 0; i < tl->nlane; i++)
    if (fr.row[i] >= 0)
      draw_lane(f, &fr, (int)i);
  draw_freezes(f, &fr, end, bottom);
  draw_overflows(f, &fr);
  draw_pmis(f, &fr, bottom);
  draw_axis(f, &fr, end, bottom + 8);
  fputs("</svg>\n", f);
}
