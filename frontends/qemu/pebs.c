/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode with precise=1: the sampling counters use PEBS, as a driver
 * arms it (SDM Vol. 3B 18.4.4, 18.6.2.4 and 18.9: "Processor Event Based
 * Sampling").
 *
 * Each model core gets a DS save area and a PEBS buffer in the plugin's
 * own memory, reached by the model through the host's memory callbacks
 * (the linear addresses the model sees are the host addresses of the
 * buffers: the guest's memory is never touched). For each sampling
 * counter:
 *  - it is a general-purpose counter (or a fixed one where the profile has
 *    PEBS on fixed counters, PERF_CAPABILITIES.PEBS_BASELINE), with INT
 *    clear: its overflow arms PEBS and the PMI comes from the buffer's
 *    interrupt threshold instead (SDM 18.4.4);
 *  - its reset value in the DS area is -period, so each assist reloads it
 *    (SDM 18.4.4.4 "Counter Reload");
 *  - the threshold is one record, so every record brings a PMI, at which
 *    the records are read and the index reset (SDM 18.4.4.3 "Writing the
 *    DS Interrupt Service Routine").
 * The assist comes at the first event after the overflow (SDM 18.4.4), so
 * a record describes the instruction after the one that overflowed the
 * counter; its instruction pointer is the EventingIP of record format 2
 * and later and of the adaptive basic group (18.9.2.2), the IP of the
 * instruction after it before that (format 0 and 1). With regs=1 the
 * record's general-purpose registers are the guest's after the eventing
 * instruction (regs.c; adaptive PEBS is given its GPR group, 18.9.2.2.2,
 * as a driver asks for it), and each sample carries them; else, and
 * where QEMU gives no registers, they read 0 (RFLAGS 202H). */
#include "pebs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/error.h>
#include <softpmu/events.h>
#include <softpmu/regs.h>

#include "regs.h"
#include "sample.h"
#include "vcpu.h"

/* The 64-bit DS save area (SDM Vol. 3B 18.6.2.4.2, Figure 18-x: "64-bit
 * Layout of the DS Save Area"): the PEBS buffer's base, index, absolute
 * maximum and interrupt threshold, then the counters' reset values (GP
 * counter i at 40H + 8i; fixed counter j at 80H + 8j with extended PEBS,
 * 18.9.2). */
#define DS_PEBS_BASE 0x20u
#define DS_PEBS_INDEX 0x28u
#define DS_PEBS_MAX 0x30u
#define DS_PEBS_THRESHOLD 0x38u
#define DS_RESET_GP 0x40u
#define DS_RESET_FIXED 0x80u
#define DS_SIZE 0x100u
/* Record fields (SDM 18.9: formats 1 to 3, Table 18-x; the adaptive basic
 * group, 18.9.2.2). */
#define REC_RIP 0x08u           /* format 0, 1: the instruction after */
#define REC_STATUS_FMT1 0x90u   /* applicable counters, format 1+ */
#define REC_EVENTING_IP 0xB0u   /* format 2+ */
#define REC_ADAPT_IP 0x08u      /* adaptive: EventingIP */
#define REC_ADAPT_STATUS 0x10u  /* adaptive: applicable counters */
#define REC_ADAPT_SIZE_SHIFT 48 /* adaptive: record size, bits 63:48 */
#define REC_GPRS 0x10u          /* formats 0-3: RAX, RBX, ..., R15 */
#define REC_ADAPT_GROUPS 0x20u  /* adaptive: the groups after Basic */
#define ADAPT_MEMINFO 1u        /* MSR_PEBS_DATA_CFG bits (18.9.2.2) */
#define ADAPT_GPRS 2u
/* A counter's ADAPTIVE bit: its records take DATA_CFG's groups
 * (18.9.2.2): IA32_PERFEVTSELx bit 34, IA32_FIXED_CTR_CTRL bit 32 + 4j. */
#define EVTSEL_ADAPTIVE (UINT64_C(1) << 34)
#define FIXED_ADAPTIVE(j) (UINT64_C(1) << (32 + 4 * (j)))
#define REC_MAX 0x800u /* larger than any record a profile writes */
#define BUF_SIZE (16u * REC_MAX)
#define STATUS_OVF_BUF (UINT64_C(1) << 62) /* GLOBAL_STATUS.OvfBuffer */

struct spmu_qemu_pebs {
  unsigned char ds[DS_SIZE];
  unsigned char buf[BUF_SIZE];
};

static uint64_t la_of(const void *p)
{
  return (uint64_t)(uintptr_t)p;
}

static uint64_t get64(const unsigned char *p)
{
  uint64_t v;

  memcpy(&v, p, sizeof(v));
  return v;
}

static void put64(unsigned char *p, uint64_t v)
{
  memcpy(p, &v, sizeof(v));
}

/* The area of v that holds [la, la + len), or NULL. */
static unsigned char *reach(struct vcpu *v, uint64_t la, size_t len)
{
  unsigned k;

  for (k = 0; k < v->ncores; k++) {
    struct spmu_qemu_pebs *a = v->pebs[k];
    uint64_t lo = la_of(a);

    if (a && la >= lo && len <= sizeof(*a) && la - lo <= sizeof(*a) - len)
      return (unsigned char *)a + (la - lo);
  }
  return NULL;
}

static int read_mem(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                    size_t len)
{
  unsigned char *p = reach(opaque, la, len);

  (void)lp;
  if (!p)
    return -1;
  memcpy(buf, p, len);
  return 0;
}

static int write_mem(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                     size_t len)
{
  unsigned char *p = reach(opaque, la, len);

  (void)lp;
  if (!p)
    return -1;
  memcpy(p, buf, len);
  return 0;
}

/* The instruction at the assist: the one count.c is delivering; with
 * regs=1, the registers after it (regs.c). */
static void machine_state(void *opaque, spmu_lp *lp, spmu_machine_state *st)
{
  struct vcpu *v = opaque;

  (void)lp;
  st->ip = v->cur_ip;
  st->next_ip = v->cur_next_ip;
  st->rflags = 0x202; /* IF and the reserved bit 1 */
  if (v->regs)
    v->assist_regs = spmu_qemu_regs_at(v, v->cur_tb, v->cur_j, st);
}

/* The MSRs by their catalogue names, and the profile's PEBS format. */
bool spmu_qemu_pebs_setup(const spmu_profile *p, struct spmu_qemu_pebs_regs *pb,
                          char *why, size_t len)
{
  uint64_t caps = p->perf_capabilities;

  memset(pb, 0, sizeof(*pb));
  if (!(p->features & SPMU_FEAT_PEBS) ||
      spmu_msr_lookup(p, "IA32_DS_AREA", &pb->ds_area) != 0 ||
      spmu_msr_lookup(p, "IA32_PEBS_ENABLE", &pb->pebs_enable) != 0 ||
      spmu_msr_lookup(p, "IA32_PERFEVTSEL0", &pb->evtsel0) != 0) {
    snprintf(why, len, "precise=1: profile %s has no PEBS", p->name);
    return false;
  }
  pb->fmt = (unsigned)((caps & SPMU_PERFCAP_PEBS_FMT_MASK) >>
                       SPMU_PERFCAP_PEBS_FMT_SHIFT);
  pb->baseline = (caps & SPMU_PERFCAP_PEBS_BASELINE) != 0;
  if (pb->baseline &&
      (spmu_msr_lookup(p, "MSR_PEBS_DATA_CFG", &pb->data_cfg) ||
       spmu_msr_lookup(p, "IA32_FIXED_CTR_CTRL", &pb->fixed_ctrl))) {
    snprintf(why, len, "precise=1: profile %s: no adaptive PEBS registers",
             p->name);
    return false;
  }
  if (spmu_msr_lookup(p, "IA32_PERF_GLOBAL_STATUS_RESET", &pb->status_reset))
    pb->status_reset = 0;
  if (spmu_msr_lookup(p, "IA32_PERF_GLOBAL_OVF_CTRL", &pb->ovf_ctrl))
    pb->ovf_ctrl = 0;
  return true;
}

/* The counter event i should be claimed on: a GP counter unless the
 * profile has PEBS on fixed counters. */
bool spmu_qemu_pebs_needs_gp(const struct spmu_qemu_config *cfg)
{
  return !cfg->pebs.baseline;
}

static int wr(struct vcpu *v, unsigned k, uint32_t msr, uint64_t value)
{
  return spmu_wrmsr(spmu_core_lp(v->cores[k], 0), msr, value);
}

/* Arm PEBS on the sampling counters of v's cores, before they start. */
int spmu_qemu_pebs_arm(struct vcpu *v, char *why, size_t len)
{
  const struct spmu_qemu_config *cfg = v->cfg;
  const struct spmu_qemu_pebs_regs *pb = &cfg->pebs;
  spmu_host host = {.read_mem = read_mem,
                    .write_mem = write_mem,
                    .machine_state = machine_state,
                    .opaque = v};
  unsigned k, i;
  int rc = 0;

  for (k = 0; k < v->ncores && rc == 0; k++) {
    struct spmu_qemu_pebs *a = calloc(1, sizeof(*a));
    uint64_t enable = 0, base = la_of(a->buf);

    if (!(v->pebs[k] = a))
      return SPMU_ENOMEM;
    put64(a->ds + DS_PEBS_BASE, base);
    put64(a->ds + DS_PEBS_INDEX, base);
    put64(a->ds + DS_PEBS_MAX, base + BUF_SIZE - REC_MAX);
    put64(a->ds + DS_PEBS_THRESHOLD, base + 1);
    for (i = 0; i < cfg->nevents; i++) {
      unsigned c = v->counter_of[i];
      uint64_t sel = 0;

      if (v->core_of[i] != k)
        continue;
      if (c >= SPMU_COUNTER_FIXED(0)) {
        unsigned j = c - SPMU_COUNTER_FIXED(0);

        put64(a->ds + DS_RESET_FIXED + 8 * j, -cfg->period);
        /* PMI clear: the PMI comes from the buffer (SDM 18.4.4). */
        spmu_rdmsr(spmu_core_lp(v->cores[k], 0), pb->fixed_ctrl, &sel);
        sel &= ~SPMU_FIXED_PMI(j);
        if (cfg->args.regs)
          sel |= FIXED_ADAPTIVE(j);
        rc = rc ? rc : wr(v, k, pb->fixed_ctrl, sel);
      } else {
        put64(a->ds + DS_RESET_GP + 8 * c, -cfg->period);
        /* INT clear: the PMI comes from the buffer (SDM 18.4.4). */
        spmu_rdmsr(spmu_core_lp(v->cores[k], 0), pb->evtsel0 + c, &sel);
        sel &= ~SPMU_EVTSEL_INT;
        if (cfg->args.regs && pb->baseline)
          sel |= EVTSEL_ADAPTIVE;
        rc = rc ? rc : wr(v, k, pb->evtsel0 + c, sel);
      }
      enable |= UINT64_C(1) << c;
    }
    if (rc == 0)
      rc = spmu_core_set_host(v->cores[k], &host);
    /* The basic group, and with regs=1 the GPRs (SDM 18.9.2.2). */
    if (rc == 0 && pb->baseline)
      rc = wr(v, k, pb->data_cfg, cfg->args.regs ? ADAPT_GPRS : 0);
    if (rc == 0)
      rc = wr(v, k, pb->ds_area, la_of(a->ds));
    if (rc == 0)
      rc = wr(v, k, pb->pebs_enable, enable);
  }
  if (rc != 0)
    snprintf(why, len, "precise=1: cannot arm PEBS: %s", spmu_strerror(rc));
  return rc;
}

static unsigned event_of(const struct vcpu *v, unsigned k, uint64_t applic)
{
  unsigned i;

  for (i = 0; i < v->cfg->nevents; i++)
    if (v->core_of[i] == k && (applic >> v->counter_of[i] & 1))
      return i;
  return 0;
}

/* A record's registers: RFLAGS and the GPRs by register number. */
struct rec_regs {
  uint64_t rflags;
  uint64_t gpr[16];
  bool have;
};

/* The GPR fields of formats 0-3: RFLAGS, RIP, then RAX, RBX, RCX, RDX,
 * RSI, RDI, RBP, RSP, R8-R15 (SDM 18.6.2.4.2, 18.9.1). */
static void legacy_regs(const unsigned char *r, struct rec_regs *g)
{
  unsigned i;

  g->rflags = get64(r);
  for (i = 0; i < 16; i++)
    g->gpr[spmu_qemu_legacy_regnum[i]] = get64(r + REC_GPRS + 8 * i);
  g->have = true;
}

/* The adaptive record's GPR group, when its DATA_CFG echo (bits 47:0 of
 * its first field) has it: after Basic and MemInfo, RFLAGS, RIP, then
 * RAX to R15 by register number (SDM 18.9.2.2.2). */
static void adaptive_regs(const unsigned char *r, size_t size,
                          struct rec_regs *g)
{
  uint64_t cfg = get64(r);
  size_t at = REC_ADAPT_GROUPS + ((cfg & ADAPT_MEMINFO) ? 0x20 : 0);
  unsigned i;

  if (!(cfg & ADAPT_GPRS) || size < at + 0x90)
    return;
  g->rflags = get64(r + at);
  for (i = 0; i < 16; i++)
    g->gpr[i] = get64(r + at + 0x10 + 8 * i);
  g->have = true;
}

/* One record at r: its IP, the counters it applies to, its registers. */
static size_t parse(const struct spmu_qemu_pebs_regs *pb,
                    const unsigned char *r, uint64_t *ip, uint64_t *applic,
                    struct rec_regs *g)
{
  if (pb->baseline) {
    size_t size = (size_t)(get64(r) >> REC_ADAPT_SIZE_SHIFT);

    *ip = get64(r + REC_ADAPT_IP);
    *applic = get64(r + REC_ADAPT_STATUS);
    adaptive_regs(r, size, g);
    return size;
  }
  *ip = get64(r + (pb->fmt >= 2 ? REC_EVENTING_IP : REC_RIP));
  *applic = pb->fmt >= 1 ? get64(r + REC_STATUS_FMT1) : 1;
  legacy_regs(r, g);
  return pb->fmt >= 3 ? 0xC8 : pb->fmt == 2 ? 0xC0 : pb->fmt == 1 ? 0xB0 : 0x90;
}

/* The PMI of core k: the records since the last one become samples, the
 * index goes back to the base, OvfBuffer is cleared (SDM 18.4.4.3). */
void spmu_qemu_pebs_drain(struct vcpu *v, unsigned k)
{
  const struct spmu_qemu_pebs_regs *pb = &v->cfg->pebs;
  struct spmu_qemu_pebs *a = v->pebs[k];
  uint64_t base, index, at;
  spmu_lp *lp = spmu_core_lp(v->cores[k], 0);

  if (!a)
    return;
  base = get64(a->ds + DS_PEBS_BASE);
  index = get64(a->ds + DS_PEBS_INDEX);
  for (at = base; at < index && at - base < BUF_SIZE;) {
    uint64_t ip = 0, applic = 0;
    struct rec_regs g = {.have = false};
    size_t size = parse(pb, a->buf + (at - base), &ip, &applic, &g);

    if (size == 0)
      break;
    /* The registers are the guest's only when the assist had them (the
     * threshold is one record: this one). */
    if (v->regs && v->assist_regs && g.have)
      spmu_qemu_sample_regs(v, event_of(v, k, applic), ip, g.rflags, g.gpr);
    else
      spmu_qemu_sample(v, event_of(v, k, applic), ip);
    at += size;
  }
  put64(a->ds + DS_PEBS_INDEX, base);
  if (pb->status_reset)
    spmu_wrmsr(lp, pb->status_reset, STATUS_OVF_BUF);
  else if (pb->ovf_ctrl)
    spmu_wrmsr(lp, pb->ovf_ctrl, STATUS_OVF_BUF);
}

void spmu_qemu_pebs_free(struct vcpu *v)
{
  unsigned k;

  for (k = 0; k < MAX_EVENTS; k++) {
    free(v->pebs[k]);
    v->pebs[k] = NULL;
  }
}
