/* SPDX-License-Identifier: MIT */
/* The DS save area: PEBS assists and BTS records (SDM 17.4.8-17.4.9 "BTS"
 * and "DS save area", 18.4.4 Core 2, 18.6.2 Nehalem, 18.8.1 Haswell, 18.9
 * Skylake; the DS management area layouts are SDM 17.4.9 Figures 17-5 to
 * 17-8, the PEBS sequence 18.4.4).
 *
 * Memory is the guest's linear memory, reached only through the host's
 * read_mem / write_mem callbacks. Every address the model writes is the
 * record slot at the PEBS index (after the bounds check) or the PEBS index
 * field of the DS management area; a failed callback drops the record and
 * the model changes nothing else (docs/decisions.md #28). */
#include <string.h>

#include "core/msr.h"
#include "core/pmi.h"
#include "ds/ds.h"
#include "lbr/lbr.h"
#include "softpmu/error.h"

/* The deepest LBR stack of the modelled parts (and spmu_machine_state's):
 * DATA_CFG[31:24] asks for up to 256 entries; more than 32 are clamped
 * (decisions.md #65). */
#define LBR_MAX 32
#define ADAPTIVE_MAX (32 + 32 + 144 + 256 + LBR_MAX * 24)

/* One buffer of the DS management area: BTS (fields at 00H wide / 00H
 * narrow) or PEBS (20H / 10H). */
struct ds {
  bool wide;     /* 64-bit layout */
  uint64_t base; /* linear address of the DS area */
  unsigned off;  /* offset of the buffer's base field */
  uint64_t buf_base, index, max, threshold;
  /* The access that failed, for SPMU_EV_*_DROP (SPMU_DROP_MEM_FAULT). */
  uint64_t fault_addr;
  uint32_t fault_len;
  bool fault_write;
};

static uint64_t field_addr(const struct ds *d, unsigned i64, unsigned i32)
{
  return d->base + (d->wide ? i64 : i32);
}

/* SDM 17.4.9: the 64-bit layout with DTES64, or without it while IA-32e
 * mode is active. */
static bool ds_wide(const spmu_lp *lp, const spmu_clock *clk)
{
  return (lp->core->a.prof.features & SPMU_FEAT_DTES64) ||
         (clk->flags & SPMU_CLK_IA32E);
}

/* Note a failed access in d. False. */
static bool fault(struct ds *d, uint64_t la, size_t len, bool write)
{
  d->fault_addr = la;
  d->fault_len = (uint32_t)len;
  d->fault_write = write;
  return false;
}

static bool mem_read(spmu_lp *lp, struct ds *d, uint64_t la, void *buf,
                     size_t len)
{
  const spmu_host *h = &lp->core->host;
  if (h->read_mem && h->read_mem(h->opaque, lp, la, buf, len) == 0)
    return true;
  return fault(d, la, len, false);
}

static bool mem_write(spmu_lp *lp, struct ds *d, uint64_t la, const void *buf,
                      size_t len)
{
  const spmu_host *h = &lp->core->host;
  if (h->write_mem && h->write_mem(h->opaque, lp, la, buf, len) == 0)
    return true;
  return fault(d, la, len, true);
}

/* Report a record (SPMU_EV_PEBS, SPMU_EV_BTS: at addr, size bytes) or a
 * drop (SPMU_EV_*_DROP: why, and d's failed access), with d's index after
 * the call and absolute maximum. */
static void report_rec(spmu_lp *lp, unsigned kind, const struct ds *d,
                       uint64_t addr, uint32_t size, uint64_t counters,
                       unsigned why)
{
  spmu_event ev = {.kind = kind};

  ev.u.rec.addr = addr;
  ev.u.rec.size = size;
  ev.u.rec.counters = counters;
  ev.u.rec.index = d->index;
  ev.u.rec.abs_max = d->max;
  ev.u.rec.base = d->buf_base;
  ev.u.rec.why = why;
  if (why == SPMU_DROP_MEM_FAULT) {
    ev.u.rec.fault_addr = d->fault_addr;
    ev.u.rec.fault_len = d->fault_len;
    ev.u.rec.fault_write = d->fault_write;
  }
  spmu_emit(lp, &ev);
}

/* Read a buffer's four fields: base, index, absolute maximum, interrupt
 * threshold (SDM 17.4.9 Figures 17-5, 17-8). pebs selects the PEBS
 * buffer, else BTS. */
static bool ds_load(spmu_lp *lp, const spmu_clock *clk, bool pebs, struct ds *d)
{
  uint8_t b[32];
  unsigned w;

  d->wide = ds_wide(lp, clk);
  w = d->wide ? 8 : 4;
  d->off = pebs ? 4 * w : 0;
  d->base = d->wide ? lp->r.ds_area : (uint32_t)lp->r.ds_area;
  if (!mem_read(lp, d, d->base + d->off, b, 4 * w))
    return false;
  d->buf_base = spmu_get_le(b, w);
  d->index = spmu_get_le(b + w, w);
  d->max = spmu_get_le(b + 2 * w, w);
  d->threshold = spmu_get_le(b + 3 * w, w);
  return true;
}

/* The buffer's index field. */
static uint64_t index_addr(const struct ds *d)
{
  return d->base + d->off + (d->wide ? 8 : 4);
}

/* The DS counter-reset slot of counter c: 40H + 8i wide, 20H + 8i narrow;
 * fixed counter j at slot 8 + j (80H + 8j wide, SDM 18.9.2; the narrow
 * layout has no fixed-counter PEBS). */
static uint64_t reset_addr(const struct ds *d, unsigned c)
{
  return field_addr(d, 0x40, 0x20) + 8 * (uint64_t)c;
}

/* --- records ------------------------------------------------------------ */

struct rec {
  uint8_t b[ADAPTIVE_MAX];
  size_t len;
};

static void q(struct rec *r, uint64_t v)
{
  spmu_put_le(r->b + r->len, v, 8);
  r->len += 8;
}

static void d32(struct rec *r, uint64_t v)
{
  spmu_put_le(r->b + r->len, v, 4);
  r->len += 4;
}

/* Register numbers (spmu_machine_state.gpr). */
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI };

/* SDM 18.6.2.1: RIP is the instruction after the event with trap-like
 * PEBS (IA32_PERF_CAPABILITIES[6]), the eventing instruction otherwise. */
static uint64_t record_ip(const spmu_lp *lp, const spmu_machine_state *m)
{
  return (lp->r.perf_capabilities & SPMU_PERFCAP_PEBS_TRAP) ? m->next_ip
                                                            : m->ip;
}

/* The legacy GPR block: RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8-R15. */
static void legacy_gprs(struct rec *r, const spmu_machine_state *m)
{
  static const unsigned order[8] = {RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP};
  unsigned i;
  for (i = 0; i < 8; i++)
    q(r, m->gpr[order[i]]);
  for (i = 8; i < 16; i++)
    q(r, m->gpr[i]);
}

/* The 40-byte record of the 32-bit DS layout (SDM 17.4.9 Figure 17-7):
 * EFLAGS, linear IP, EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP. */
static void record_narrow(struct rec *r, const spmu_lp *lp,
                          const spmu_machine_state *m)
{
  static const unsigned order[8] = {RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP};
  unsigned i;
  d32(r, m->rflags);
  d32(r, record_ip(lp, m));
  for (i = 0; i < 8; i++)
    d32(r, m->gpr[order[i]]);
}

/* Formats 0-3 (SDM 18.4.4.1, 18.6.2.1, 18.8.1.1, 18.9.1). */
static void record_legacy(struct rec *r, const spmu_lp *lp, unsigned fmt,
                          const spmu_machine_state *m,
                          const spmu_mem_access *mem, uint64_t applicable)
{
  q(r, m->rflags);
  q(r, record_ip(lp, m));
  legacy_gprs(r, m);
  if (fmt == 0)
    return;
  /* 90H: GLOBAL_STATUS (formats 1-2), applicable counters (format 3). */
  q(r, fmt >= 3 ? spmu_status_of(applicable) : lp->r.global_status);
  q(r, mem ? mem->addr : 0);
  q(r, mem ? mem->source : 0);
  q(r, mem ? mem->latency : 0);
  if (fmt == 1)
    return;
  q(r, m->ip);       /* B0H EventingIP */
  q(r, m->tx_abort); /* B8H TX abort information */
  if (fmt >= 3)
    q(r, m->tsc); /* C0H TSC */
}

/* Does the record take the DATA_CFG groups? Only when the counter it is
 * for (the highest-priority applicable one: PMC0 first, GP before fixed)
 * has its ADAPTIVE bit (decisions.md #29). */
static bool adaptive_groups(const spmu_lp *lp, uint32_t applicable)
{
  unsigned c = spmu_ctz32(applicable);
  if (c < SPMU_MAX_GP)
    return (lp->r.evtsel[c] >> 34) & 1;
  /* FIXED_CTR_CTRL bit 32 + 4j: fixed counter j's ADAPTIVE bit. */
  return (lp->r.fixed_ctr_ctrl >> (32 + 4 * (c - SPMU_CTR_FIXED(0)))) & 1;
}

/* Adaptive PEBS (PEBS_BASELINE): Basic, then MemInfo, GPR, XMM, LBR as
 * MSR_PEBS_DATA_CFG selects (SDM 18.9.2). */
static void record_adaptive(struct rec *r, const spmu_lp *lp,
                            const spmu_machine_state *m,
                            const spmu_mem_access *mem, uint32_t applicable)
{
  uint64_t cfg = adaptive_groups(lp, applicable) ? lp->r.pebs_data_cfg : 0;
  unsigned i, nlbr = (unsigned)(cfg >> 24 & 0xff) + 1;

  if (nlbr > LBR_MAX)
    nlbr = LBR_MAX;
  r->len = 8; /* the format/size qword is written last */
  q(r, m->ip);
  q(r, spmu_status_of(applicable));
  q(r, m->tsc);
  if (cfg & 1) { /* MemInfo */
    q(r, mem ? mem->addr : 0);
    q(r, mem ? mem->source : 0);
    q(r, mem ? mem->latency : 0);
    q(r, m->tx_abort);
  }
  if (cfg & 2) { /* GPR: RFLAGS, RIP, then RAX..R15 by register number */
    q(r, m->rflags);
    q(r, record_ip(lp, m));
    for (i = 0; i < 16; i++)
      q(r, m->gpr[i]);
  }
  if (cfg & 4) /* XMM0-15 */
    for (i = 0; i < 16; i++) {
      q(r, m->xmm[i][0]);
      q(r, m->xmm[i][1]);
    }
  if (cfg & 8) /* LBR: most recent first, zeros past the stack */
    for (i = 0; i < nlbr; i++) {
      bool have = i < m->nlbr;
      q(r, have ? m->lbr[i].from : 0);
      q(r, have ? m->lbr[i].to : 0);
      q(r, have ? m->lbr[i].info : 0);
    }
  /* Bits 47:0 echo DATA_CFG, 63:48 hold the record size. */
  spmu_put_le(r->b, (uint64_t)r->len << 48 | (cfg & GENMASK64(47, 0)), 8);
}

/* The model's LBR stack into m->lbr, most recent first, as adaptive PEBS's
 * LBR group holds it (SDM 18.9.2); returns the count. */
static unsigned lbr_group(const spmu_lp *lp, spmu_machine_state *m)
{
  spmu_lbr_entry e[LBR_MAX];
  unsigned n = spmu_lbr_entries(lp, e, LBR_MAX), i;

  if (n > LBR_MAX)
    n = LBR_MAX;
  for (i = 0; i < n; i++) {
    m->lbr[i].from = e[i].from;
    m->lbr[i].to = e[i].to;
    m->lbr[i].info = e[i].info;
  }
  return n;
}

static void build(struct rec *r, spmu_lp *lp, const spmu_clock *clk,
                  const struct ds *d, uint32_t applicable)
{
  const spmu_host *h = &lp->core->host;
  const struct spmu_applied *a = &lp->core->a;
  spmu_machine_state m;
  unsigned fmt =
      (unsigned)((lp->r.perf_capabilities & SPMU_PERFCAP_PEBS_FMT_MASK) >>
                 SPMU_PERFCAP_PEBS_FMT_SHIFT);

  memset(&m, 0, sizeof m);
  if (h->machine_state)
    h->machine_state(h->opaque, lp, &m);
  /* The LBR group is the model's own stack when the profile has LBRs;
   * the host's entries only stand in for a host that keeps its own. */
  if (a->caps & (CAP(LBR) | CAP(ARCH_LBR)))
    m.nlbr = lbr_group(lp, &m);
  r->len = 0;
  if (!d->wide)
    record_narrow(r, lp, &m);
  else if (a->caps & CAP(BASELINE))
    record_adaptive(r, lp, &m, clk->mem, applicable);
  else
    record_legacy(r, lp, fmt > 3 ? 3 : fmt, &m, clk->mem, applicable);
}

/* --- the assist ---------------------------------------------------------- */

/* The record of one assist (SDM 17.4.9, 18.4.4), shared by the
 * architectural PEBS and NetBurst's (18.15.7): load the PEBS buffer
 * fields, build the record, check the bounds, read the counter-reset slots
 * `slots` (bit c: slot c) into reset[c], write the record and the new
 * index. Nothing is written unless every read succeeded and the record
 * fits. Returns SPMU_TICK_PEBS with *threshold = the new index reached
 * the interrupt threshold, else SPMU_TICK_PEBS_LOST (| MEM_FAULT).
 * Reports SPMU_EV_PEBS (for the counters `counters`, as the event numbers
 * them) or SPMU_EV_PEBS_DROP. */
static unsigned pebs_record(spmu_lp *lp, const spmu_clock *clk,
                            uint32_t applicable, uint32_t slots,
                            uint64_t counters, uint64_t *reset, bool *threshold)
{
  bool tell = spmu_reporting(lp->core);
  uint64_t next, at;
  uint8_t idx[8];
  struct rec r;
  struct ds d = {0};
  uint32_t m;

  *threshold = false;
  if (!ds_load(lp, clk, true, &d))
    goto fault;
  build(&r, lp, clk, &d, applicable);
  /* SDM 17.4.9: the record must fit below the absolute maximum, or the
   * assist is skipped entirely. */
  if (d.index > d.max || d.max - d.index < r.len) {
    if (tell)
      report_rec(lp, SPMU_EV_PEBS_DROP, &d, d.index, 0, counters,
                 SPMU_DROP_BOUNDS);
    return SPMU_TICK_PEBS_LOST;
  }
  for (m = slots; m; m &= m - 1) {
    unsigned c = spmu_ctz32(m);
    uint8_t b[8];
    if (!mem_read(lp, &d, reset_addr(&d, c), b, 8))
      goto fault;
    reset[c] = spmu_get_le(b, 8);
  }
  at = d.index;
  next = d.index + r.len;
  spmu_put_le(idx, next, d.wide ? 8 : 4);
  if (!mem_write(lp, &d, d.index, r.b, r.len) ||
      !mem_write(lp, &d, index_addr(&d), idx, d.wide ? 8 : 4))
    goto fault;
  *threshold = next >= d.threshold;
  d.index = next;
  if (tell)
    report_rec(lp, SPMU_EV_PEBS, &d, at, (uint32_t)r.len, counters, 0);
  return SPMU_TICK_PEBS;
fault:
  if (tell)
    report_rec(lp, SPMU_EV_PEBS_DROP, &d, d.index, 0, counters,
               SPMU_DROP_MEM_FAULT);
  return SPMU_TICK_PEBS_LOST | SPMU_TICK_MEM_FAULT;
}

unsigned spmu_pebs_assist(spmu_lp *lp, const spmu_clock *clk,
                          uint32_t applicable, bool *threshold)
{
  const struct spmu_applied *a = &lp->core->a;
  uint64_t reset[SPMU_NCTR];
  unsigned ticks;
  uint32_t m;

  ticks = pebs_record(lp, clk, applicable, applicable,
                      spmu_status_of(applicable), reset, threshold);
  if (ticks != SPMU_TICK_PEBS)
    return ticks;
  /* Reload every applicable counter from its reset slot and clear its
   * overflow status (SDM 18.4.4.4). */
  for (m = applicable; m; m &= m - 1) {
    unsigned c = spmu_ctz32(m);
    uint64_t old = lp->r.ctr[c];
    lp->r.ctr[c] = reset[c] & a->width_mask[c];
    if (spmu_reporting(lp->core))
      spmu_emit_ctr(lp, SPMU_EV_RELOAD, SPMU_STATUS_BIT(c), old, lp->r.ctr[c],
                    0);
  }
  lp->r.global_status &= ~spmu_status_of(applicable);
  return SPMU_TICK_PEBS;
}

unsigned spmu_nb_pebs_assist(spmu_lp *lp, const spmu_clock *clk,
                             unsigned counter, uint64_t *reset, bool *threshold)
{
  uint64_t slot[1];
  unsigned ticks;

  /* SDM 17.4.9 Figure 17-5 / 17-8: one "PEBS counter reset" field, at
   * 20H (32-bit layout) or 40H (64-bit), slot 0 of reset_addr(). */
  ticks = pebs_record(lp, clk, 0, 1, BIT64(counter), slot, threshold);
  if (ticks == SPMU_TICK_PEBS)
    *reset = slot[0];
  return ticks;
}

/* --- the branch trace store ---------------------------------------------- */

/* The branch-trace bits of the debug control MSR: IA32_DEBUGCTL (SDM
 * 17.4.1 Figure 17-3) or, on NetBurst, MSR_DEBUGCTLA (17.11.1 Figure
 * 17-12: TR 2, BTS 3, BTINT 4, BTS_OFF_OS 5, BTS_OFF_USR 6). */
struct bts_bits {
  uint64_t tr, bts, btint, off_os, off_usr;
};

static const struct bts_bits *bts_bits(const spmu_lp *lp)
{
  static const struct bts_bits debugctl = {
      SPMU_DEBUGCTL_TR, SPMU_DEBUGCTL_BTS, SPMU_DEBUGCTL_BTINT,
      SPMU_DEBUGCTL_BTS_OFF_OS, SPMU_DEBUGCTL_BTS_OFF_USR};
  static const struct bts_bits debugctla = {BIT64(2), BIT64(3), BIT64(4),
                                            BIT64(5), BIT64(6)};
  return (lp->core->a.caps & CAP(NETBURST)) ? &debugctla : &debugctl;
}

bool spmu_bts_stores(const spmu_lp *lp, const spmu_clock *clk)
{
  const struct bts_bits *b;
  uint64_t dbg = lp->r.debugctl;

  if (!clk->branch) /* most clocks: no branch, nothing to look up */
    return false;
  b = bts_bits(lp);
  if ((dbg & (b->tr | b->bts)) != (b->tr | b->bts))
    return false;
  return !(dbg & (clk->cpl == 0 ? b->off_os : b->off_usr));
}

unsigned spmu_bts_store(spmu_lp *lp, const spmu_clock *clk, bool *threshold)
{
  const spmu_branch *br = clk->branch;
  unsigned w, size, why = SPMU_DROP_BOUNDS;
  uint8_t rec[24], idx[8];
  uint64_t next, at;
  struct ds d = {0};

  *threshold = false;
  if (!ds_load(lp, clk, false, &d))
    goto fault;
  /* A record is from, to and flags (bit 4: predicted), 8 bytes each in
   * the 64-bit layout, 4 in the 32-bit one (SDM 17.4.8 Figure 17-4). */
  w = d.wide ? 8 : 4;
  size = 3 * w;
  spmu_put_le(rec, br->from, w);
  spmu_put_le(rec + w, br->to, w);
  spmu_put_le(rec + 2 * w, br->predicted ? 0x10 : 0, w);
  /* With BTINT the buffer is not circular: no record past the absolute
   * maximum (decisions.md #34). Without it, the index wraps to the base
   * when the next record would not fit. */
  at = d.index;
  if (at > d.max || d.max - at < size) {
    if (lp->r.debugctl & bts_bits(lp)->btint) {
      why = SPMU_DROP_FULL;
      goto full;
    }
    at = d.buf_base;
    if (at > d.max || d.max - at < size)
      goto full;
  }
  next = at + size;
  spmu_put_le(idx, next, w);
  if (!mem_write(lp, &d, at, rec, size) ||
      !mem_write(lp, &d, index_addr(&d), idx, w))
    goto fault;
  /* SDM 17.4.9.3: reaching the interrupt threshold interrupts, whatever
   * BTINT says ("it's not enough to clear the BTINT flag"); software that
   * wants none sets the threshold past the absolute maximum. The caller
   * sets OvfBuf and requests the PMI (spmu_buffer_threshold). */
  *threshold = next >= d.threshold;
  d.index = next;
  if (spmu_reporting(lp->core))
    report_rec(lp, SPMU_EV_BTS, &d, at, size, 0, 0);
  return SPMU_TICK_BTS;
full:
  if (spmu_reporting(lp->core))
    report_rec(lp, SPMU_EV_BTS_DROP, &d, d.index, 0, 0, why);
  return 0;
fault:
  if (spmu_reporting(lp->core))
    report_rec(lp, SPMU_EV_BTS_DROP, &d, d.index, 0, 0, SPMU_DROP_MEM_FAULT);
  return SPMU_TICK_MEM_FAULT;
}
