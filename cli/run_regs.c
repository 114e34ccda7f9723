/* SPDX-License-Identifier: MIT */
/* softpmu run: the registers as the run reads them. The catalogue's
 * description of each MSR, looked up once per run, its fields, and reads
 * through the host path, which have no side effects. The bottom layer of
 * run.h: it calls only the public API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/pmu.h>

#include "run.h"

bool run_find_reg(const spmu_profile *p, const char *name, struct reg *out)
{
  spmu_msr_info m;

  memset(out, 0, sizeof(*out));
  if (spmu_msr_lookup(p, name, &out->addr) != SPMU_OK ||
      spmu_msr_info_get(p, out->addr, &m) != SPMU_OK)
    return false;
  out->present = true;
  snprintf(out->name, sizeof out->name, "%s", m.name);
  return true;
}

bool run_regs_init(struct run *r)
{
  run_find_reg(r->p, "IA32_PERF_GLOBAL_CTRL", &r->ctrl);
  run_find_reg(r->p, "IA32_PERF_GLOBAL_STATUS", &r->status);
  run_find_reg(r->p, "IA32_DEBUGCTL", &r->debugctl);
  run_find_reg(r->p, "IA32_DS_AREA", &r->ds_area);
  r->descs = calloc(1, sizeof(*r->descs));
  if (!r->descs)
    return false;
  r->descs->cap = spmu_msr_list(r->p, NULL, 0);
  r->descs->d = calloc(r->descs->cap ? r->descs->cap : 1, sizeof(*r->descs->d));
  return r->descs->d != NULL;
}

void run_regs_free(struct run *r)
{
  size_t i;

  if (!r->descs)
    return;
  for (i = 0; i < r->descs->n; i++)
    free(r->descs->d[i].f);
  free(r->descs->d);
  free(r->descs);
  r->descs = NULL;
}

/* Looked up on first use; NULL also when out of memory (noted in
 * descs->oom). */
const struct desc *run_desc(const struct run *r, uint32_t addr)
{
  struct descs *ds = r->descs;
  struct desc *d;
  unsigned i;

  for (i = 0; i < ds->n; i++)
    if (ds->d[i].info.addr == addr)
      return &ds->d[i];
  /* Room for every MSR of the profile, allocated once: the pointers
   * handed out stay valid. */
  if (ds->n == ds->cap)
    return NULL;
  d = &ds->d[ds->n];
  if (spmu_msr_info_get(r->p, addr, &d->info) != SPMU_OK)
    return NULL;
  d->f = calloc(d->info.nfields ? d->info.nfields : 1, sizeof(*d->f));
  if (!d->f) {
    ds->oom = true;
    return NULL;
  }
  for (i = 0; i < d->info.nfields; i++)
    spmu_msr_field_get(r->p, addr, i, &d->f[i]);
  ds->n++;
  return d;
}

uint64_t run_field(const struct run *r, uint32_t addr, const char *name,
                   uint64_t reg)
{
  const struct desc *d = run_desc(r, addr);
  unsigned i;

  for (i = 0; d && i < d->info.nfields; i++)
    if (text_ieq(d->f[i].name, name))
      return run_field_value(&d->f[i], reg);
  return 0;
}

uint64_t run_rd(const struct run *r, unsigned lp, uint32_t addr)
{
  uint64_t v = 0;

  if (spmu_host_rdmsr(spmu_core_lp(r->core, lp), addr, &v) != SPMU_OK)
    return 0;
  return v;
}

struct globals run_globals(const struct run *r, unsigned lp)
{
  struct globals g = {0, 0, 0};

  if (r->ctrl.present)
    g.ctrl = run_rd(r, lp, r->ctrl.addr);
  if (r->status.present)
    g.status = run_rd(r, lp, r->status.addr);
  if (r->debugctl.present)
    g.debugctl = run_rd(r, lp, r->debugctl.addr);
  return g;
}
