/* SPDX-License-Identifier: MIT */
/* The public PMU object: creation, reset, and the guest and host paths. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/msr.h"
#include "core/objects.h"
#include "core/pmi.h"
#include "lbr/lbr.h"
#include "softpmu/error.h"

int spmu_core_new(const spmu_profile *profile, spmu_core **out)
{
  spmu_core *c;
  unsigned i;

  if (!profile || !out)
    return SPMU_EINVAL;
  *out = NULL;
  if (spmu_profile_validate(profile, NULL, 0) != SPMU_OK)
    return SPMU_EPROFILE;
  c = calloc(1, sizeof(*c));
  if (!c)
    return SPMU_ENOMEM;
  spmu_applied_init(&c->a, profile);
  c->engine =
      (c->a.caps & CAP(NETBURST)) ? &spmu_engine_netburst : &spmu_engine_arch;
  c->nlp = profile->threads;
  for (i = 0; i < c->nlp; i++) {
    c->lp[i].core = c;
    c->lp[i].index = i;
  }
  spmu_core_reset(c);
  *out = c;
  return SPMU_OK;
}

void spmu_core_free(spmu_core *core)
{
  free(core);
}

const spmu_profile *spmu_core_profile(const spmu_core *core)
{
  return core ? &core->a.prof : NULL;
}

unsigned spmu_core_threads(const spmu_core *core)
{
  return core ? core->nlp : 0;
}

spmu_lp *spmu_core_lp(spmu_core *core, unsigned i)
{
  return core && i < core->nlp ? &core->lp[i] : NULL;
}

spmu_core *spmu_lp_core(const spmu_lp *lp)
{
  return lp ? lp->core : NULL;
}

int spmu_lp_index(const spmu_lp *lp)
{
  return lp ? (int)lp->index : SPMU_EINVAL;
}

int spmu_core_reset(spmu_core *core)
{
  unsigned i;

  if (!core)
    return SPMU_EINVAL;
  for (i = 0; i < core->nlp; i++) {
    struct spmu_regfiles f = spmu_lp_file(&core->lp[i]);
    spmu_regs_reset(&core->a, &f);
    core->lp[i].pmi_frozen = false;
    spmu_lp_touch(&core->lp[i]);
  }
  core->engine->reset(core);
  core->pmi_lps = 0;
  core->clock = 0;
  return SPMU_OK;
}

int spmu_lp_init_signal(spmu_lp *lp)
{
  /* SDM Vol. 3A 9.1: INIT leaves MSRs unchanged, so there is nothing to do
   * to the register file, and a legacy freeze on PMI (GLOBAL_CTRL cleared)
   * outlives it: pmi_frozen stays. The model keeps no other state between
   * calls that INIT could drop (PMI requests are delivered before the call
   * that made them returns). The call exists so hosts forward INIT as they
   * forward RESET. */
  return lp ? SPMU_OK : SPMU_EINVAL;
}

/* A write that starts or ends a counter freeze (SDM 18.2.4.1). The end:
 * legacy (v2-v3) when software writes GLOBAL_CTRL after a freeze on PMI
 * cleared it; v4+ when CTR_Frz goes from 1 to 0 (STATUS_RESET / OVF_CTRL,
 * or a host write of GLOBAL_STATUS). The start: v4+ when CTR_Frz goes
 * from 0 to 1 (STATUS_SET, SDM 18.2.4.2, or a host write of
 * GLOBAL_STATUS), which freezes the counters as a PMI's freeze does.
 * old_status is GLOBAL_STATUS before the write. */
static void freeze_written(spmu_lp *lp, const struct spmu_msr_rt *m,
                           uint64_t old_status)
{
  uint64_t now = lp->r.global_status;
  spmu_event ev = {.kind = SPMU_EV_UNFREEZE};

  ev.u.freeze.counters = 1;
  ev.u.freeze.reg = SPMU_MSR_GLOBAL_STATUS;
  ev.u.freeze.old = old_status;
  ev.u.freeze.now = now;
  if (m->addr == SPMU_MSR_GLOBAL_CTRL && lp->pmi_frozen) {
    lp->pmi_frozen = false;
    ev.u.freeze.reg = SPMU_MSR_GLOBAL_CTRL;
    ev.u.freeze.old = 0;
    ev.u.freeze.now = lp->r.global_ctrl;
  } else if ((now & ~old_status) & SPMU_STATUS_CTR_FRZ) {
    ev.kind = SPMU_EV_FREEZE;
  } else if (!((old_status & ~now) & SPMU_STATUS_CTR_FRZ)) {
    return;
  }
  if (spmu_reporting(lp->core))
    spmu_emit(lp, &ev);
}

/* A write that clears counters' overflow status (OVF_CTRL / STATUS_RESET,
 * or a host write of GLOBAL_STATUS) disarms their PEBS (decisions.md):
 * an overflow arms PEBS and the assist on the next event clears that
 * overflow status (SDM 18.4.4), so the arming lasts as long as the status
 * bit. Software clears it when it programs new event selects, reloads a
 * counter or disables counting (SDM 18.2.2): a later record's Applicable
 * Counters holds no counter whose overflow software took back. */
static void disarm_written(spmu_lp *lp, uint64_t old_status)
{
  uint64_t cleared = old_status & ~lp->r.global_status;

  if (!(lp->core->a.caps & CAP(NETBURST)))
    lp->armed &= (uint32_t)~spmu_ctrs_of(cleared);
}

/* After a successful write of m: the counting engine's compiled programs
 * depend on the control MSRs, not on the architectural counters' values,
 * so a counter write (a PMI handler's reload) leaves them valid. */
static void written(spmu_lp *lp, const struct spmu_msr_rt *m,
                    uint64_t old_status)
{
  bool counter = m->def->policy == SPMU_POLICY_COUNTER ||
                 m->def->policy == SPMU_POLICY_COUNTER_SX;
  if (!counter || (lp->core->a.caps & CAP(NETBURST)))
    spmu_lp_touch(lp);
  if (!counter) {
    freeze_written(lp, m, old_status);
    disarm_written(lp, old_status);
  }
  /* SDM "Architectural Last Branch Records": a write of IA32_LBR_DEPTH
   * resets every LBR entry to 0. */
  if (m->def->check == SPMU_CHECK_LBR_DEPTH)
    spmu_lbr_clear(&lp->core->lbr[lp->index]);
}

/* The write both paths share: the catalogue's write algorithm on lp's
 * register files (host: the VMM's path), then what a write changes
 * beyond the register. */
static enum spmu_wr write_msr(spmu_lp *lp, const struct spmu_msr_rt *m,
                              uint64_t value, bool host)
{
  struct spmu_regfiles f = spmu_lp_file(lp);
  uint64_t old_status = lp->r.global_status;
  enum spmu_wr rc = spmu_msr_write(&lp->core->a, &f, m, value, host);

  if (rc == SPMU_WR_OK)
    written(lp, m, old_status);
  return rc;
}

int spmu_wrmsr(spmu_lp *lp, uint32_t msr, uint64_t value)
{
  const struct spmu_msr_rt *m;

  if (!lp)
    return SPMU_EINVAL;
  /* An MSR the profile lacks raises #GP (SDM Vol. 2B WRMSR). */
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m || write_msr(lp, m, value, false) != SPMU_WR_OK)
    return SPMU_GP;
  return SPMU_OK;
}

int spmu_rdmsr(spmu_lp *lp, uint32_t msr, uint64_t *value)
{
  const struct spmu_msr_rt *m;
  struct spmu_regfiles f;

  if (!lp || !value)
    return SPMU_EINVAL;
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_GP;
  f = spmu_lp_file(lp);
  *value = spmu_msr_read(&lp->core->a, &f, m);
  return SPMU_OK;
}

int spmu_host_wrmsr(spmu_lp *lp, uint32_t msr, uint64_t value)
{
  const struct spmu_msr_rt *m;

  if (!lp)
    return SPMU_EINVAL;
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_ENOMSR;
  switch (write_msr(lp, m, value, true)) {
  case SPMU_WR_OK:
    return SPMU_OK;
  case SPMU_WR_READONLY:
    return SPMU_EREADONLY;
  default:
    return SPMU_ERESERVED;
  }
}

int spmu_host_rdmsr(const spmu_lp *lp, uint32_t msr, uint64_t *value)
{
  const struct spmu_msr_rt *m;
  struct spmu_regfiles f;

  if (!lp || !value)
    return SPMU_EINVAL;
  m = spmu_applied_find(&lp->core->a, msr);
  if (!m)
    return SPMU_ENOMSR;
  /* Reads change nothing: the file is only read through. */
  f = spmu_lp_file((spmu_lp *)(uintptr_t)lp);
  *value = spmu_msr_read(&lp->core->a, &f, m);
  return SPMU_OK;
}

/* RDPMC (SDM Vol. 2B "RDPMC"): #GP when CPL > 0 and CR4.PCE = 0; the
 * engine decodes ECX (each family has its own index space). */
int spmu_rdpmc(spmu_lp *lp, uint32_t ecx, unsigned cpl, bool cr4_pce,
               uint64_t *value)
{
  if (!lp || !value || cpl > 3)
    return SPMU_EINVAL;
  if (cpl > 0 && !cr4_pce)
    return SPMU_GP;
  return lp->core->engine->rdpmc(lp, ecx, value);
}

/* ---- delivery: the engine's --------------------------------------------- */

/* spmu_deliver after a register write: rebuild first. Out of line, so
 * the common call saves no registers and jumps straight to the engine. */
static __attribute__((noinline)) int deliver_rebuilt(spmu_lp *lp,
                                                     const spmu_clock *clk,
                                                     uint64_t clocks,
                                                     uint64_t *consumed)
{
  spmu_core *core = lp->core;

  core->engine->rebuild(core);
  return core->engine->deliver(lp, clk, clocks, consumed);
}

int spmu_deliver(spmu_lp *lp, const spmu_clock *clk, uint64_t clocks,
                 uint64_t *consumed)
{
  spmu_core *core;

  if (consumed)
    *consumed = 0;
  if (!lp || !clk || clk->cpl > 3 || !clocks)
    return SPMU_EINVAL;
  core = lp->core;
  if (core->stale)
    return deliver_rebuilt(lp, clk, clocks, consumed);
  return core->engine->deliver(lp, clk, clocks, consumed);
}

int spmu_deadline(const spmu_lp *lp, const spmu_clock *clk, uint64_t *clocks)
{
  spmu_core *core;
  int rc;

  if (!lp || !clk || clk->cpl > 3 || !clocks)
    return SPMU_EINVAL;
  core = lp->core;
  if (core->stale)
    core->engine->rebuild(core);
  /* A dry run: nothing is reported, and its PMI requests are not real. */
  core->report = NULL;
  rc = core->engine->deadline(&core->lp[lp->index], clk, clocks);
  core->report = core->host.event;
  core->pmi_lps = 0;
  core->clock = 0;
  return rc;
}

int spmu_counter_enabled(const spmu_lp *lp, unsigned counter)
{
  const spmu_profile *p;
  const struct spmu_regs *r;
  bool on;

  if (!lp)
    return SPMU_EINVAL;
  p = &lp->core->a.prof;
  r = &lp->r;
  if (lp->core->a.caps & CAP(NETBURST)) {
    /* SDM 18.15.5.1: CCCR.ENABLE (bit 12). */
    if (counter >= SPMU_NB_NCTR)
      return SPMU_EINVAL;
    return (lp->core->nb_regs.cccr[counter] & SPMU_NB_CCCR_ENABLE) != 0;
  }
  if (counter < p->gp)
    on = r->evtsel[counter] & SPMU_EVTSEL_EN;
  else if (counter >= 32 && counter < 32 + SPMU_MAX_FIXED &&
           (p->fixed_mask >> (counter - 32) & 1))
    on = r->fixed_ctr_ctrl >> (4 * (counter - 32)) & 3;
  else
    return SPMU_EINVAL;
  /* SDM 18.2.2: from v2, GLOBAL_CTRL bit i (PMCi) or 32 + j (FIXED_CTRj). */
  return on && (p->version < 2 || (r->global_ctrl >> counter & 1));
}

int spmu_cpuid(const spmu_lp *lp, uint32_t leaf, uint32_t subleaf,
               uint32_t regs[4])
{
  if (!lp)
    return SPMU_EINVAL;
  return spmu_profile_cpuid(&lp->core->a.prof, leaf, subleaf, regs);
}

int spmu_core_set_host(spmu_core *core, const spmu_host *host)
{
  if (!core)
    return SPMU_EINVAL;
  if (host)
    core->host = *host;
  else
    memset(&core->host, 0, sizeof core->host);
  core->report = core->host.event;
  /* With an event callback every overflow ends a batch, which the plain
   * path does not do: the programs say which path a clock takes. */
  core->stale = (uint32_t)spmu_width_mask(core->nlp);
  return SPMU_OK;
}
