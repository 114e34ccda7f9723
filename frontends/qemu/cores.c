/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A guest thread's model cores (cores.h): one model core per thread, more
 * when the events outnumber its counters (one, time-sliced, with
 * multiplex=N: mux.c), each programmed through the agent library. */
#include "cores.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/error.h>

#include "count.h"
#include "interval.h"
#include "lbr.h"
#include "model.h"
#include "mux.h"
#include "pebs.h"
#include "regs.h"
#include "vcpu.h"

static int new_core(struct vcpu *v, char *why, size_t len)
{
  const spmu_profile *p = &v->cfg->profile;
  spmu_backend be;
  unsigned k = v->ncores;
  int rc = spmu_core_new(p, &v->cores[k]);

  if (rc == 0 &&
      (rc = spmu_backend_model(spmu_core_lp(v->cores[k], 0), &be)) == 0)
    rc = spmu_agent_new(&be, &v->agents[k]);
  if (rc != 0) {
    snprintf(why, len, "cannot make a model core of profile %s: %s", p->name,
             spmu_strerror(rc));
    if (v->cores[k])
      spmu_core_free(v->cores[k]);
    v->cores[k] = NULL;
    return rc;
  }
  v->ncores++;
  return 0;
}

/* The lowest free GP counter, for PEBS where only GP counters have it
 * (before PERF_CAPABILITIES.PEBS_BASELINE, SDM Vol. 3B 18.9.2). */
static int claim_gp(spmu_agent *a, const spmu_agent_event *ev,
                    unsigned *counter)
{
  spmu_agent_pmu pmu;
  unsigned n;
  int rc = spmu_agent_pmu_get(a, &pmu);

  for (n = 0; rc == 0 && n < pmu.gp; n++) {
    rc = spmu_agent_claim_counter(a, SPMU_AGENT_GP(n), ev);
    if (rc == 0) {
      *counter = SPMU_AGENT_GP(n);
      return 0;
    }
    if (rc == SPMU_EBUSY || rc == SPMU_EINVAL)
      rc = 0;
  }
  return rc ? rc : SPMU_EBUSY;
}

/* A fixed counter where the event is a fixed counter's, else a GP
 * counter (spmu_agent_claim); a new core when every one is taken. */
static int claim_event(struct vcpu *v, unsigned i, char *why, size_t len)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  spmu_agent_event ev = spmu_qemu_agent_event(cfg, cfg->evtsel[i]);
  unsigned k;
  int rc;

  if (i < 64 && (cfg->read >> i & 1))
    ev.period = 0; /* read at its leader's samples: it only counts */

  for (k = 0;; k++) {
    if (k == v->ncores && (rc = new_core(v, why, len)) != 0)
      return rc;
    if (cfg->precise && spmu_qemu_pebs_needs_gp(cfg))
      rc = claim_gp(v->agents[k], &ev, &v->counter_of[i]);
    else
      rc = spmu_agent_claim(v->agents[k], &ev, &v->counter_of[i]);
    if (rc == 0) {
      v->core_of[i] = k;
      return 0;
    }
    if (rc != SPMU_EBUSY || k + 1 == MAX_EVENTS) {
      snprintf(why, len, "event=0x%" PRIx64 ": the model refuses it (%s)",
               cfg->evtsel[i], spmu_strerror(rc));
      return rc;
    }
  }
}

static void free_cores(struct vcpu *v)
{
  unsigned k;

  spmu_qemu_pebs_free(v);
  spmu_qemu_lbr_free(v);
  spmu_qemu_model_free(v);
  for (k = 0; k < v->ncores; k++) {
    spmu_agent_free(v->agents[k]);
    spmu_core_free(v->cores[k]);
  }
  v->ncores = 0;
}

static int program_vcpu(struct vcpu *v, char *why, size_t len)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  unsigned i, k;
  int rc = 0;

  if (cfg->mux) {
    if ((rc = new_core(v, why, len)) == 0)
      return spmu_qemu_mux_plan(v, why, len);
    return rc;
  }
  for (i = 0; i < cfg->nevents && rc == 0; i++)
    rc = claim_event(v, i, why, len);

  for (k = 0; k < v->ncores && rc == 0; k++)
    if ((rc = spmu_agent_start(v->agents[k])) != 0)
      snprintf(why, len, "cannot start the counters: %s", spmu_strerror(rc));
  /* PEBS after the start, which writes the event selects with INT (the
   * thread has run nothing yet). */
  if (rc == 0 && cfg->precise)
    rc = spmu_qemu_pebs_arm(v, why, len);
  if (rc == 0 && cfg->branch)
    rc = spmu_qemu_lbr_arm(v, why, len);
  if (rc != 0)
    free_cores(v);
  return rc;
}

struct vcpu *spmu_qemu_vcpu_new(const struct spmu_qemu_config *cfg,
                                struct spmu_qemu_stream *stream, char *why,
                                size_t len)
{
  struct vcpu *v = calloc(1, sizeof(*v));

  if (!v) {
    snprintf(why, len, "out of memory");
    return NULL;
  }
  v->cfg = cfg;
  v->stream = stream;
  if (!spmu_qemu_model_attach(v, why, len) || program_vcpu(v, why, len) != 0) {
    spmu_qemu_model_free(v);
    free(v);
    return NULL;
  }
  if (!spmu_qemu_ival_attach(v)) {
    snprintf(why, len, "out of memory");
    spmu_qemu_vcpu_free(v);
    return NULL;
  }
  spmu_qemu_start_budget(v);
  return v;
}

void spmu_qemu_vcpu_free(struct vcpu *v)
{
  free_cores(v);
  spmu_qemu_regs_vcpu_free(v);
  spmu_qemu_ival_free(v);
  free(v->stack);
  free(v);
}

bool spmu_qemu_cores_try(const struct spmu_qemu_config *cfg, char *why,
                         size_t len)
{
  struct vcpu v;

  memset(&v, 0, sizeof(v));
  v.cfg = cfg;
  if (program_vcpu(&v, why, len) != 0)
    return false;
  free_cores(&v);
  return true;
}

/* ---- counts ------------------------------------------------------------- */

void spmu_qemu_rebase(struct vcpu *v)
{
  unsigned i;

  for (i = 0; i < v->cfg->nevents; i++) {
    v->base_running[i] += spmu_qemu_event_running(v, i);
    v->base[i] += spmu_qemu_event_count(v, i);
  }
  v->base_insns = v->insns;
}
