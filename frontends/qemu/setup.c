/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's configuration from its arguments (setup.h). */
#include "setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <softpmu/regs.h>

#include "args.h"
#include "fail.h"
#include "lbr.h"
#include "lines.h"
#include "model.h"
#include "pebs.h"

/* IA32_PERFEVTSELx fields: softpmu/regs.h (SDM Vol. 3B 18.2.1.1, Figure
 * 18-1); CMASK is bits 31:24. */
#define EVTSEL_CMASK (UINT64_C(0xff) << SPMU_EVTSEL_CMASK_SHIFT)

/* CMASK, INV and edge detect compare a clock's increment (SDM Vol. 3B
 * 18.2.1.1); a clock here is a whole block, so they would apply per block,
 * which is not what hardware counts per cycle: refused for now. */
static bool check_event(uint64_t sel)
{
  if (sel & (EVTSEL_CMASK | SPMU_EVTSEL_INV | SPMU_EVTSEL_E)) {
    spmu_qemu_fail("event=%" PRIx64 ": CMASK, INV and edge detect are not "
                   "supported yet (a clock of this engine is a whole "
                   "translation block)",
                   sel);
    return false;
  }
  if (!(sel & (SPMU_EVTSEL_USR | SPMU_EVTSEL_OS))) {
    spmu_qemu_fail("event=%" PRIx64 ": neither USR (bit 16) nor OS (bit 17) "
                   "is set",
                   sel);
    return false;
  }
  return true;
}

/* What the arguments name: the profile, the model, the events. */
static bool take_args(struct spmu_qemu_config *cfg,
                      const struct spmu_plugin_args *a)
{
  char why[512];
  unsigned i;

  if (spmu_profile_parse(a->profile, &cfg->profile, why, sizeof(why)) != 0) {
    spmu_qemu_fail("profile=%s: %s", a->profile, why);
    return false;
  }
  if (a->model[0]) {
    if (!spmu_qemu_model_setup(a->model, &cfg->uarch, why, sizeof(why))) {
      spmu_qemu_fail("%s", why);
      return false;
    }
    snprintf(cfg->model_spec, sizeof(cfg->model_spec), "%s", a->model);
    cfg->model = true;
  }
  for (i = 0; i < a->nevents; i++)
    if (!check_event(a->event[i]))
      return false;
  memcpy(cfg->evtsel, a->event, sizeof(cfg->evtsel));
  cfg->nevents = a->nevents;
  snprintf(cfg->out, sizeof(cfg->out), "%s", a->out);
  snprintf(cfg->record, sizeof(cfg->record), "%s", a->record);
  snprintf(cfg->comm, sizeof(cfg->comm), "%s", a->comm);
  cfg->period = a->period;
  cfg->callgraph = a->callgraph;
  cfg->precise = a->precise;
  cfg->mux = a->multiplex;
  cfg->grouped = a->grouped;
  cfg->ival = a->interval;
  cfg->read = a->read;
  cfg->branch = a->branch;
  return true;
}

/* The line of lines.h that event sel counts: its (event, umask), or the
 * fixed counter's event (INST_RETIRED.ANY on fixed counter 0). */
static int line_of(uint64_t sel)
{
  unsigned l;

  for (l = 0; l < NLINES; l++)
    if (line_code[l][0] == (uint8_t)sel &&
        line_code[l][1] == (uint8_t)(sel >> 8))
      return (int)l;
  return -1;
}

/* The modelled line of lines.h that event sel counts (enum mline), or -1;
 * fixed counters 1 and 2 count M_CYCLES and M_REF_TSC (events.h). */
static int mline_of(uint64_t sel)
{
  unsigned l;

  for (l = 0; l < NMLINES; l++)
    if (mline_code[l][0] == (uint8_t)sel &&
        mline_code[l][1] == (uint8_t)(sel >> 8))
      return (int)l;
  return -1;
}

/* Each event's line; events on modelled lines need model=SPEC; which of
 * them sample. */
static bool find_lines(struct spmu_qemu_config *cfg)
{
  unsigned i;

  for (i = 0; i < cfg->nevents; i++)
    cfg->line_of[i] = line_of(cfg->evtsel[i]);
  for (i = 0; i < cfg->nevents; i++) {
    uint64_t sel = cfg->evtsel[i];

    cfg->mline_of[i] = mline_of(sel);
    if (cfg->mline_of[i] < 0)
      continue;
    if (!cfg->model) {
      spmu_qemu_fail("event=%" PRIx64 ": event %02XH umask %02XH is "
                     "produced by the modelled micro-architecture only: give "
                     "model=SPEC (cachegrind:I1=S,A,L:D1=S,A,L:LL=S,A,L or "
                     "part:NAME)",
                     sel, (unsigned)(uint8_t)sel,
                     (unsigned)(uint8_t)(sel >> 8));
      return false;
    }
    if (cfg->record[0])
      cfg->model_sampled = true;
  }
  return true;
}

/* Does an event count taken conditional branches (BR_INST_RETIRED.
 * NEAR_TAKEN), which only the callback per block sees? */
static bool taken_matters(const struct spmu_qemu_config *cfg)
{
  unsigned i;

  for (i = 0; i < cfg->nevents; i++)
    if (cfg->line_of[i] == L_BR_TAKEN)
      return true;
  return false;
}

/* The lines the events count, instructions first, one a lane of
 * lane_line; false when they are more than its lanes. */
static bool pack_lanes(struct spmu_qemu_config *cfg)
{
  const unsigned nlanes = sizeof(cfg->lane_line) / sizeof(cfg->lane_line[0]);
  unsigned i, k, n = 1;

  cfg->lane_line[0] = L_INST;
  for (k = 1; k < nlanes; k++)
    cfg->lane_line[k] = -1;
  for (i = 0; i < cfg->nevents; i++) {
    int l = cfg->line_of[i];

    for (k = 0; k < n && cfg->lane_line[k] != l; k++)
      ;
    if (l < 0 || k < n)
      continue;
    if (n == nlanes)
      return false;
    cfg->lane_line[n++] = l;
  }
  return true;
}

bool spmu_qemu_setup(struct spmu_qemu_config *cfg, int argc, char **argv)
{
  struct spmu_plugin_args a;
  char why[SPMU_PLUGIN_ARGS_PATH_MAX + 512];

  memset(cfg, 0, sizeof(*cfg));
  if (spmu_plugin_args_parse(&a, argc, argv, why, sizeof(why)) != 0) {
    spmu_qemu_fail("%s", why);
    return false;
  }
  if (!take_args(cfg, &a))
    return false;
  cfg->args = a;
  if (cfg->precise &&
      !spmu_qemu_pebs_setup(&cfg->profile, &cfg->pebs, why, sizeof(why))) {
    spmu_qemu_fail("%s", why);
    return false;
  }
  if (cfg->branch && !spmu_qemu_lbr_setup(&cfg->profile, cfg->branch, &cfg->lbr,
                                          why, sizeof(why))) {
    spmu_qemu_fail("%s", why);
    return false;
  }
  if (!find_lines(cfg))
    return false;
  /* An interval boundary needs the modelled counts at each instruction,
   * as a sampled modelled event does (interval.c). */
  if (cfg->ival && cfg->model)
    cfg->model_sampled = true;
  /* The model and intervals need the callback per block (model.c,
   * interval.c). */
  cfg->inline_start = !a.count_callback && !cfg->record[0] && !cfg->mux &&
                      !cfg->ival && !cfg->model && !taken_matters(cfg);
  /* The packed sums know no interval boundary: intervals take the general
   * path (interval.c). */
  cfg->packed = pack_lanes(cfg) && !cfg->model && !cfg->mux && !cfg->precise &&
                !cfg->branch && !cfg->ival;
  cfg->eager = cfg->packed && !taken_matters(cfg);
  return true;
}
