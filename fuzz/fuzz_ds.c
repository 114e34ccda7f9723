/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the DS save area, PEBS assists and the branch trace
 * store, with random DS pointers, random management
 * fields and host memory callbacks that fail at random.
 *
 * The guest's memory is sparse: a few windows of WSIZE bytes at bases the
 * input chooses (the null page, around 4 GiB, the edges of the canonical
 * halves, the top of the address space, anywhere). Everything else fails,
 * and during a delivery each callback may also fail by the input's
 * decision. The input programs the DS area (DS_AREA anywhere, the eight
 * management fields and the counter-reset slots from structured or raw
 * values: overlapping, wrapping, huge, misaligned), DEBUGCTL (TR, BTS,
 * BTINT, BTS_OFF_*), PEBS_ENABLE, PEBS_DATA_CFG, counters close to their
 * overflow, and delivers clocks with memory accesses and branches.
 *
 * Every memory callback of a delivery is checked as it happens. A "use"
 * of the DS area is one PEBS assist or one branch record; it starts with
 * the read of its buffer's four management fields (4w bytes at the DS
 * area + 0 for BTS, + 4w for PEBS; w = 8 in the 64-bit layout, 4 in the
 * 32-bit one), which tells the harness the base, index, absolute maximum
 * and threshold the model works with. Properties:
 *   ds-read         a read is a use's field read or, in a PEBS use before
 *                   its record, an 8-byte counter-reset slot (40H + 8c,
 *                   20H + 8c in the 32-bit layout; slot 0 on NetBurst)
 *   ds-write        (a) a write is the use's record, exactly at its index
 *                   (BTS: or at its base when the index has no room and
 *                   BTINT is clear), then the use's index field (DS area
 *                   + w for BTS, + 5w for PEBS, w bytes) with the index
 *                   just past the record; nothing else, nothing after
 *   ds-record-size  a PEBS record is 40 bytes in the 32-bit layout, 144
 *                   on NetBurst, 144/176/192/200 for formats 0/1/2/3+,
 *                   adaptive: 32 + the DATA_CFG groups its header names,
 *                   at most 32 LBR entries (decision 65; its header holds
 *                   its size and 0 or DATA_CFG); a BTS record is 3w bytes
 *   ds-bounds       (b) a record ends at or below the absolute maximum
 *   ds-order        at most one PEBS use then one BTS use per delivery (it
 *                   stops after either); no callback after a failed one
 *                   in the same use; callbacks only while delivering, and
 *                   for the delivering logical processor; machine_state
 *                   only in a PEBS use, between its field read and record
 *   ds-ticks        SPMU_TICK_PEBS iff a PEBS use completed, PEBS_LOST iff
 *                   one did not (then it failed, or the record could not
 *                   fit), BTS iff a BTS use completed (a BTS use may store
 *                   nothing only when no record fits, decision 34),
 *                   MEM_FAULT iff a callback failed; reaching the
 *                   threshold gives a PMI (and OvfBuf where the profile
 *                   has it); OvfBuf appears only so
 *   ds-fault-state  (c) after a failed callback every MSR of every logical
 *                   processor reads as it did at the use's first callback
 *                   (the clock counted, nothing of the assist done: read
 *                   from inside the callback), but for the freeze and
 *                   OvfBuf of a later use of the clock that completed; and
 *                   the core is exactly as a reference core makes it whose
 *                   memory, instead, serves that use fields with no room
 *                   for a record (the skipped assist of SDM 17.4.9) and
 *                   the other uses as the core's did: same ticks but
 *                   MEM_FAULT, clocks, PMIs, snapshot (docs/decisions.md
 *                   #28: "a failed guest access is the same event").
 *                   Without a completed use, GLOBAL_STATUS loses no bit.
 *   deadline-agree  (arch cores) the delivery ends at spmu_deadline or at
 *                   the clocks asked for, and a use happens only at the
 *                   deadline; spmu_deadline touches no memory
 *   (d) the invariants of invariants.h after the steps of a sample (about
 *       one in SAMPLE, harness.h; every step when the tests replay).
 *
 * Input layout (a read past the end yields zeros, so any byte string is a
 * valid input; fuzz/gen_seeds.py writes seeds in this layout):
 *   byte 0          the profile (mod NPROFILES, profiles[] below)
 *   NWIN windows    a selector byte each (window_base), maybe operands
 *   then steps, up to MAX_STEPS: an opcode byte (mod 16, op_table) and
 *   the operands the op reads.
 *
 * A violation prints "fuzz_ds: profile P, step N (OP): <property>:
 * <detail>" and calls abort(). Build with -DSPMU_FUZZ_TRACE to print every
 * step. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_STEPS 128
#define NWIN 4
#define WSIZE 0x1000u
#define MAX_USES 2 /* a PEBS assist, then a branch record */
/* About one step in SAMPLE runs the whole invariant sweep (harness.h);
 * the DS properties below are checked on every step. */
#define SAMPLE 16

/* MSR numbers (SDM Vol. 4 Table 2-2; Table 2-53 for NetBurst). */
#define MSR_PMC0 0xC1u
#define MSR_EVTSEL0 0x186u
#define MSR_DEBUGCTL 0x1D9u /* MSR_DEBUGCTLA on NetBurst */
#define MSR_FIXED_CTR0 0x309u
#define MSR_FIXED_CTR_CTRL 0x38Du
#define MSR_GLOBAL_STATUS 0x38Eu
#define MSR_GLOBAL_CTRL 0x38Fu
#define MSR_GLOBAL_OVF_CTRL 0x390u
#define MSR_PEBS_ENABLE 0x3F1u
#define MSR_PEBS_DATA_CFG 0x3F2u /* MSR_PEBS_MATRIX_VERT on NetBurst */
#define MSR_DS_AREA 0x600u
#define MSR_NB_CTR0 0x300u
#define MSR_NB_CCCR0 0x360u
#define MSR_NB_CRU_ESCR2 0x3CCu

#define EVTSEL_USR (UINT64_C(1) << 16)
#define EVTSEL_OS (UINT64_C(1) << 17)
#define EVTSEL_INT (UINT64_C(1) << 20)
#define EVTSEL_EN (UINT64_C(1) << 22)
#define EVTSEL_ADAPTIVE (UINT64_C(1) << 34)
#define STATUS_OVF_BUF (UINT64_C(1) << 62)
#define FREEZE_BITS (UINT64_C(3) << 11) /* DEBUGCTL FREEZE_LBRS, _PERFMON */

/* NetBurst (SDM 18.15; tests/test_netburst.c): CCCR and ESCR fields,
 * MSR_PEBS_ENABLE's UOP_TAG and ENABLE_PEBS_MY_THR. */
#define CCCR_EN (UINT64_C(1) << 12)
#define CCCR_SEL(s) ((uint64_t)(s) << 13)
#define CCCR_ANY_THREAD (UINT64_C(3) << 16)
#define CCCR_PMI_T0 (UINT64_C(1) << 26)
#define CCCR_OVF (UINT64_C(1) << 31)
#define ESCR_EVSEL(e) ((uint64_t)(e) << 25)
#define ESCR_MASK(m) ((uint64_t)(m) << 9)
#define ESCR_T0 (UINT64_C(3) << 2)
#define ESCR_T1 (UINT64_C(3) << 0)
#define NB_PEBS_UOP_TAG (UINT64_C(1) << 24)
#define NB_PEBS_MY_THR (UINT64_C(1) << 25)
#define NB_REPLAY_EVENT 0x09 /* replay_event, CRU_ESCR2/3, CCCR select 5 */

/* The profiles: every preset with a DS area, and the layouts they do not
 * cover (the 32-bit layout with architectural PEBS, the 64-bit one on
 * NetBurst, formats 0 and 2 on later parts, 32- and 64-bit counters,
 * four threads). */
static const char *const profiles[] = {
    "core-duo",
    "core2",
    "nehalem",
    "sandybridge",
    "haswell",
    "skylake",
    "icelake",
    "sapphirerapids",
    "pentium4",
    "pentium4-noht",
    "base=skylake,dtes64=0",
    "base=core2,dtes64=0",
    "base=icelake,dtes64=0",
    "base=pentium4,dtes64=1",
    "base=pentium4-noht,ds_cpl=1,dtes64=1",
    "base=icelake,perf_capabilities=0x30c5",
    "base=haswell,perf_capabilities=0x3284",
    "base=nehalem,threads=4",
    "base=skylake,gp_width=32,fixed_width=32",
    "base=sapphirerapids,gp_width=64,fixed_width=64,threads=1",
};
#define NPROFILES (sizeof profiles / sizeof profiles[0])

/* ---- the guest's memory and the host callbacks ------------------------ */

struct run;

enum { USE_PEBS, USE_BTS };

/* One use of the DS area by the model (see the top of the file). */
typedef struct ds_use {
  int buf;       /* USE_PEBS or USE_BTS */
  bool fields;   /* its field read succeeded */
  uint64_t f[4]; /* base, index, absolute maximum, threshold */
  bool failed;   /* a callback of it failed: it must end there */
  bool record;   /* its record write came (maybe failing) */
  uint64_t rec_la;
  size_t rec_len;
  bool index; /* its index write came (maybe failing) */
  uint64_t new_index;
} ds_use;

typedef struct window {
  uint64_t base;
  bool present;
  uint8_t b[WSIZE];
} window;

/* The host of one core: the core under test, or the reference core of
 * ds-fault-state (whose callbacks never fail). */
typedef struct host {
  struct run *r;
  bool ref;
  window w[NWIN];
  /* The delivery under way. */
  bool active;
  const spmu_lp *lp; /* the delivering logical processor */
  bool wide;         /* the clock's DS layout */
  uint64_t ds;       /* the DS area as that layout addresses it */
  unsigned calls;
  uint8_t fail_mode; /* core under test: which callbacks fail */
  uint64_t fail_bits;
  bool no_room[MAX_USES]; /* reference core: uses served unfit fields */
  unsigned nuse;
  ds_use use[MAX_USES];
  bool any_failed;
  unsigned pmis;
} host;

/* The skeleton's part (harness.h) holds the input, the core under test,
 * the reference core (spare[0]) and the snapshots: pre (before the
 * delivery), buf[0] and buf[1] (scratch). */
typedef struct run {
  fz_run f;
  bool netburst, baseline, dtes64;
  unsigned fmt; /* PEBS record format, 0-3 (4+ counts as 3) */
  uint64_t tr, bts, btint, off_os, off_usr; /* DEBUGCTL(A) bits */
  host main, refh;
  /* Every MSR of every logical processor (ctx->msr order) at the first
   * callback of each use of the delivery under way. */
  uint64_t at_use[MAX_USES][SPMU_MAX_THREADS][SPMU_INV_MAX_MSRS];
  uint64_t ms_seed; /* the machine state the assists record */
  unsigned ms_nlbr;
} run;

/* The window holding the len bytes at la, or NULL. */
static window *window_of(host *h, uint64_t la, size_t len)
{
  unsigned i;

  for (i = 0; i < NWIN; i++) {
    window *w = &h->w[i];
    if (w->present && la >= w->base && len <= WSIZE &&
        la - w->base <= WSIZE - len)
      return w;
  }
  return NULL;
}

/* The harness's own access to guest memory (setting up the DS area):
 * byte by byte, each byte wherever a window holds it. */
static void mem_put(host *h, uint64_t la, uint64_t v, unsigned n)
{
  unsigned i;
  for (i = 0; i < n; i++) {
    window *w = window_of(h, la + i, 1);
    if (w)
      w->b[la + i - w->base] = (uint8_t)(v >> (8 * i));
  }
}

static bool mem_get(host *h, uint64_t la, unsigned n, uint64_t *v)
{
  window *w = window_of(h, la, n);
  if (!w)
    return false;
  *v = spmu_get_le(w->b + (la - w->base), n);
  return true;
}

/* 40H + 8c (64-bit layout) / 20H + 8c (32-bit): counter c's reset slot. */
static bool reset_slot(const run *r, const host *h, uint64_t la, size_t len)
{
  uint64_t off = la - (h->ds + (h->wide ? 0x40 : 0x20));

  if (len != 8 || off % 8)
    return false;
  return r->netburst ? off == 0 : off / 8 < SPMU_MAX_GP + SPMU_MAX_FIXED;
}

/* Does a record of len bytes fit at x below the absolute maximum? */
static bool fits(const ds_use *u, uint64_t x, uint64_t len)
{
  return x <= u->f[2] && u->f[2] - x >= len;
}

/* The size of an adaptive record whose header names DATA_CFG groups cfg
 * (the adaptive PEBS record, SDM Vol. 3B "Adaptive PEBS"): Basic 32,
 * MemInfo 32, GPR 144, XMM 256, LBR 24 for each
 * of LBR_ENTRIES + 1 entries, at most 32 (docs/decisions.md #65). */
static uint64_t adaptive_size(uint64_t cfg)
{
  uint64_t nlbr = (cfg >> 24 & 0xff) + 1;

  if (nlbr > 32)
    nlbr = 32;
  return 32 + ((cfg & 1) ? 32 : 0) + ((cfg & 2) ? 144 : 0) +
         ((cfg & 4) ? 256 : 0) + ((cfg & 8) ? 24 * nlbr : 0);
}

/* The PEBS record size of this profile and layout; 0 for adaptive. */
static uint64_t pebs_size(const run *r, bool wide)
{
  static const uint64_t legacy[4] = {144, 176, 192, 200};

  if (!wide)
    return 40;
  if (r->netburst)
    return 144;
  return r->baseline ? 0 : legacy[r->fmt];
}

/* The largest adaptive record lp may write now. */
static uint64_t adaptive_max(const spmu_lp *lp)
{
  uint64_t cfg = 0;
  spmu_host_rdmsr(lp, MSR_PEBS_DATA_CFG, &cfg);
  return adaptive_size(cfg & spmu_width_mask(48));
}

/* ds-record-size and ds-bounds for a PEBS record. */
static void check_pebs_record(host *h, const spmu_lp *lp, const ds_use *u,
                              uint64_t la, const uint8_t *buf, size_t len)
{
  run *r = h->r;
  uint64_t want = pebs_size(r, h->wide);

  if (la != u->f[1])
    fz_die("ds-write: a PEBS record of %zu bytes at %#llx; the PEBS index "
           "is %#llx",
           len, ull(la), ull(u->f[1]));
  if (want == 0) {
    uint64_t cfg = 0, hdr = len >= 8 ? spmu_get_le(buf, 8) : 0;
    uint64_t hcfg = hdr & spmu_width_mask(48);
    spmu_host_rdmsr(lp, MSR_PEBS_DATA_CFG, &cfg);
    cfg &= spmu_width_mask(48);
    if (len < 32 || hdr >> 48 != len || (hcfg != 0 && hcfg != cfg))
      fz_die("ds-record-size: an adaptive record of %zu bytes with header "
             "%#llx (DATA_CFG %#llx): the header must hold the size and 0 or "
             "DATA_CFG",
             len, ull(hdr), ull(cfg));
    want = adaptive_size(hcfg);
  }
  if (len != want)
    fz_die("ds-record-size: a PEBS record of %zu bytes, expected %llu (%s "
           "layout%s)",
           len, ull(want), h->wide ? "64-bit" : "32-bit",
           pebs_size(r, h->wide) ? "" : ", adaptive: the header's groups");
  if (!fits(u, la, len))
    fz_die("ds-bounds: a PEBS record of %zu bytes at %#llx passes the "
           "absolute maximum %#llx",
           len, ull(la), ull(u->f[2]));
}

/* ds-write and ds-bounds for a BTS record (decisions.md #34). */
static void check_bts_record(host *h, const spmu_lp *lp, const ds_use *u,
                             uint64_t la, size_t len)
{
  run *r = h->r;
  uint64_t size = h->wide ? 24 : 12, dbg = 0;

  spmu_host_rdmsr(lp, MSR_DEBUGCTL, &dbg);
  if (len != size)
    fz_die("ds-record-size: a BTS record of %zu bytes, expected %llu", len,
           ull(size));
  if (fits(u, u->f[1], size) ? la != u->f[1]
                             : (la != u->f[0] || (dbg & r->btint)))
    fz_die("ds-write: a BTS record at %#llx; base %#llx, index %#llx, "
           "absolute maximum %#llx, BTINT %d",
           ull(la), ull(u->f[0]), ull(u->f[1]), ull(u->f[2]),
           (dbg & r->btint) != 0);
  if (!fits(u, la, size))
    fz_die("ds-bounds: a BTS record at %#llx passes the absolute maximum "
           "%#llx",
           ull(la), ull(u->f[2]));
}

/* Does callback number h->calls fail? As the input decided for this
 * delivery (never on the reference core). */
static bool decide_fail(host *h, bool write)
{
  unsigned k = h->calls - 1;

  if (h->ref)
    return false;
  switch (h->fail_mode) {
  case 4:
    return h->fail_bits >> (k % 64) & 1;
  case 5:
    return !write && (h->fail_bits >> (k % 64) & 1);
  case 6:
    return write && (h->fail_bits >> (k % 64) & 1);
  case 7:
    return k == h->fail_bits % 8;
  default:
    return false;
  }
}

static void check_caller(host *h, const spmu_lp *lp, const char *what)
{
  if (!h->active)
    fz_die("ds-order: %s outside a delivery", what);
  if (lp != h->lp)
    fz_die("ds-order: %s for LP%u while delivering to LP%u", what,
           spmu_lp_index(lp), spmu_lp_index(h->lp));
}

/* Every MSR of every logical processor of the core under test, from
 * inside a callback: the state the assist starts from. */
static void note_msrs(run *r, uint64_t v[SPMU_MAX_THREADS][SPMU_INV_MAX_MSRS])
{
  unsigned t, i;

  for (t = 0; t < r->f.ctx->prof.threads; t++)
    for (i = 0; i < r->f.ctx->nmsr; i++) {
      v[t][i] = 0;
      spmu_host_rdmsr(spmu_core_lp(r->f.core, t), r->f.ctx->msr[i].addr,
                      &v[t][i]);
    }
}

static int read_mem(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                    size_t len)
{
  host *h = opaque;
  run *r = h->r;
  unsigned w = h->wide ? 8 : 4;
  ds_use *u = h->nuse ? &h->use[h->nuse - 1] : NULL;
  window *win;
  int kind = -1;

  h->calls++;
  check_caller(h, lp, "read_mem");
  if (len == 4 * w && la == h->ds)
    kind = USE_BTS;
  else if (len == 4 * w && la == h->ds + 4 * w)
    kind = USE_PEBS;
  if (kind >= 0) {
    /* A new use: PEBS (at most once) before BTS (at most once). */
    if (h->nuse == MAX_USES || (u && (u->buf == USE_BTS || kind == USE_PEBS)))
      fz_die("ds-order: a %s use after a %s use in one delivery",
             kind == USE_PEBS ? "PEBS" : "BTS",
             u->buf == USE_PEBS ? "PEBS" : "BTS");
    u = &h->use[h->nuse++];
    memset(u, 0, sizeof *u);
    u->buf = kind;
    if (!h->ref)
      note_msrs(r, r->at_use[h->nuse - 1]);
    if (h->ref && h->no_room[h->nuse - 1]) {
      /* base = index = 1, absolute maximum 0: no record fits anywhere */
      memset(buf, 0, len);
      ((uint8_t *)buf)[0] = 1;
      ((uint8_t *)buf)[w] = 1;
      u->f[0] = u->f[1] = 1;
      u->fields = true;
      return 0;
    }
  } else if (!u || u->buf != USE_PEBS || !u->fields || u->record ||
             !reset_slot(r, h, la, len)) {
    fz_die("ds-read: %zu bytes at %#llx: not a DS management field read "
           "(DS area %#llx, %s layout) nor a counter-reset slot of a PEBS "
           "assist before its record",
           len, ull(la), ull(h->ds), w == 8 ? "64-bit" : "32-bit");
  } else if (u->failed) {
    fz_die("ds-order: a read after a failed callback of the same use");
  }
  win = window_of(h, la, len);
  if (!win || decide_fail(h, false)) {
    u->failed = true;
    h->any_failed = true;
    return -1;
  }
  memcpy(buf, win->b + (la - win->base), len);
  if (kind >= 0) {
    unsigned i;
    for (i = 0; i < 4; i++)
      u->f[i] = spmu_get_le((const uint8_t *)buf + i * w, w);
    u->fields = true;
  }
  return 0;
}

static int write_mem(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                     size_t len)
{
  host *h = opaque;
  unsigned w = h->wide ? 8 : 4;
  ds_use *u = h->nuse ? &h->use[h->nuse - 1] : NULL;
  window *win;

  h->calls++;
  check_caller(h, lp, "write_mem");
  if (!u)
    fz_die("ds-write: %zu bytes at %#llx before any DS field read", len,
           ull(la));
  if (u->failed)
    fz_die("ds-order: a write after a failed callback of the same use");
  if (!u->record) {
    if (u->buf == USE_PEBS)
      check_pebs_record(h, lp, u, la, buf, len);
    else
      check_bts_record(h, lp, u, la, len);
    u->record = true;
    u->rec_la = la;
    u->rec_len = len;
  } else if (!u->index) {
    uint64_t at = h->ds + (u->buf == USE_PEBS ? 5 * w : w);
    uint64_t v = len == w ? spmu_get_le(buf, w) : 0;
    if (la != at || len != w || v != u->rec_la + u->rec_len)
      fz_die("ds-write: %zu bytes (%#llx) at %#llx after the record; "
             "expected the %s index field at %#llx = %#llx",
             len, ull(v), ull(la), u->buf == USE_PEBS ? "PEBS" : "BTS", ull(at),
             ull(u->rec_la + u->rec_len));
    u->index = true;
    u->new_index = v;
  } else {
    fz_die("ds-write: %zu bytes at %#llx after the record and the index", len,
           ull(la));
  }
  win = window_of(h, la, len);
  if (!win || decide_fail(h, true)) {
    u->failed = true;
    h->any_failed = true;
    return -1;
  }
  memcpy(win->b + (la - win->base), buf, len);
  return 0;
}

/* The machine state depends on the input's seed and the logical processor
 * only, so that the core and its reference see the same. */
static void machine_state(void *opaque, spmu_lp *lp, spmu_machine_state *st)
{
  host *h = opaque;
  uint64_t s = h->r->ms_seed, k = spmu_lp_index(lp);
  const ds_use *u = h->nuse ? &h->use[h->nuse - 1] : NULL;
  unsigned i;

  check_caller(h, lp, "machine_state");
  if (!u || u->buf != USE_PEBS || !u->fields || u->failed || u->record)
    fz_die("ds-order: machine_state outside a PEBS assist (after its "
           "fields, before its record)");
  st->rflags = 0x202 | (s & 0xC0);
  st->ip = 0x401000 + (s & 0xFFFF) + 0x100000 * k;
  st->next_ip = st->ip + 1 + (s >> 16 & 7);
  for (i = 0; i < 16; i++) {
    st->gpr[i] = s * (i + 1) + k;
    st->xmm[i][0] = ~st->gpr[i];
    st->xmm[i][1] = st->gpr[i] << 1;
  }
  st->tsc = s ^ 0x5555;
  st->tx_abort = s >> 40;
  st->nlbr = h->r->ms_nlbr;
  for (i = 0; i < 32; i++) {
    st->lbr[i].from = 0x402000 + i;
    st->lbr[i].to = 0x403000 + i;
    st->lbr[i].info = s + i;
  }
}

static void on_pmi(void *opaque, spmu_lp *lp)
{
  host *h = opaque;
  (void)lp;
  h->pmis++;
}

/* ---- helpers ------------------------------------------------------------ */

static const spmu_msr_info *msr_of(const run *r, uint32_t addr)
{
  return spmu_inv_msr(r->f.ctx, addr);
}

/* v without the MSR's reserved bits (so that the write takes). */
static uint64_t valid(const run *r, uint32_t msr, uint64_t v)
{
  const spmu_msr_info *m = msr_of(r, msr);
  return m ? v & ~m->reserved : v;
}

static void host_write(spmu_lp *lp, uint32_t msr, uint64_t v)
{
  int rc = spmu_host_wrmsr(lp, msr, v);

  TRACE("  LP%u host WRMSR %#x = %#llx -> %s\n", spmu_lp_index(lp), msr, ull(v),
        spmu_errname(rc));
  if (rc != SPMU_OK) /* a counter within its width, defined status bits */
    fz_die("host-write: %#x = %#llx refused: %s", msr, ull(v),
           spmu_errname(rc));
}

static uint64_t rd(const spmu_lp *lp, uint32_t msr)
{
  uint64_t v = 0;
  spmu_host_rdmsr(lp, msr, &v);
  return v;
}

/* The DS area of lp in a layout. */
static uint64_t ds_base(const spmu_lp *lp, bool wide)
{
  uint64_t ds = rd(lp, MSR_DS_AREA);
  return wide ? ds : (uint32_t)ds;
}

/* A present fixed counter: the first at or after start % 16. */
static unsigned fixed_index(uint32_t mask, unsigned start)
{
  unsigned i = start % 16;
  while (!(mask >> i & 1))
    i = (i + 1) % 16;
  return i;
}

/* ---- choosing addresses ---------------------------------------------------
 */

/* An address: mostly in or next to a window, else an edge of the address
 * space or anything. */
static uint64_t pick_addr(run *r)
{
  uint8_t s = u8(&r->f.in);
  const window *w = &r->main.w[(s >> 4) % NWIN];

  switch (s & 15) {
  case 6:
    return w->base + WSIZE - u8(&r->f.in) % 64;
  case 7:
    return w->base - (1 + u8(&r->f.in) % 64);
  case 8:
    return 0;
  case 9:
    return UINT64_MAX - u8(&r->f.in);
  case 10:
    return UINT64_C(0xFFFFFFFF) - u8(&r->f.in);
  case 11:
    return UINT64_C(0x100000000) + u8(&r->f.in);
  case 12:
    return u64(&r->f.in);
  case 13:
    return u32(&r->f.in);
  case 14:
    return UINT64_C(0x7FFFFFFFFFFF) - u8(&r->f.in);
  case 15:
    return UINT64_C(0xFFFF800000000000) + u8(&r->f.in);
  default:
    return w->base + u16(&r->f.in) % (WSIZE + 64);
  }
}

static uint64_t window_base(run *r, unsigned i)
{
  uint8_t s = u8(&r->f.in);

  switch (s % 10) {
  case 0:
    return 0; /* the null page */
  case 1:
    return UINT64_C(0x10000) * (1 + (uint64_t)u8(&r->f.in));
  case 2:
    return UINT64_C(0x100000000) - WSIZE / 2; /* across 4 GiB */
  case 3:
    return UINT64_C(0x100000000) - WSIZE; /* ends at 4 GiB */
  case 4:
    return UINT64_C(0x800000000000) - WSIZE; /* top of the low half */
  case 5:
    return UINT64_C(0xFFFF800000000000); /* bottom of the high half */
  case 6:
    return (uint64_t)0 - WSIZE; /* the top of the address space */
  case 7:
    return u64(&r->f.in);
  case 8:
    return u32(&r->f.in);
  default:
    return i ? r->main.w[i - 1].base + WSIZE : UINT64_C(0x20000);
  }
}

static void setup_windows(run *r)
{
  unsigned i, j;

  for (i = 0; i < NWIN; i++) {
    window *w = &r->main.w[i];
    w->base = window_base(r, i);
    if (w->base > (uint64_t)0 - WSIZE)
      w->base = (uint64_t)0 - WSIZE;
    w->present = true;
    for (j = 0; j < i; j++) {
      const window *o = &r->main.w[j];
      if (o->present && w->base <= o->base + (WSIZE - 1) &&
          o->base <= w->base + (WSIZE - 1))
        w->present = false; /* overlaps: no window */
    }
    TRACE("window %u: %#llx%s\n", i, ull(w->base),
          w->present ? "" : " (overlaps, absent)");
  }
}

/* ---- operations -----------------------------------------------------------
 */

/* IA32_DS_AREA = an address (canonical, or anything: then #GP). Operands:
 * lp, a flag byte (bit 0: keep non-canonical), the address. */
static void op_ds_area(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t f = u8(&r->f.in);
  uint64_t v = pick_addr(r);

  if (!(f & 1)) /* sign-extend bit 47 */
    v = (v & spmu_width_mask(47)) | ((v >> 47 & 1) ? ~spmu_width_mask(47) : 0);
  fz_guest_write(lp, MSR_DS_AREA, v);
}

/* One management field from structured choices: rel plus k records,
 * misaligned, one short or long, or any address. */
static uint64_t field_value(run *r, uint64_t rel, uint64_t rec)
{
  uint8_t s = u8(&r->f.in);
  uint64_t k = (s >> 3) % 8;

  switch (s & 7) {
  case 0:
  case 1:
    return rel + k * rec;
  case 2:
    return rel + k * rec + 1 + u8(&r->f.in) % 7; /* misaligned */
  case 3:
    return rel + k * rec - 1; /* one byte short */
  case 4:
    return rel - k * rec; /* below: overlapping, or wrapping */
  case 5:
    return UINT64_MAX - k * rec; /* huge, wraps on any addition */
  default:
    return pick_addr(r);
  }
}

/* The management fields of lp's DS area (SDM 17.4.9), for
 * the BTS buffer, the PEBS buffer or both, and the counter-reset slots,
 * written in the 64- or 32-bit layout (whatever the profile uses).
 * Operands: lp, a flag byte (bit 0: 32-bit layout, bit 1: no BTS fields,
 * bit 2: no PEBS fields, bit 3: no reset slots), for each buffer its base
 * (an address) and index, maximum, threshold (field_value), then the reset
 * value selector. */
static void op_ds_fields(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t f = u8(&r->f.in);
  bool wide = !(f & 1);
  unsigned w = wide ? 8 : 4, b, c;
  uint64_t ds = ds_base(lp, wide), reset;

  for (b = 0; b < 2; b++) {
    uint64_t rec = b == 0 ? 3 * w : pebs_size(r, wide);
    uint64_t base, index, max, thr;
    if (f & (2u << b))
      continue;
    if (rec == 0)
      rec = adaptive_max(lp);
    base = pick_addr(r);
    index = field_value(r, base, rec);
    max = field_value(r, index, rec);
    thr = field_value(r, index, rec);
    mem_put(&r->main, ds + 4 * w * b, base, w);
    mem_put(&r->main, ds + 4 * w * b + w, index, w);
    mem_put(&r->main, ds + 4 * w * b + 2 * w, max, w);
    mem_put(&r->main, ds + 4 * w * b + 3 * w, thr, w);
    TRACE("  LP%u DS %#llx (%s) %s base/index/max/thr %#llx/%#llx/%#llx/"
          "%#llx\n",
          spmu_lp_index(lp), ull(ds), wide ? "64" : "32", b ? "PEBS" : "BTS",
          ull(base), ull(index), ull(max), ull(thr));
  }
  if (f & 8)
    return;
  switch (u8(&r->f.in) % 4) {
  case 0:
    reset = (uint64_t)0 - (1 + (uint64_t)u8(&r->f.in)); /* near overflow */
    break;
  case 1:
    reset = u64(&r->f.in); /* bits above the width: the model cuts them */
    break;
  case 2:
    reset = 0;
    break;
  default:
    reset = UINT64_MAX;
    break;
  }
  for (c = 0; c < SPMU_MAX_GP + SPMU_MAX_FIXED; c++)
    mem_put(&r->main, ds + (wide ? 0x40 : 0x20) + 8 * c, reset, 8);
}

/* One field or reset slot: its current value moved a little, or an
 * address. Operands: lp, which (bit 7: 32-bit layout; low bits: field
 * 0-7, else reset slot), a mode byte, the value. */
static void op_ds_poke(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t which = u8(&r->f.in), mode = u8(&r->f.in);
  bool wide = !(which & 0x80);
  unsigned w = wide ? 8 : 4, k = which & 0x3F, n = w;
  uint64_t ds = ds_base(lp, wide), at, v = 0;

  if (k < 8) {
    at = ds + (uint64_t)k * w;
  } else {
    at = ds + (wide ? 0x40 : 0x20) + 8 * (uint64_t)((k - 8) % 24);
    n = 8;
  }
  mem_get(&r->main, at, n, &v);
  switch (mode % 4) {
  case 0:
    v += (uint64_t)(int8_t)u8(&r->f.in);
    break;
  case 1:
    v = pick_addr(r);
    break;
  case 2:
    v -= (uint64_t)u8(&r->f.in) * (wide ? 8 : 4);
    break;
  default:
    v = u64(&r->f.in);
    break;
  }
  TRACE("  poke %#llx = %#llx (%u bytes)\n", ull(at), ull(v), n);
  mem_put(&r->main, at, v, n);
}

/* DEBUGCTL / DEBUGCTLA's branch-trace bits. Operands: lp, bits (0 TR,
 * 1 BTS, 2 BTINT, 3 BTS_OFF_OS, 4 BTS_OFF_USR, 5 freeze on PMI, 6 OR in
 * a raw value, 7 keep reserved bits), the raw value. */
static void op_debugctl(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t b = u8(&r->f.in);
  uint64_t v = ((b & 1) ? r->tr : 0) | ((b & 2) ? r->bts : 0) |
               ((b & 4) ? r->btint : 0) | ((b & 8) ? r->off_os : 0) |
               ((b & 16) ? r->off_usr : 0);

  if ((b & 32) && !r->netburst)
    v |= FREEZE_BITS;
  if (b & 64)
    v |= u64(&r->f.in);
  fz_guest_write(lp, MSR_DEBUGCTL, (b & 128) ? v : valid(r, MSR_DEBUGCTL, v));
}

/* MSR_PEBS_ENABLE, or MSR_PEBS_DATA_CFG / MSR_PEBS_MATRIX_VERT (same
 * address): structured or raw. Operands: lp, which (bit 0: DATA_CFG, bit
 * 1: raw with reserved bits, bit 2: 8 bytes), the value. */
static void op_pebs_regs(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  uint8_t which = u8(&r->f.in);
  uint32_t msr = (which & 1) ? MSR_PEBS_DATA_CFG : MSR_PEBS_ENABLE;
  uint64_t v;

  if (which & 4)
    v = u64(&r->f.in);
  else if (msr == MSR_PEBS_DATA_CFG) /* groups, LBR entries - 1 */
    v = (u8(&r->f.in) & 0xF) | (uint64_t)u8(&r->f.in) << 24;
  else /* GP enables, then LL or fixed enables */
    v = u8(&r->f.in) | (uint64_t)u8(&r->f.in) << 32 |
        (uint64_t)(u8(&r->f.in) & 0x87) << 24;
  fz_guest_write(lp, msr, (which & 2) ? v : valid(r, msr, v));
}

/* The PEBS event of an architectural counter: event lines the clocks can
 * carry (instructions, cycles, REF/TOPDOWN pseudo-encodings, branches,
 * load latency, loads, mispredicts). */
static const uint8_t events[][2] = {
    {0xC0, 0x00}, {0x3C, 0x00}, {0x00, 0x03}, {0x00, 0x04},
    {0xC4, 0x00}, {0xCD, 0x01}, {0xD0, 0x81}, {0xC5, 0x00},
};
#define NEVENTS (sizeof events / sizeof events[0])

/* A PEBS counter k events from its overflow, as a driver programs it:
 * GLOBAL_CTRL off, the counter, its select (or FIXED_CTR_CTRL), the PEBS
 * enable, GLOBAL_CTRL on. On NetBurst: PEBS on replay_event with the
 * delivering thread's IQ_COUNTER4/5 (SDM 18.15.7, 18.16.3). Operands: lp,
 * which (low 3 bits: counter, bit 3: a fixed counter, bit 4: PMI, bit 5:
 * ADAPTIVE, bit 6: load latency, bit 7: no GLOBAL_CTRL), the event, k. */
static void op_program(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  const spmu_profile *p = &r->f.ctx->prof;
  uint8_t which = u8(&r->f.in), ev = u8(&r->f.in);
  uint64_t k = 1 + (uint64_t)u8(&r->f.in), ctrl, en, gbit;
  const spmu_msr_info *m;
  uint32_t ctr;
  unsigned i;

  if (r->netburst) {
    unsigned t = spmu_lp_index(lp), c = 16 + t;
    fz_guest_write(lp, MSR_PEBS_ENABLE,
                   valid(r, MSR_PEBS_ENABLE,
                         NB_PEBS_UOP_TAG | NB_PEBS_MY_THR | (ev & 0x1F) | 1));
    fz_guest_write(lp, MSR_PEBS_DATA_CFG, (which & 0x40) ? 0x13 : 0x1);
    fz_guest_write(lp, MSR_NB_CRU_ESCR2 + t,
                   ESCR_EVSEL(NB_REPLAY_EVENT) | ESCR_MASK(1 | (ev >> 5)) |
                       (t ? ESCR_T1 : ESCR_T0));
    fz_guest_write(lp, MSR_NB_CCCR0 + c,
                   CCCR_SEL(5) | CCCR_ANY_THREAD | CCCR_EN |
                       ((which & 0x10) ? CCCR_PMI_T0 << t : 0));
    host_write(lp, MSR_NB_CTR0 + c, spmu_width_mask(40) - k + 1);
    return;
  }
  if (!p->gp)
    return;
  ctrl = rd(lp, MSR_GLOBAL_CTRL);
  if (!(which & 0x80))
    fz_guest_write(lp, MSR_GLOBAL_CTRL, 0);
  if ((which & 8) && r->baseline && p->fixed_mask) {
    uint64_t fctl = rd(lp, MSR_FIXED_CTR_CTRL);
    i = fixed_index(p->fixed_mask, which);
    ctr = MSR_FIXED_CTR0 + i;
    fctl &= ~(UINT64_C(0xF) << (4 * i)) & ~(UINT64_C(1) << (32 + 4 * i));
    fctl |= (uint64_t)(3 | ((which & 0x10) ? 8 : 0)) << (4 * i);
    fctl |= (which & 0x20) ? UINT64_C(1) << (32 + 4 * i) : 0;
    fz_guest_write(lp, MSR_FIXED_CTR_CTRL, valid(r, MSR_FIXED_CTR_CTRL, fctl));
    en = gbit = UINT64_C(1) << (32 + i);
  } else {
    uint64_t sel;
    i = which % p->gp;
    ctr = MSR_PMC0 + i;
    sel = events[ev % NEVENTS][0] | (uint64_t)events[ev % NEVENTS][1] << 8 |
          EVTSEL_USR | EVTSEL_OS | EVTSEL_EN |
          ((which & 0x10) ? EVTSEL_INT : 0) |
          ((which & 0x20) ? EVTSEL_ADAPTIVE : 0);
    fz_guest_write(lp, MSR_EVTSEL0 + i, valid(r, MSR_EVTSEL0 + i, sel));
    gbit = UINT64_C(1) << i;
    en = gbit | ((which & 0x40) ? UINT64_C(1) << (32 + i) : 0);
  }
  m = msr_of(r, ctr);
  if (m)
    host_write(lp, ctr,
               (spmu_width_mask(m->width) - k + 1) & spmu_width_mask(m->width));
  fz_guest_write(lp, MSR_PEBS_ENABLE,
                 valid(r, MSR_PEBS_ENABLE, rd(lp, MSR_PEBS_ENABLE) | en));
  fz_guest_write(lp, MSR_GLOBAL_CTRL, valid(r, MSR_GLOBAL_CTRL, ctrl | gbit));
}

/* A counter near its overflow, or GLOBAL_STATUS, through the host path.
 * Operands: lp, which (a counter index), the distance or the value. */
static void op_host_counter(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  const spmu_profile *p = &r->f.ctx->prof;
  uint8_t which = u8(&r->f.in);
  const spmu_msr_info *m;
  uint32_t msr;

  if (r->netburst)
    msr = MSR_NB_CTR0 + which % 18;
  else if ((which & 0x80) || !p->gp)
    msr = MSR_GLOBAL_STATUS;
  else if ((which & 0x40) && p->fixed_mask)
    msr = MSR_FIXED_CTR0 + fixed_index(p->fixed_mask, which);
  else
    msr = MSR_PMC0 + which % p->gp;
  m = msr_of(r, msr);
  if (!m)
    return;
  if (msr == MSR_GLOBAL_STATUS)
    host_write(lp, msr, u64(&r->f.in) & ~m->reserved);
  else
    host_write(lp, msr, spmu_width_mask(m->width) - u8(&r->f.in));
}

/* Any MSR of the profile, raw or without its reserved bits. Operands: lp,
 * the MSR's index, a mode, the value. */
static void op_wrmsr(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  const spmu_msr_info *m = &r->f.ctx->msr[u8(&r->f.in) % r->f.ctx->nmsr];
  uint8_t mode = u8(&r->f.in);
  uint64_t v = u64(&r->f.in);

  fz_guest_write(lp, m->addr, (mode & 1) ? v : v & ~m->reserved);
}

/* The PMI handler's acknowledgement: the status written back to OVF_CTRL
 * (NetBurst: OVF cleared in every CCCR). Operands: lp. */
static void op_ack(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  unsigned n;

  if (r->netburst) {
    for (n = 0; n < 18; n++) {
      uint64_t cccr = rd(lp, MSR_NB_CCCR0 + n);
      if (cccr & CCCR_OVF)
        fz_guest_write(lp, MSR_NB_CCCR0 + n, cccr & ~CCCR_OVF);
    }
    return;
  }
  if (msr_of(r, MSR_GLOBAL_OVF_CTRL))
    fz_guest_write(lp, MSR_GLOBAL_OVF_CTRL,
                   valid(r, MSR_GLOBAL_OVF_CTRL, rd(lp, MSR_GLOBAL_STATUS)));
}

/* Eight raw bytes into a window. Operands: the window, offset, bytes. */
static void op_mem(fz_run *fr)
{
  run *r = (run *)fr;
  window *w = &r->main.w[u8(&r->f.in) % NWIN];
  uint16_t off = u16(&r->f.in) % (WSIZE - 7);
  uint64_t v = u64(&r->f.in);

  mem_put(&r->main, w->base + off, v, 8);
}

/* The machine state of later assists. Operands: seed, LBR count. */
static void op_state(fz_run *fr)
{
  run *r = (run *)fr;
  r->ms_seed = u64(&r->f.in);
  r->ms_nlbr = u8(&r->f.in) % 33;
}

/* ---- delivery -------------------------------------------------------------
 */

typedef struct clockbuf {
  spmu_clock clk;
  spmu_event_line lines[4];
  spmu_mem_access mem;
  spmu_branch branch;
  spmu_nb_clock nb;
  spmu_nb_line nlines[3];
  spmu_nb_retire retire;
  bool has_mem, has_branch;
} clockbuf;

static uint32_t pick_count(run *r)
{
  uint8_t s = u8(&r->f.in);
  switch (s % 8) {
  case 0:
    return 0;
  case 5:
    return 1 + u8(&r->f.in);
  case 6:
    return u32(&r->f.in);
  case 7:
    return UINT32_MAX;
  default:
    return 1 + s % 3;
  }
}

/* The context, memory access and branch every clock kind shares. */
static void clock_extras(run *r, clockbuf *cb, uint8_t *cpl, uint8_t *flags)
{
  uint8_t m = u8(&r->f.in);

  *cpl = m & 3;
  *flags = (m & 4) ? SPMU_CLK_IA32E : 0;
  *flags |=
      (m & 8)
          ? (u8(&r->f.in) & (SPMU_CLK_IN_TX | SPMU_CLK_ENCLAVE | SPMU_CLK_SMM))
          : 0;
  cb->has_mem = (m & 16) != 0;
  cb->has_branch = (m & 32) != 0;
  if (m & 16) {
    cb->mem.addr = pick_addr(r);
    cb->mem.source = u8(&r->f.in);
    cb->mem.latency = u16(&r->f.in);
    cb->mem.store = (m >> 7) & 1;
  }
  if (m & 32) {
    cb->branch.from =
        (m & 64) ? u64(&r->f.in) : UINT64_C(0x400000) + u16(&r->f.in);
    cb->branch.to = pick_addr(r);
    cb->branch.predicted = (m >> 7) & 1;
  }
}

static void build_clock(run *r, clockbuf *cb)
{
  size_t i, n = u8(&r->f.in) % 5;

  memset(cb, 0, sizeof *cb);
  for (i = 0; i < n; i++) {
    uint8_t s = u8(&r->f.in);
    if (s < 0xE0) {
      cb->lines[i].event = events[s % NEVENTS][0];
      cb->lines[i].umask = events[s % NEVENTS][1];
    } else {
      cb->lines[i].event = u8(&r->f.in);
      cb->lines[i].umask = u8(&r->f.in);
    }
    cb->lines[i].count = pick_count(r);
  }
  cb->clk.lines = n ? cb->lines : NULL;
  cb->clk.nlines = n;
  clock_extras(r, cb, &cb->clk.cpl, &cb->clk.flags);
  cb->clk.mem = cb->has_mem ? &cb->mem : NULL;
  cb->clk.branch = cb->has_branch ? &cb->branch : NULL;
}

/* A NetBurst clock: a retiring group (replay-tagged loads for PEBS) and
 * a few ESCR lines. */
static void build_nb_clock(run *r, clockbuf *cb)
{
  uint8_t s;
  size_t i, n;

  memset(cb, 0, sizeof *cb);
  s = u8(&r->f.in);
  n = s % 4;
  for (i = 0; i < n; i++) {
    cb->nlines[i].unit = u8(&r->f.in) % (SPMU_NB_NUNITS + 1);
    cb->nlines[i].evsel = u8(&r->f.in) & 0x3F;
    cb->nlines[i].bit = u8(&r->f.in) & 15;
    cb->nlines[i].count = pick_count(r);
  }
  cb->nb.lines = n ? cb->nlines : NULL;
  cb->nb.nlines = n;
  if (!(s & 4)) {
    uint8_t k = u8(&r->f.in);
    cb->retire.uops = 1 + k % 3;
    cb->retire.instrs = 1;
    cb->retire.bogus = (k >> 2) & 1;
    cb->retire.kind = (k & 8) ? u8(&r->f.in) & 0x13 : 0x01;
    cb->retire.replay = (k & 16) ? u16(&r->f.in) : 0x1;
    cb->nb.retire = &cb->retire;
    cb->nb.nretire = 1;
  }
  cb->nb.inactive = (s & 8) ? u8(&r->f.in) & 3 : 0;
  clock_extras(r, cb, &cb->nb.cpl, &cb->nb.flags);
  cb->nb.branch = cb->has_branch ? &cb->branch : NULL;
}

typedef struct delivery {
  bool nb; /* spmu_deliver_netburst */
  const clockbuf *cb;
  uint64_t clocks;
  bool wide;
  unsigned k; /* the logical processor */
} delivery;

static int deliver_on(host *h, spmu_lp *lp, const delivery *d,
                      uint64_t *consumed)
{
  int rc;

  h->active = true;
  h->lp = lp;
  h->wide = d->wide;
  h->ds = ds_base(lp, d->wide);
  h->calls = 0;
  h->nuse = 0;
  h->any_failed = false;
  h->pmis = 0;
  rc = d->nb ? spmu_deliver_netburst(lp, &d->cb->nb, d->clocks, consumed)
             : spmu_deliver(lp, &d->cb->clk, d->clocks, consumed);
  h->active = false;
  return rc;
}

/* The first MSR (of any logical processor) in which the two cores
 * differ, else the first snapshot byte; NULL when they are the same. */
static const char *core_diff(run *r, char *buf, size_t len)
{
  unsigned t, i;
  size_t b;

  for (t = 0; t < r->f.ctx->prof.threads; t++)
    for (i = 0; i < r->f.ctx->nmsr; i++) {
      uint64_t x = 0, y = 0;
      uint32_t a = r->f.ctx->msr[i].addr;
      spmu_host_rdmsr(spmu_core_lp(r->f.core, t), a, &x);
      spmu_host_rdmsr(spmu_core_lp(r->f.spare[0], t), a, &y);
      if (x != y) {
        snprintf(buf, len, "LP%u %s = %#llx, reference %#llx", t,
                 r->f.ctx->msr[i].name, ull(x), ull(y));
        return buf;
      }
    }
  fz_save(&r->f, r->f.core, r->f.buf[0]);
  fz_save(&r->f, r->f.spare[0], r->f.buf[1]);
  for (b = 0; b < r->f.ctx->blob_len; b++)
    if (r->f.buf[0][b] != r->f.buf[1][b]) {
      snprintf(buf, len, "snapshot byte %zu of %zu: %#x, reference %#x", b,
               r->f.ctx->blob_len, r->f.buf[0][b], r->f.buf[1][b]);
      return buf;
    }
  return NULL;
}

/* ds-fault-state, directly: after failed use k, every MSR as at its
 * first callback. A later use of the clock that completed may have
 * raised its threshold PMI: OvfBuf and the freeze (GLOBAL_STATUS bits
 * added, GLOBAL_CTRL cleared, DEBUGCTL.LBR cleared). */
static void check_msrs_kept(run *r, unsigned k)
{
  const host *h = &r->main;
  bool later = false;
  unsigned t, i, j;

  for (j = k + 1; j < h->nuse; j++)
    later |= h->use[j].index && !h->use[j].failed;
  for (t = 0; t < r->f.ctx->prof.threads; t++)
    for (i = 0; i < r->f.ctx->nmsr; i++) {
      const spmu_msr_info *m = &r->f.ctx->msr[i];
      uint64_t was = r->at_use[k][t][i], now = 0;
      spmu_host_rdmsr(spmu_core_lp(r->f.core, t), m->addr, &now);
      if (now == was)
        continue;
      if (later && ((m->addr == MSR_GLOBAL_STATUS && (now & was) == was) ||
                    m->addr == MSR_GLOBAL_CTRL || m->addr == MSR_DEBUGCTL))
        continue;
      fz_die("ds-fault-state: after a %s assist whose callback failed, LP%u "
             "%s = %#llx; it was %#llx when the assist began",
             h->use[k].buf == USE_PEBS ? "PEBS" : "BTS", t, m->name, ull(now),
             ull(was));
    }
}

/* ds-fault-state against the reference core: from the snapshot before
 * the delivery, with the memory as it was then, the uses that failed here
 * served fields with no room for a record there. */
static void check_fault_state(run *r, const delivery *d, int rc,
                              uint64_t consumed)
{
  host *h = &r->main, *g = &r->refh;
  uint64_t done = 0;
  unsigned i;
  char diff[256];
  const char *what;
  int rg;

  for (i = 0; i < h->nuse; i++)
    if (h->use[i].failed)
      check_msrs_kept(r, i);
  if (spmu_core_restore(r->f.spare[0], r->f.pre, r->f.ctx->blob_len) != SPMU_OK)
    fz_die("ds-fault-state: the snapshot before the step does not restore");
  for (i = 0; i < MAX_USES; i++)
    g->no_room[i] = i < h->nuse && h->use[i].failed;
  rg = deliver_on(g, spmu_core_lp(r->f.spare[0], d->k), d, &done);
  if (g->nuse != h->nuse)
    fz_die("ds-fault-state: %u DS uses, %u on the reference core", h->nuse,
           g->nuse);
  for (i = 0; i < h->nuse; i++)
    if (!h->use[i].failed &&
        (!h->use[i].fields || !g->use[i].fields ||
         memcmp(h->use[i].f, g->use[i].f, sizeof h->use[i].f) != 0))
      return; /* a failed use wrote what a later one read: not comparable */
  if (rg != (rc & ~SPMU_TICK_MEM_FAULT) || done != consumed ||
      g->pmis != h->pmis)
    fz_die("ds-fault-state: ticks %#x, %llu clocks, %u PMIs after a failed "
           "callback; %#x, %llu, %u when the assist finds no room instead",
           (unsigned)rc, ull(consumed), h->pmis, (unsigned)rg, ull(done),
           g->pmis);
  what = core_diff(r, diff, sizeof diff);
  if (what)
    fz_die("ds-fault-state: after a failed callback the core differs from "
           "one whose assist found no room: %s",
           what);
}

/* ds-ticks for one delivery. */
static void check_ticks(run *r, const delivery *d, int rc, uint64_t status_pre,
                        uint64_t status)
{
  host *h = &r->main;
  const ds_use *pebs = NULL, *bts = NULL;
  bool completed = false, has_ovfbuf;
  const spmu_msr_info *st = msr_of(r, MSR_GLOBAL_STATUS);
  unsigned i;

  has_ovfbuf = st && !r->netburst && !(st->reserved & STATUS_OVF_BUF);
  for (i = 0; i < h->nuse; i++) {
    const ds_use *u = &h->use[i];
    bool done = u->index && !u->failed;
    if (u->buf == USE_PEBS)
      pebs = u;
    else
      bts = u;
    if (u->record && !u->index && !u->failed)
      fz_die("ds-write: a %s record without its index update",
             u->buf == USE_PEBS ? "PEBS" : "BTS");
    if (!done)
      continue;
    completed = true;
    if (u->new_index >= u->f[3] &&
        (!(rc & SPMU_TICK_PMI) || (has_ovfbuf && !(status & STATUS_OVF_BUF))))
      fz_die("ds-ticks: the %s index %#llx reached the threshold %#llx: "
             "ticks %#x, GLOBAL_STATUS %#llx (want a PMI%s)",
             u->buf == USE_PEBS ? "PEBS" : "BTS", ull(u->new_index),
             ull(u->f[3]), (unsigned)rc, ull(status),
             has_ovfbuf ? " and OvfBuf" : "");
  }
  if (!!(rc & SPMU_TICK_MEM_FAULT) != h->any_failed)
    fz_die("ds-ticks: ticks %#x, yet %s callback failed", (unsigned)rc,
           h->any_failed ? "a" : "no");
  if (!!(rc & SPMU_TICK_PEBS) != (pebs && pebs->index && !pebs->failed) ||
      !!(rc & SPMU_TICK_PEBS_LOST) != (pebs && !(pebs->index && !pebs->failed)))
    fz_die("ds-ticks: ticks %#x for %s", (unsigned)rc,
           !pebs          ? "no PEBS assist"
           : pebs->failed ? "a PEBS assist whose callback failed"
           : pebs->index  ? "a PEBS record written"
                          : "a PEBS assist that wrote nothing");
  if (pebs && pebs->fields && !pebs->record && !pebs->failed) {
    /* A drop without a failure: the record must not have fit. */
    uint64_t need = pebs_size(r, d->wide);
    const spmu_lp *lp = spmu_core_lp(r->f.core, d->k);
    bool fit = need ? fits(pebs, pebs->f[1], need)
                    : fits(pebs, pebs->f[1], 32) &&
                          fits(pebs, pebs->f[1], adaptive_max(lp));
    if (fit)
      fz_die("ds-ticks: a PEBS record dropped, though index %#llx + %llu "
             "bytes is within the absolute maximum %#llx",
             ull(pebs->f[1]), ull(need ? need : adaptive_max(lp)),
             ull(pebs->f[2]));
  }
  if (!!(rc & SPMU_TICK_BTS) != (bts && bts->index && !bts->failed))
    fz_die("ds-ticks: ticks %#x for %s", (unsigned)rc,
           bts && bts->index && !bts->failed ? "a branch record stored"
                                             : "no branch record stored");
  if (bts && bts->fields && !bts->record && !bts->failed) {
    uint64_t size = d->wide ? 24 : 12;
    uint64_t dbg = rd(spmu_core_lp(r->f.core, d->k), MSR_DEBUGCTL);
    if (fits(bts, bts->f[1], size) ||
        (!(dbg & r->btint) && fits(bts, bts->f[0], size)))
      fz_die("ds-ticks: no branch record, though one fits (base %#llx, "
             "index %#llx, absolute maximum %#llx, BTINT %d)",
             ull(bts->f[0]), ull(bts->f[1]), ull(bts->f[2]),
             (dbg & r->btint) != 0);
  }
  if (has_ovfbuf && (status & STATUS_OVF_BUF) &&
      !(status_pre & STATUS_OVF_BUF)) {
    bool reached = false;
    for (i = 0; i < h->nuse; i++)
      if (h->use[i].index && !h->use[i].failed &&
          h->use[i].new_index >= h->use[i].f[3])
        reached = true;
    if (!reached)
      fz_die("ds-ticks: OvfBuf set, yet no index reached its threshold");
  }
  if (!completed && st && (status_pre & ~status))
    fz_die("ds-fault-state: GLOBAL_STATUS %#llx -> %#llx lost bits with no "
           "completed assist",
           ull(status_pre), ull(status));
}

/* Deliver a clock (NetBurst: spmu_deliver_netburst, or spmu_deliver for
 * branch records only). Operands: lp, a mode byte (bit 0: NetBurst's own
 * delivery), the clock, the clock count, the failure mode and bits. */
static void op_deliver(fz_run *fr)
{
  run *r = (run *)fr;
  spmu_lp *lp = fz_pick_lp(&r->f);
  host *h = &r->main;
  clockbuf cb;
  delivery d;
  uint64_t dl = UINT64_MAX, consumed = 0, st_pre = 0, st = 0;
  uint8_t mode = u8(&r->f.in);
  int rc;

  memset(&d, 0, sizeof d);
  d.nb = r->netburst && !(mode & 1);
  d.cb = &cb;
  d.k = spmu_lp_index(lp);
  if (d.nb)
    build_nb_clock(r, &cb);
  else
    build_clock(r, &cb);
  d.wide = r->dtes64 || ((d.nb ? cb.nb.flags : cb.clk.flags) & SPMU_CLK_IA32E);
  if (!r->netburst) /* touches no memory: outside a delivery it dies */
    (void)spmu_deadline(lp, &cb.clk, &dl);
  d.clocks = pick_clocks(&r->f.in, dl);
  h->fail_mode = u8(&r->f.in) % 8;
  h->fail_bits = h->fail_mode >= 4 ? u32(&r->f.in) : 0;
  fz_take_pre(&r->f);
  memcpy(r->refh.w, h->w, sizeof h->w);
  st_pre = rd(lp, MSR_GLOBAL_STATUS);

  rc = deliver_on(h, lp, &d, &consumed);
  st = rd(lp, MSR_GLOBAL_STATUS);
  TRACE("  LP%u deliver%s %llu clocks (%s layout, DS %#llx, fail mode %u "
        "bits %#llx, deadline %llu) -> ticks %#x, %llu clocks, %u callbacks,"
        " %u uses\n",
        d.k, d.nb ? "_netburst" : "", ull(d.clocks),
        d.wide ? "64-bit" : "32-bit", ull(h->ds), h->fail_mode,
        ull(h->fail_bits), ull(dl), (unsigned)rc, ull(consumed), h->calls,
        h->nuse);
  if (rc < 0 || consumed == 0 || consumed > d.clocks)
    fz_die("deliver-result: %s (%d), %llu of %llu clocks", spmu_errname(rc), rc,
           ull(consumed), ull(d.clocks));
  if (!r->netburst && (consumed != (dl < d.clocks ? dl : d.clocks) ||
                       (h->nuse && consumed != dl)))
    fz_die("deadline-agree: deadline %llu, %llu clocks asked: %llu consumed, "
           "%u DS uses",
           ull(dl), ull(d.clocks), ull(consumed), h->nuse);
  check_ticks(r, &d, rc, st_pre, st);
  if (h->any_failed)
    check_fault_state(r, &d, rc, consumed);
}

/* ---- the run ---------------------------------------------------------------
 */

static const fz_op op_table[16] = {
    {"ds_area", op_ds_area},
    {"ds_fields", op_ds_fields},
    {"ds_poke", op_ds_poke},
    {"debugctl", op_debugctl},
    {"pebs_regs", op_pebs_regs},
    {"program", op_program},
    {"deliver", op_deliver},
    {"deliver", op_deliver},
    {"deliver", op_deliver},
    {"host_counter", op_host_counter},
    {"wrmsr", op_wrmsr},
    {"ack", op_ack},
    {"mem", op_mem},
    {"state", op_state},
    {"program", op_program},
    {"deliver", op_deliver},
};

static const fz_steps steps = {
    .ops = op_table,
    .nops = 16,
    .max_steps = MAX_STEPS,
    .sample = SAMPLE,
};

/* r for an input on profile p: the skeleton's part, the hosts, what the
 * profile's DS layout and DEBUGCTL(A) look like. */
static void run_init(run *r, reader in, const uint8_t *data, size_t size,
                     const spmu_profile *p)
{
  memset(r, 0, sizeof *r);
  fz_run_init(&r->f, in, data, size, p);
  r->main.r = r->refh.r = r;
  r->refh.ref = true;
  spmu_core_set_host(r->f.core, &(spmu_host){.opaque = &r->main,
                                             .pmi = on_pmi,
                                             .read_mem = read_mem,
                                             .write_mem = write_mem,
                                             .machine_state = machine_state});
  spmu_core_set_host(r->f.spare[0],
                     &(spmu_host){.opaque = &r->refh,
                                  .pmi = on_pmi,
                                  .read_mem = read_mem,
                                  .write_mem = write_mem,
                                  .machine_state = machine_state});
  r->netburst = (p->features & SPMU_FEAT_NETBURST) != 0;
  r->dtes64 = (p->features & SPMU_FEAT_DTES64) != 0;
  r->baseline = (p->perf_capabilities & SPMU_PERFCAP_PEBS_BASELINE) != 0;
  r->fmt = (unsigned)((p->perf_capabilities & SPMU_PERFCAP_PEBS_FMT_MASK) >>
                      SPMU_PERFCAP_PEBS_FMT_SHIFT);
  if (r->fmt > 3)
    r->fmt = 3;
  /* SDM 17.4.1 Figure 17-3 (IA32_DEBUGCTL), 17.11.1 Figure 17-12
   * (MSR_DEBUGCTLA). */
  if (r->netburst) {
    r->tr = UINT64_C(1) << 2;
    r->bts = UINT64_C(1) << 3;
    r->btint = UINT64_C(1) << 4;
    r->off_os = UINT64_C(1) << 5;
    r->off_usr = UINT64_C(1) << 6;
  } else {
    r->tr = UINT64_C(1) << 6;
    r->bts = UINT64_C(1) << 7;
    r->btint = UINT64_C(1) << 8;
    r->off_os = UINT64_C(1) << 9;
    r->off_usr = UINT64_C(1) << 10;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static run r; /* kept across inputs (its windows are 32 KiB) */
  reader in = {data, size};
  spmu_profile p;

  fz_at = (fz_where){.harness = "fuzz_ds"};
  if (!fz_profile_of(&in, profiles, NPROFILES, &p))
    fz_die("the profile does not parse");
  run_init(&r, in, data, size, &p);
  setup_windows(&r);
  fz_run_steps(&r.f, &steps);
  return 0;
}
