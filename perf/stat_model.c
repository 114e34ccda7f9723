/* SPDX-License-Identifier: MIT */
/* softpmu stat and record: the modelled micro-architecture a run counts
 * with (stat_model.h). */
#include "stat_model.h"

#include <stdio.h>
#include <string.h>

int stat_model_choose(struct stat_model *m, const spmu_profile *p,
                      const char *given, bool off, char *why, size_t whylen)
{
  const char *part = spmu_profile_part_name(p);
  char err[200];

  memset(m, 0, sizeof *m);
  if (given && off) {
    snprintf(why, whylen, "--model and --no-model: one or the other");
    return -1;
  }
  if (off) {
    m->use = STAT_MODEL_OFF;
    return 0;
  }
  if (given) {
    if (strlen(given) >= sizeof m->spec) {
      snprintf(why, whylen, "--model %.40s...: too long", given);
      return -1;
    }
    if (spmu_uarch_config_parse(given, &m->cfg, err, sizeof err) != 0) {
      snprintf(why, whylen, "--model %s: %s", given, err);
      return -1;
    }
    snprintf(m->spec, sizeof m->spec, "%s", given);
    m->use = STAT_MODEL_ON;
    return 0;
  }
  m->use = STAT_MODEL_NONE;
  if (!part) {
    snprintf(m->why, sizeof m->why, "%s states no part (no cache geometry)",
             p->name);
    return 0;
  }
  snprintf(m->spec, sizeof m->spec, "part:%s", part);
  if (spmu_uarch_config_parse(m->spec, &m->cfg, err, sizeof err) != 0) {
    snprintf(m->why, sizeof m->why, "the model %.40s: %s", m->spec, err);
    m->spec[0] = '\0';
    return 0;
  }
  m->use = STAT_MODEL_ON;
  return 0;
}

/* size as perf and the optimization manual write it: 32K, 8M, 1920K. */
static void size_text(uint32_t size, char *buf, size_t len)
{
  if (size % (1u << 20) == 0)
    snprintf(buf, len, "%uM", size >> 20);
  else if (size % (1u << 10) == 0)
    snprintf(buf, len, "%uK", size >> 10);
  else
    snprintf(buf, len, "%uB", size);
}

/* "L1D 32K 8-way" */
static int geom_text(char *buf, size_t len, const char *level,
                     const spmu_uarch_geom *g)
{
  char sz[16];

  size_text(g->size, sz, sizeof sz);
  return snprintf(buf, len, "%s %s %u-way", level, sz, g->ways);
}

/* The cache levels, the first-level names as the configuration names
 * them (cachegrind's I1, D1, LL). */
static void caches_text(const spmu_uarch_config *c, char *buf, size_t len)
{
  bool cg = c->mode == SPMU_UARCH_CACHEGRIND;
  size_t n = 0;

  n += (size_t)geom_text(buf + n, len - n, cg ? "I1" : "L1I", &c->l1i);
  n += (size_t)snprintf(buf + n, len > n ? len - n : 0, ", ");
  if (n < len)
    n += (size_t)geom_text(buf + n, len - n, cg ? "D1" : "L1D", &c->l1d);
  if (c->l2.size && n < len) {
    n += (size_t)snprintf(buf + n, len - n, ", ");
    if (n < len)
      n += (size_t)geom_text(buf + n, len - n, "L2", &c->l2);
  }
  if (n < len)
    n += (size_t)snprintf(buf + n, len - n, ", ");
  if (n < len)
    n += (size_t)geom_text(buf + n, len - n, cg ? "LL" : "LLC", &c->llc);
  if (n < len)
    snprintf(buf + n, len - n, "%s, %u B lines",
             c->llc_inclusive ? " inclusive" : "", c->l1d.line);
}

/* The predictor, as uarch/README.md states it. */
static void bpred_text(const spmu_uarch_config *c, char *buf, size_t len)
{
  if (c->mode == SPMU_UARCH_CACHEGRIND)
    snprintf(buf, len, "cachegrind's predictor");
  else
    snprintf(buf, len, "gshare 2^%u, BTB %u, RSB %u", c->bpred.hist_bits,
             c->bpred.btb, c->bpred.rsb);
}

static void timing_text(const spmu_uarch_config *c, char *buf, size_t len)
{
  const spmu_uarch_timing *t = &c->timing;

  if (c->l2.size)
    snprintf(buf, len,
             "%u wide, +%u/+%u/+%u cycles to L2/LLC/memory, +%u a mispredict",
             t->issue_width, t->lat_l2, t->lat_llc, t->lat_mem,
             t->misp_penalty);
  else
    snprintf(buf, len, "%u wide, +%u/+%u cycles to LL/memory, +%u a mispredict",
             t->issue_width, t->lat_llc, t->lat_mem, t->misp_penalty);
}

void stat_model_summary(const struct stat_model *m, char *buf, size_t len)
{
  char caches[160], bpred[64], timing[96];

  if (m->use != STAT_MODEL_ON) {
    snprintf(buf, len, "none");
    return;
  }
  caches_text(&m->cfg, caches, sizeof caches);
  bpred_text(&m->cfg, bpred, sizeof bpred);
  timing_text(&m->cfg, timing, sizeof timing);
  snprintf(buf, len, "%s (%s; %s; %s)", m->spec, caches, bpred, timing);
}

/* "L1D  32768 B, 8 ways, 64 B lines, 64 sets, true LRU" (a part's LLC:
 * its replacement, uarch/llc.c) */
static void geom_detail(char *buf, size_t len, const char *level,
                        const spmu_uarch_geom *g, bool inclusive, bool adaptive)
{
  snprintf(buf, len, "%-4s %u B, %u ways, %u B lines, %u sets, %s%s", level,
           g->size, g->ways, g->line, g->size / g->line / g->ways,
           adaptive ? "adaptive insertion (LRU or BIP by set dueling)"
                    : "true LRU",
           inclusive ? ", inclusive of the levels above, keeping the lines "
                       "they hold"
                     : "");
}

unsigned stat_model_details(const struct stat_model *m,
                            char lines[][STAT_MODEL_SPEC_MAX])
{
  const spmu_uarch_config *c = &m->cfg;
  const spmu_uarch_timing *t = &c->timing;
  bool cg = c->mode == SPMU_UARCH_CACHEGRIND;
  unsigned n = 0;

  if (m->use != STAT_MODEL_ON)
    return 0;
  geom_detail(lines[n++], STAT_MODEL_SPEC_MAX, cg ? "I1" : "L1I", &c->l1i,
              false, false);
  geom_detail(lines[n++], STAT_MODEL_SPEC_MAX, cg ? "D1" : "L1D", &c->l1d,
              false, false);
  if (c->l2.size)
    geom_detail(lines[n++], STAT_MODEL_SPEC_MAX, "L2", &c->l2, false, false);
  geom_detail(lines[n++], STAT_MODEL_SPEC_MAX, cg ? "LL" : "LLC", &c->llc,
              c->llc_inclusive != 0, !cg && c->llc_adaptive);
  if (cg)
    snprintf(lines[n++], STAT_MODEL_SPEC_MAX,
             "branches: cachegrind's 2^14 two-bit counters indexed by 7 "
             "bits of history and of the address, 512 last indirect "
             "targets; returns not predicted");
  else
    snprintf(lines[n++], STAT_MODEL_SPEC_MAX,
             "branches: gshare of 2^%u two-bit counters over %u bits of "
             "history, a %u-entry BTB for indirect branches, a %u-entry "
             "return-stack buffer",
             c->bpred.hist_bits, c->bpred.hist_bits, c->bpred.btb,
             c->bpred.rsb);
  if (c->l2.size)
    snprintf(lines[n++], STAT_MODEL_SPEC_MAX,
             "timing (not cycle-accurate): %u instructions a cycle; extra "
             "cycles %u for an L2 hit, %u for an LLC hit, %u for memory, %u "
             "a mispredict, %u LLC or memory data misses within %u "
             "instructions overlapping; reference cycles = core cycles x %u "
             "/ %u",
             t->issue_width, t->lat_l2, t->lat_llc, t->lat_mem, t->misp_penalty,
             t->fill_buffers, t->rob, t->ref_num, t->ref_den);
  else
    snprintf(lines[n++], STAT_MODEL_SPEC_MAX,
             "timing (not cycle-accurate): %u instructions a cycle; extra "
             "cycles %u for an LL hit, %u for memory, %u a mispredict; "
             "reference cycles = core cycles x %u / %u",
             t->issue_width, t->lat_llc, t->lat_mem, t->misp_penalty,
             t->ref_num, t->ref_den);
  snprintf(lines[n++], STAT_MODEL_SPEC_MAX,
           "cost: the model is fed every fetch, data access and branch; "
           "--no-model counts the exact events alone, several times "
           "faster");
  return n;
}
