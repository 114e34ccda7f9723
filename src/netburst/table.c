/* SPDX-License-Identifier: MIT */
/* The NetBurst event table (SDM Vol. 3B Tables 19-28 non-retirement,
 * 19-29 at-retirement, 19-30 models 3/4/6, 19-34 thread specificity) and
 * the lookup that programs an event by name.
 *
 * Only events, select codes and mask bits live here; which ESCRs a unit
 * has, their addresses, the counters they feed and the CCCR select value
 * come from the register catalogue (src/regs/catalog.c, Table 18-63).
 *
 * Left out: b2b_cycles, bnr, snoop and response (Table 19-28 names no
 * mask bit for them and gives CCCR select 03H, which no FSB ESCR has in
 * Table 18-63), and x87_SIMD_moves_uop (Table 19-34 lists its mask bits
 * but no table gives its event select). Mask bits that only Table 19-34
 * names (BSQ_cache_reference 6, 7, 11; memory_complete 2, 3; the
 * UNCONDITIONAL bit of the branch-type events; WC_Buffer 2) are included.
 */
#include <ctype.h>
#include <string.h>

#include "regs/applied.h"
#include "softpmu/error.h"
#include "softpmu/netburst.h"

#define AR SPMU_NB_EV_AT_RETIREMENT
#define PEBS SPMU_NB_EV_PEBS
#define BOTH 3u /* either ESCR of the pair */

/* Not formatted: the SDM's event table, as laid out. */
/* clang-format off */
/* IOQ_allocation / IOQ_active_entries (Table 19-28; bit names 0-4 from
 * Table 19-34). */
#define IOQ_MASKS                                                            \
  {"ReqA0", "ReqA1", "ReqA2", "ReqA3", "ReqA4", "ALL_READ", "ALL_WRITE",     \
   "MEM_UC", "MEM_WC", "MEM_WT", "MEM_WP", "MEM_WB", NULL, "OWN", "OTHER",   \
   "PREFETCH"}
#define BSQ_ALLOC_MASKS                                                      \
  {"REQ_TYPE0", "REQ_TYPE1", "REQ_LEN0", "REQ_LEN1", NULL, "REQ_IO_TYPE",    \
   "REQ_LOCK_TYPE", "REQ_CACHE_TYPE", "REQ_SPLIT_TYPE", "REQ_DEM_TYPE",      \
   "REQ_ORD_TYPE", "MEM_TYPE0", "MEM_TYPE1", "MEM_TYPE2"}
#define BRANCH_TYPE_MASKS                                                    \
  {"UNCONDITIONAL", "CONDITIONAL", "CALL", "RETURN", "INDIRECT"}
/* The FIRM uop events count with bit 15 (ALL). */
#define ALL15                                                                \
  {[15] = "ALL"}

static const spmu_nb_event events[] = {
  /* ---- Table 19-28: non-retirement ---- */
  {"TC_deliver_mode", SPMU_NB_TC, 0x01, BOTH, 0, 0x00FF,
   {"DD", "DB", "DI", "BD", "BB", "BI", "ID", "IB"},
   "cycles in each trace-cache deliver / build mode pair"},
  {"BPU_fetch_request", SPMU_NB_BPU, 0x03, BOTH, 0, 0, {"TCMISS"},
   "instruction fetch requests by the branch prediction unit"},
  {"ITLB_reference", SPMU_NB_ITLB, 0x18, BOTH, 0, 0, {"HIT", "MISS", "HIT_UC"},
   "ITLB translations"},
  {"memory_cancel", SPMU_NB_DAC, 0x02, BOTH, 0, 0,
   {[2] = "ST_RB_FULL", [3] = "64K_CONF"}, "cancelled DAC requests"},
  {"memory_complete", SPMU_NB_SAAT, 0x08, BOTH, 0, 0,
   {"LSC", "SSC", "USC", "ULC"}, "completed split / UC loads and stores"},
  {"load_port_replay", SPMU_NB_SAAT, 0x04, BOTH, 0, 0, {[1] = "SPLIT_LD"},
   "replays at the load port"},
  {"store_port_replay", SPMU_NB_SAAT, 0x05, BOTH, 0, 0, {[1] = "SPLIT_ST"},
   "replays at the store port"},
  {"MOB_load_replay", SPMU_NB_MOB, 0x03, BOTH, 0, 0,
   {[1] = "NO_STA", [3] = "NO_STD", [4] = "PARTIAL_DATA", [5] = "UNALGN_ADDR"},
   "loads replayed by the memory order buffer"},
  {"page_walk_type", SPMU_NB_PMH, 0x01, BOTH, 0, 0x0003, {"DTMISS", "ITMISS"},
   "page walks by the page miss handler"},
  {"BSQ_cache_reference", SPMU_NB_BSU, 0x0C, BOTH, 0, 0,
   {"RD_2ndL_HITS", "RD_2ndL_HITE", "RD_2ndL_HITM", "RD_3rdL_HITS",
    "RD_3rdL_HITE", "RD_3rdL_HITM", "WR_2ndL_HIT", "WR_3rdL_HIT",
    "RD_2ndL_MISS", "RD_3rdL_MISS", "WR_2ndL_MISS", "WR_3rdL_MISS"},
   "2nd / 3rd level cache references seen by the bus unit"},
  {"IOQ_allocation", SPMU_NB_FSB, 0x03, BOTH, 0, 0, IOQ_MASKS,
   "bus transactions allocated in the IOQ"},
  {"IOQ_active_entries", SPMU_NB_FSB, 0x1A, 2u, 0, 0, IOQ_MASKS,
   "active IOQ entries (clipped at 15); MSR_FSB_ESCR1 only"},
  {"FSB_data_activity", SPMU_NB_FSB, 0x17, BOTH, 0, 0x003F,
   {"DRDY_DRV", "DRDY_OWN", "DRDY_OTHER", "DBSY_DRV", "DBSY_OWN",
    "DBSY_OTHER"},
   "DRDY / DBSY events on the front side bus"},
  {"BSQ_allocation", SPMU_NB_BSU, 0x05, 1u, 0, 0, BSQ_ALLOC_MASKS,
   "allocations in the bus sequence unit; MSR_BSU_ESCR0 only"},
  {"bsq_active_entries", SPMU_NB_BSU, 0x06, 2u, 0, 0, BSQ_ALLOC_MASKS,
   "active BSQ entries (clipped at 15); MSR_BSU_ESCR1 only"},
  {"SSE_input_assist", SPMU_NB_FIRM, 0x34, BOTH, 0, 0x8000, ALL15,
   "assists for SSE/SSE2/SSE3 input operands"},
  {"packed_SP_uop", SPMU_NB_FIRM, 0x08, BOTH, 0, 0x8000, ALL15,
   "packed single-precision uops"},
  {"packed_DP_uop", SPMU_NB_FIRM, 0x0C, BOTH, 0, 0x8000, ALL15,
   "packed double-precision uops"},
  {"scalar_SP_uop", SPMU_NB_FIRM, 0x0A, BOTH, 0, 0x8000, ALL15,
   "scalar single-precision uops"},
  {"scalar_DP_uop", SPMU_NB_FIRM, 0x0E, BOTH, 0, 0x8000, ALL15,
   "scalar double-precision uops"},
  {"64bit_MMX_uop", SPMU_NB_FIRM, 0x02, BOTH, 0, 0x8000, ALL15,
   "uops on 64-bit SIMD integer operands"},
  {"128bit_MMX_uop", SPMU_NB_FIRM, 0x1A, BOTH, 0, 0x8000, ALL15,
   "uops on 128-bit SIMD integer operands"},
  {"x87_FP_uop", SPMU_NB_FIRM, 0x04, BOTH, 0, 0x8000, ALL15,
   "x87 floating-point uops"},
  {"TC_misc", SPMU_NB_TC, 0x06, BOTH, 0, 0, {[4] = "FLUSH"},
   "trace-cache flushes (counted twice each)"},
  {"global_power_events", SPMU_NB_FSB, 0x13, BOTH, 0, 0, {"RUNNING"},
   "cycles the processor is not stopped (non-halted clockticks, 18.17.1)"},
  {"tc_ms_xfer", SPMU_NB_MS, 0x05, BOTH, 0, 0, {"CISC"},
   "uop delivery switched from the trace cache to the MS ROM"},
  {"uop_queue_writes", SPMU_NB_MS, 0x09, BOTH, 0, 0,
   {"FROM_TC_BUILD", "FROM_TC_DELIVER", "FROM_ROM"},
   "uops written to the uop queue"},
  {"retired_mispred_branch_type", SPMU_NB_TBPU, 0x05, BOTH, 0, 0,
   BRANCH_TYPE_MASKS, "retiring mispredicted branches by type"},
  {"retired_branch_type", SPMU_NB_TBPU, 0x04, BOTH, 0, 0, BRANCH_TYPE_MASKS,
   "retiring branches by type"},
  {"resource_stall", SPMU_NB_ALF, 0x01, BOTH, 0, 0, {[5] = "SBFULL"},
   "allocator stalls"},
  {"WC_Buffer", SPMU_NB_DAC, 0x05, BOTH, 0, 0x0007,
   {"WCB_EVICTS", "WCB_FULL_EVICT", "WCB_HITM_EVICT"},
   "write-combining buffer evictions"},
  /* ---- Table 19-29: at-retirement ---- */
  {"front_end_event", SPMU_NB_CRU2, 0x08, BOTH, AR | PEBS, 0,
   {"NBOGUS", "BOGUS"}, "retired uops tagged by front-end tagging"},
  {"execution_event", SPMU_NB_CRU2, 0x0C, BOTH, AR | PEBS, 0,
   {"NBOGUS0", "NBOGUS1", "NBOGUS2", "NBOGUS3", "BOGUS0", "BOGUS1", "BOGUS2",
    "BOGUS3"},
   "retired uops tagged by execution tagging"},
  {"replay_event", SPMU_NB_CRU2, 0x09, BOTH, AR | PEBS, 0,
   {"NBOGUS", "BOGUS"}, "retired uops tagged by replay tagging"},
  {"instr_retired", SPMU_NB_CRU0, 0x02, BOTH, AR, 0,
   {"NBOGUSNTAG", "NBOGUSTAG", "BOGUSNTAG", "BOGUSTAG"},
   "retired instructions, bogus or not, front-end tagged or not"},
  {"uops_retired", SPMU_NB_CRU0, 0x01, BOTH, AR, 0, {"NBOGUS", "BOGUS"},
   "retired uops"},
  {"uop_type", SPMU_NB_RAT, 0x02, BOTH, AR, 0,
   {[1] = "TAGLOADS", [2] = "TAGSTORES"},
   "front-end tagging of loads / stores (counts nothing itself)"},
  {"branch_retired", SPMU_NB_CRU2, 0x06, BOTH, AR, 0,
   {"MMNP", "MMNM", "MMTP", "MMTM"},
   "retired branches: (not) taken, (mis)predicted"},
  {"mispred_branch_retired", SPMU_NB_CRU0, 0x03, BOTH, AR, 0, {"NBOGUS"},
   "retired mispredicted branches"},
  {"x87_assist", SPMU_NB_CRU2, 0x03, BOTH, AR, 0,
   {"FPSU", "FPSO", "POAO", "POAU", "PREA"},
   "retired x87 instructions that needed an assist"},
  {"machine_clear", SPMU_NB_CRU2, 0x02, BOTH, AR, 0,
   {"CLEAR", [2] = "MOCLEAR", [6] = "SMCLEAR"},
   "cycles / occurrences of machine clears"},
  /* ---- Table 19-30: models 3, 4, 6 ---- */
  {"instr_completed", SPMU_NB_CRU0, 0x07, BOTH, AR | SPMU_NB_EV_MODEL_346, 0,
   {"NBOGUS", "BOGUS"}, "instructions completed and retired"},
};
/* clang-format on */
#define NEVENTS (sizeof(events) / sizeof(events[0]))

static const char *const unit_names[] = {
    [SPMU_NB_BSU] = "BSU",     [SPMU_NB_FSB] = "FSB",   [SPMU_NB_FIRM] = "FIRM",
    [SPMU_NB_FLAME] = "FLAME", [SPMU_NB_DAC] = "DAC",   [SPMU_NB_MOB] = "MOB",
    [SPMU_NB_PMH] = "PMH",     [SPMU_NB_SAAT] = "SAAT", [SPMU_NB_U2L] = "U2L",
    [SPMU_NB_BPU] = "BPU",     [SPMU_NB_IS] = "IS",     [SPMU_NB_ITLB] = "ITLB",
    [SPMU_NB_CRU0] = "CRU0",   [SPMU_NB_IQ] = "IQ",     [SPMU_NB_RAT] = "RAT",
    [SPMU_NB_SSU] = "SSU",     [SPMU_NB_MS] = "MS",     [SPMU_NB_TBPU] = "TBPU",
    [SPMU_NB_TC] = "TC",       [SPMU_NB_IX] = "IX",     [SPMU_NB_ALF] = "ALF",
    [SPMU_NB_CRU2] = "CRU2",   [SPMU_NB_CRU4] = "CRU4",
};

const char *spmu_nb_unit_name(unsigned unit)
{
  return unit >= 1 && unit <= SPMU_NB_NUNITS ? unit_names[unit] : NULL;
}

const spmu_nb_event *spmu_nb_event_at(unsigned i)
{
  return i < NEVENTS ? &events[i] : NULL;
}

const spmu_nb_event *spmu_nb_event_of(unsigned unit, unsigned evsel)
{
  size_t i;

  for (i = 0; i < NEVENTS; i++)
    if (events[i].unit == unit && events[i].evsel == evsel)
      return &events[i];
  return NULL;
}

/* Case-insensitive equality of s[0..len) and the whole of name. */
static bool name_is(const char *s, size_t len, const char *name)
{
  size_t i;

  if (!name || strlen(name) != len)
    return false;
  for (i = 0; i < len; i++)
    if (tolower((unsigned char)s[i]) != tolower((unsigned char)name[i]))
      return false;
  return true;
}

static const spmu_nb_event *find_event(const char *s, size_t len)
{
  size_t i;

  for (i = 0; i < NEVENTS; i++)
    if (name_is(s, len, events[i].name))
      return &events[i];
  return NULL;
}

static int find_mask(const spmu_nb_event *e, const char *s, size_t len,
                     uint16_t *mask)
{
  unsigned k;

  for (k = 0; k < 16; k++)
    if (name_is(s, len, e->mask_names[k])) {
      *mask |= (uint16_t)(1u << k);
      return SPMU_OK;
    }
  return SPMU_ENOENT;
}

static uint16_t defined_masks(const spmu_nb_event *e)
{
  uint16_t m = 0;
  unsigned k;

  for (k = 0; k < 16; k++)
    if (e->mask_names[k])
      m |= (uint16_t)(1u << k);
  return m;
}

/* The unit's ESCR pair in the catalogue (Table 18-63). */
static const struct spmu_reg_def *escr_def(unsigned unit)
{
  size_t i;

  for (i = 0; i < spmu_catalog_len; i++)
    if (spmu_catalog[i].escr && spmu_catalog[i].escr->unit == unit)
      return &spmu_catalog[i];
  return NULL;
}

/* Steps 2-4 of SDM 18.15.5.1: the ESCRs of the pair that may count e (its ESCR
 * restrictions), the counters each feeds and their addresses; with a
 * profile, only the ESCRs it has. */
static int fill_escrs(const spmu_profile *p, spmu_nb_event_sel *out)
{
  const struct spmu_reg_def *d = escr_def(out->event->unit);
  struct spmu_applied a;
  unsigned k;
  bool any = false;

  if (!d)
    return SPMU_ENOMSR;
  if (p) {
    if (spmu_profile_validate(p, NULL, 0) != SPMU_OK)
      return SPMU_EINVAL;
    spmu_applied_init(&a, p);
  }
  out->cccr_select = d->escr->sel;
  for (k = 0; k < d->count; k++) {
    const struct spmu_msr_rt *m;
    if (!(out->event->escrs >> k & 1))
      continue;
    if (p && (!(m = spmu_applied_find(&a, d->addr + k)) || m->def != d))
      continue;
    out->escr_addr[k] = d->addr + k;
    out->counters[k] = d->escr->ctrs[k];
    any = true;
  }
  return any ? SPMU_OK : SPMU_ENOMSR;
}

int spmu_nb_event_parse(const spmu_profile *p, const char *spec,
                        spmu_nb_event_sel *out)
{
  const char *colon;
  size_t len;
  int rc;

  if (!spec || !out)
    return SPMU_EINVAL;
  memset(out, 0, sizeof *out);
  colon = strchr(spec, ':');
  len = colon ? (size_t)(colon - spec) : strlen(spec);
  out->event = find_event(spec, len);
  if (!out->event)
    return SPMU_ENOENT;
  while (colon) {
    const char *s = colon + 1;
    colon = strchr(s, ':');
    len = colon ? (size_t)(colon - s) : strlen(s);
    rc = find_mask(out->event, s, len, &out->mask);
    if (rc != SPMU_OK)
      return rc;
  }
  if (!out->mask)
    out->mask = defined_masks(out->event);
  /* ESCR[30:25] event select, ESCR[24:9] event mask (SDM 18.15.1). */
  out->escr_value = (uint64_t)out->event->evsel << 25 | (uint64_t)out->mask
                                                            << 9;
  return fill_escrs(p, out);
}
