/* SPDX-License-Identifier: MIT */
/* softpmu-demo: embed the model, drive it as a PMU driver and a VMM would,
 * and print what the PMU did.
 *
 *   softpmu-demo [PROFILE]      PROFILE: a preset name or key=value list
 *                               (default: SPMU_PROFILE_DEFAULT,
 *                               sapphirerapids)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/softpmu.h>

static const spmu_profile *prof;

/* Print the fields of value that are non-zero, by SDM name. */
static void print_fields(uint32_t msr, uint64_t value)
{
  spmu_msr_info info;
  unsigned i;
  int shown = 0;

  if (spmu_msr_info_get(prof, msr, &info) != SPMU_OK)
    return;
  for (i = 0; i < info.nfields; i++) {
    spmu_field_info f;
    uint64_t v;
    if (spmu_msr_field_get(prof, msr, i, &f) != SPMU_OK)
      continue;
    spmu_msr_field_decode(prof, msr, f.name, value, &v);
    if (!v)
      continue;
    if (f.width == 1)
      printf("%s%s", shown++ ? ", " : "  [", f.name);
    else
      printf("%s%s=0x%" PRIx64, shown++ ? ", " : "  [", f.name, v);
  }
  if (shown)
    printf("]");
}

static const char *msr_name(uint32_t msr)
{
  static spmu_msr_info info;
  if (spmu_msr_info_get(prof, msr, &info) != SPMU_OK)
    snprintf(info.name, sizeof info.name, "MSR %#x", msr);
  return info.name;
}

static int wr(spmu_lp *lp, uint32_t msr, uint64_t v)
{
  int rc = spmu_wrmsr(lp, msr, v);
  printf("  WRMSR %-30s <- 0x%016" PRIx64 "  %s", msr_name(msr), v,
         rc == SPMU_OK ? "ok" : "#GP");
  if (rc == SPMU_OK)
    print_fields(msr, v);
  printf("\n");
  return rc;
}

static uint64_t rd(spmu_lp *lp, uint32_t msr)
{
  uint64_t v = 0;
  int rc = spmu_rdmsr(lp, msr, &v);
  printf("  RDMSR %-30s -> ", msr_name(msr));
  if (rc != SPMU_OK) {
    printf("#GP\n");
    return 0;
  }
  printf("0x%016" PRIx64 "  ok", v);
  print_fields(msr, v);
  printf("\n");
  return v;
}

static uint32_t addr(const char *name)
{
  uint32_t a = 0;
  if (spmu_msr_lookup(NULL, name, &a) != SPMU_OK) {
    fprintf(stderr, "softpmu-demo: no MSR named %s\n", name);
    exit(1);
  }
  return a;
}

static unsigned pmis;

static void on_pmi(void *opaque, spmu_lp *lp)
{
  (void)opaque;
  (void)lp;
  pmis++;
}

/* A stream of 1,000,000 clocks retiring 3 instructions each, sampled every
 * 100,000 instructions: period preset in PMC0, a PMI at each overflow, and
 * Linux's handler flow (SDM 18.2.2): disable, read and ack the status,
 * reload, re-enable. */
static void sample(spmu_lp *lp)
{
  const uint64_t period = 100000, clocks = 1000000;
  const spmu_event_line line = {.event = 0xC0, .umask = 0x00, .count = 3};
  const spmu_clock clk = {.lines = &line, .nlines = 1, .cpl = 3};
  uint32_t ctrl = addr("IA32_PERF_GLOBAL_CTRL"), pmc0 = addr("IA32_PMC0");
  uint32_t status = addr("IA32_PERF_GLOBAL_STATUS"),
           fixed0 = addr("IA32_FIXED_CTR0");
  uint64_t done = 0, used, st, v, samples = 0;

  spmu_core_set_host(spmu_lp_core(lp), &(spmu_host){.pmi = on_pmi});
  spmu_wrmsr(lp, ctrl, 0);
  spmu_wrmsr(lp, fixed0, 0);
  spmu_wrmsr(lp, addr("IA32_PERFEVTSEL0"), 0x5300C0); /* INST_RETIRED, INT */
  spmu_wrmsr(lp, pmc0, -period);
  spmu_wrmsr(lp, addr("IA32_FIXED_CTR_CTRL"), 0x3); /* fixed 0, no PMI */
  spmu_wrmsr(lp, ctrl, 0x100000001ULL);
  while (done < clocks) {
    if (spmu_deliver(lp, &clk, clocks - done, &used) & SPMU_TICK_PMI) {
      spmu_wrmsr(lp, ctrl, 0);
      spmu_rdmsr(lp, status, &st);
      spmu_wrmsr(lp, addr("IA32_PERF_GLOBAL_OVF_CTRL"), st);
      spmu_rdmsr(lp, pmc0, &v);
      if (samples < 3)
        printf("  PMI at clock %-7" PRIu64 " status 0x%" PRIx64
               ", PMC0 = %" PRIu64 " past the overflow; reload -%" PRIu64 "\n",
               done + used, st, v, period - v);
      samples++;
      /* Carry the overshoot into the next period, as Linux's
       * x86_perf_event_set_period does. */
      spmu_wrmsr(lp, pmc0, -(period - v));
      spmu_wrmsr(lp, ctrl, 0x100000001ULL);
    }
    done += used;
  }
  spmu_rdmsr(lp, fixed0, &v);
  printf("  ...\n  %" PRIu64 " clocks, %" PRIu64
         " instructions (IA32_FIXED_CTR0 = %" PRIu64 "), %" PRIu64
         " samples, %u PMIs\n",
         clocks, 3 * clocks, v, samples, pmis);
}

/* --- a PEBS sampling session --------------------------------------------
 * The guest's memory is one array; the DS management area sits at DS_LA
 * and the PEBS buffer (16 records) right after it. */
#define DS_LA 0x7f0000000000ULL
#define PEBS_LA (DS_LA + 0x100)
static uint8_t guest[0x100 + 16 * 200 + 16 * 1232];
static uint64_t clock_now;

static int guest_rw(uint64_t la, size_t len, uint8_t **p)
{
  if (la < DS_LA || la - DS_LA > sizeof guest ||
      len > sizeof guest - (la - DS_LA))
    return -1;
  *p = guest + (la - DS_LA);
  return 0;
}

static int read_mem(void *o, spmu_lp *l, uint64_t la, void *buf, size_t len)
{
  uint8_t *p;
  (void)o;
  (void)l;
  if (guest_rw(la, len, &p))
    return -1;
  memcpy(buf, p, len);
  return 0;
}

static int write_mem(void *o, spmu_lp *l, uint64_t la, const void *buf,
                     size_t len)
{
  uint8_t *p;
  (void)o;
  (void)l;
  if (guest_rw(la, len, &p))
    return -1;
  memcpy(p, buf, len);
  return 0;
}

/* The CPU model's state at the assist: here, an IP that moves with time. */
static void machine_state(void *o, spmu_lp *l, spmu_machine_state *st)
{
  (void)o;
  (void)l;
  st->ip = 0x400000 + 4 * (clock_now % 4096);
  st->next_ip = st->ip + 4;
  st->tsc = clock_now;
}

static uint64_t get64(uint64_t la)
{
  uint64_t v = 0;
  unsigned i;
  for (i = 0; i < 8; i++)
    v |= (uint64_t)guest[la - DS_LA + i] << (8 * i);
  return v;
}

static void put64(uint64_t la, uint64_t v)
{
  unsigned i;
  for (i = 0; i < 8; i++)
    guest[la - DS_LA + i] = (uint8_t)(v >> (8 * i));
}

/* Record size of this PEBS format (IA32_PERF_CAPABILITIES[11:8]; SDM
 * 18.4.4.1, 18.6.2.1, 18.8.1.1, 18.9.1); adaptive records carry theirs
 * (rec_la != 0), and are 32 bytes (Basic) without ADAPTIVE (SDM 18.9.2). */
static uint64_t record_size(uint64_t perfcap, uint64_t rec_la)
{
  static const uint64_t legacy[4] = {144, 176, 192, 200};
  unsigned fmt = (unsigned)(perfcap >> 8 & 0xf);
  if (perfcap & (1ULL << 14))
    return rec_la ? get64(rec_la) >> 48 : 32;
  return legacy[fmt > 3 ? 3 : fmt];
}

static uint64_t records, first_ip, last_ip;

/* Read every record between the base and the index, then reset the index
 * to the base (what Linux's drain_pebs does). */
static void drain(uint64_t perfcap)
{
  uint64_t at = PEBS_LA, index = get64(DS_LA + 0x28);
  while (at < index) {
    uint64_t ip = get64(at + ((perfcap & (1ULL << 14)) ? 8 : 0xB0));
    if (!records)
      first_ip = ip;
    last_ip = ip;
    records++;
    at += record_size(perfcap, at);
  }
  put64(DS_LA + 0x28, PEBS_LA);
}

/* 3,000,000 instructions sampled by PEBS every 10,000: the DS area set up
 * as Linux does (base, index, absolute maximum, threshold), the counter's
 * reset slot holding -period, and a PMI handler in the SDM's flow (18.2.2,
 * 17.4.9.5): disable, read the status, drain the buffer on OvfBuf, reset
 * the index, acknowledge, re-enable. */
static void pebs_session(spmu_lp *lp)
{
  const uint64_t period = 10000, clocks = 1000000,
                 width = (1ULL << prof->gp_width) - 1;
  const spmu_event_line line = {.event = 0xC0, .umask = 0x00, .count = 3};
  const spmu_clock clk = {
      .lines = &line, .nlines = 1, .cpl = 3, .flags = SPMU_CLK_IA32E};
  uint32_t ctrl = addr("IA32_PERF_GLOBAL_CTRL"),
           status = addr("IA32_PERF_GLOBAL_STATUS");
  uint64_t perfcap = 0, used, st;
  unsigned drains = 0;
  int rc;

  spmu_core_set_host(spmu_lp_core(lp),
                     &(spmu_host){.pmi = on_pmi,
                                  .read_mem = read_mem,
                                  .write_mem = write_mem,
                                  .machine_state = machine_state});
  spmu_rdmsr(lp, addr("IA32_PERF_CAPABILITIES"), &perfcap);
  put64(DS_LA + 0x20, PEBS_LA);                                /* base */
  put64(DS_LA + 0x28, PEBS_LA);                                /* index */
  put64(DS_LA + 0x30, PEBS_LA + 16 * record_size(perfcap, 0)); /* maximum */
  put64(DS_LA + 0x38, PEBS_LA + 12 * record_size(perfcap, 0)); /* threshold */
  put64(DS_LA + 0x40, -period & width);                        /* PMC0 reset */
  spmu_wrmsr(lp, ctrl, 0);
  spmu_wrmsr(lp, addr("IA32_DS_AREA"), DS_LA);
  spmu_wrmsr(lp, addr("IA32_PERFEVTSEL0"), 0x4300C0); /* INST_RETIRED, no INT */
  spmu_wrmsr(lp, addr("IA32_PMC0"), -period);
  spmu_wrmsr(lp, addr("IA32_PEBS_ENABLE"), 1);
  spmu_wrmsr(lp, ctrl, 1);
  pmis = 0;
  for (clock_now = 0; clock_now < clocks; clock_now += used) {
    rc = spmu_deliver(lp, &clk, clocks - clock_now, &used);
    if (!(rc & SPMU_TICK_PMI))
      continue;
    spmu_wrmsr(lp, ctrl, 0);
    spmu_rdmsr(lp, status, &st);
    if (st & (1ULL << 62)) { /* OvfBuf */
      drain(perfcap);
      drains++;
    }
    spmu_wrmsr(lp, addr("IA32_PERF_GLOBAL_OVF_CTRL"), st);
    spmu_wrmsr(lp, ctrl, 1);
  }
  spmu_wrmsr(lp, ctrl, 0);
  drain(perfcap); /* what is left when sampling stops */
  printf("  %" PRIu64 " instructions, period %" PRIu64 ": %" PRIu64
         " PEBS records, %u PMIs at the threshold (12 records) and a final "
         "drain\n",
         3 * clocks, period, records, drains);
  if ((perfcap >> 8 & 0xf) >= 2 || (perfcap & (1ULL << 14)))
    printf("  eventing IPs from 0x%" PRIx64 " to 0x%" PRIx64 "\n", first_ip,
           last_ip);
}

/* The Pentium 4's counters, set up as SDM 18.15.5.1 lays out:
 * the event from the table, its ESCR, a counter that ESCR feeds, the
 * addresses, WRMSR the ESCR (event select, mask, OS/USR), WRMSR the CCCR
 * (ESCR select, enable); then count and overflow. */
static void netburst(spmu_lp *lp)
{
  spmu_nb_event_sel s;
  spmu_nb_retire r = {.uops = 3, .instrs = 2};
  spmu_nb_clock clk = {.retire = &r, .nretire = 1, .cpl = 3};
  uint64_t done, v, cccr;
  unsigned n;
  uint32_t counter, cccr_addr;

  printf("2. instr_retired:NBOGUSNTAG by the six steps of SDM 18.15.5.1:\n");
  spmu_nb_event_parse(prof, "instr_retired:NBOGUSNTAG", &s);
  n = (unsigned)__builtin_ctz(s.counters[0]);
  counter = 0x300 + n;
  cccr_addr = 0x360 + n;
  printf("  ESCR %s (0x%x) feeds counters 0x%x; counter %u (0x%x), CCCR 0x%x, "
         "ESCR select %u\n",
         spmu_nb_unit_name(s.event->unit), s.escr_addr[0], s.counters[0], n,
         counter, cccr_addr, s.cccr_select);
  wr(lp, s.escr_addr[0], s.escr_value | 0xC); /* T0_OS | T0_USR */
  cccr = (uint64_t)s.cccr_select << 13 | 3ULL << 16 | 1ULL << 12;
  wr(lp, cccr_addr, cccr);
  spmu_deliver_netburst(lp, &clk, 1000, &done);
  printf("  1000 clocks retiring 2 instructions each: counter = %" PRIu64
         "\n\n",
         rd(lp, counter));

  printf("3. Overflow: OVF is sticky; the PMI comes on the next increment "
         "(SDM 18.15.5.8):\n");
  spmu_core_set_host(spmu_lp_core(lp), &(spmu_host){.pmi = on_pmi});
  pmis = 0;
  wr(lp, cccr_addr, cccr | 1ULL << 26); /* OVF_PMI_T0 */
  wr(lp, counter, 0xFFFFFFFFFFULL - 1);
  spmu_deliver_netburst(lp, &clk, 1, &done);
  spmu_rdmsr(lp, cccr_addr, &v);
  printf("  after the wrapping clock: counter %" PRIu64
         ", CCCR.OVF %u, %u PMIs\n",
         rd(lp, counter), (unsigned)(v >> 31 & 1), pmis);
  spmu_deliver_netburst(lp, &clk, 1, &done);
  printf("  after the next clock: %u PMI\n\n", pmis);
}

int main(int argc, char **argv)
{
  const char *spec = argc > 1 ? argv[1] : SPMU_PROFILE_DEFAULT;
  spmu_profile p;
  spmu_core *core;
  spmu_lp *lp;
  char why[256];
  uint32_t r[4];
  uint64_t v;
  size_t blob;
  int rc;

  rc = spmu_profile_parse(spec, &p, why, sizeof why);
  if (rc != SPMU_OK) {
    fprintf(stderr, "softpmu-demo: %s\n", why);
    return 2;
  }
  if ((rc = spmu_core_new(&p, &core)) != SPMU_OK) {
    fprintf(stderr, "softpmu-demo: %s\n", spmu_strerror(rc));
    return 2;
  }
  prof = spmu_core_profile(core);
  lp = spmu_core_lp(core, 0);

  printf("softpmu %s — profile '%s'\n\n", spmu_version_string(), prof->name);

  printf("1. Enumerate (CPUID.0AH), as a driver does at boot:\n");
  spmu_cpuid(lp, 0xA, 0, r);
  printf("  EAX=%08x EBX=%08x ECX=%08x EDX=%08x\n", r[0], r[1], r[2], r[3]);
  printf("  version %u, %u GP counters of %u bits, %u fixed counters of %u "
         "bits, %u logical processors\n\n",
         r[0] & 0xff, (r[0] >> 8) & 0xff, (r[0] >> 16) & 0xff, r[3] & 0x1f,
         (r[3] >> 5) & 0xff, spmu_core_threads(core));
  if (prof->features & SPMU_FEAT_NETBURST) {
    netburst(lp);
    spmu_core_free(core);
    return 0;
  }
  if ((r[0] & 0xff) < 2) {
    printf("  (no GLOBAL_* MSRs before version 2; pick a later profile to see "
           "more)\n");
    spmu_core_free(core);
    return 0;
  }

  printf("2. Linux's boot probe: read PMC0, flip the low 16 bits, write, read "
         "back:\n");
  v = rd(lp, addr("IA32_PMC0"));
  wr(lp, addr("IA32_PMC0"), v ^ 0xffff);
  printf("  probe %s\n\n",
         rd(lp, addr("IA32_PMC0")) == (v ^ 0xffff) ? "passed" : "FAILED");

  printf("3. Program a sampling event, GLOBAL_CTRL last (SDM 18.2.4.1):\n");
  wr(lp, addr("IA32_PERF_GLOBAL_CTRL"), 0);
  wr(lp, addr("IA32_PERFEVTSEL0"), 0x5300C0); /* INST_RETIRED, USR OS INT EN */
  wr(lp, addr("IA32_PMC0"), (uint64_t)-100000); /* period 100000 */
  rd(lp, addr("IA32_PMC0"));
  wr(lp, addr("IA32_FIXED_CTR_CTRL"), 0x0BB); /* fixed 0, 1: all rings, PMI */
  wr(lp, addr("IA32_PERF_GLOBAL_CTRL"), 0x300000001ULL);
  if (prof->version >= 4)
    rd(lp, addr("IA32_PERF_GLOBAL_INUSE"));
  printf("\n");

  printf("4. What an exact PMU refuses:\n");
  wr(lp, addr("IA32_PERF_GLOBAL_CTRL"), 1ULL << 40); /* absent fixed ctr */
  wr(lp, addr("IA32_PERF_GLOBAL_STATUS"), 1);        /* read-only */
  wr(lp, addr("IA32_FIXED_CTR0") + 7, 0);            /* absent counter */
  printf("\n");

  if (prof->version >= 4) {
    printf("5. A VMM restores overflow status with STATUS_SET, the guest "
           "acks it:\n");
    wr(lp, addr("IA32_PERF_GLOBAL_STATUS_SET"), (1ULL << 62) | 1);
    rd(lp, addr("IA32_PERF_GLOBAL_STATUS"));
    wr(lp, addr("IA32_PERF_GLOBAL_STATUS_RESET"), 1);
    rd(lp, addr("IA32_PERF_GLOBAL_STATUS"));
    wr(lp, addr("IA32_PERF_GLOBAL_STATUS_RESET"), 1ULL << 62);
    rd(lp, addr("IA32_PERF_GLOBAL_STATUS"));
    printf("\n");
  }

  printf("6. Sampling by overflow on a synthetic instruction stream:\n");
  sample(lp);
  printf("\n");

  if (spmu_rdmsr(lp, addr("IA32_PEBS_ENABLE"), &v) == SPMU_OK) {
    printf("7. PEBS sampling: records in guest memory, drained at the "
           "threshold PMI:\n");
    pebs_session(lp);
    printf("\n");
  }

  spmu_core_save(core, NULL, 0, &blob);
  printf("Snapshot of the whole core: %zu bytes (format %d).\n", blob,
         SPMU_SNAPSHOT_FORMAT);
  spmu_core_free(core);
  return 0;
}
