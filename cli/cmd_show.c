/* SPDX-License-Identifier: MIT */
/* softpmu show: the live PMU of this machine, read through the agent
 * library's hardware backend (/dev/cpu/N/msr and /dev/cpu/N/cpuid) and
 * decoded with the register catalogue.
 *
 * CPUID.0AH with the PMU bits of leaf 01H and IA32_PERF_CAPABILITIES
 * becomes a profile through spmu_profile_from_cpuid (limited to what the
 * model can be, each limit noted); leaf 07H and IA32_MISC_ENABLE add the
 * features those leaves do not enumerate. The profile selects the MSRs and
 * fields the catalogue has for that PMU; each is read and decoded. Which
 * counters are in use comes from spmu_agent_scan: INUSE on perfmon v4+, the
 * event selects and IA32_FIXED_CTR_CTRL before.
 *
 * It only reads: the backend it uses, the agent's included, refuses every
 * write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/agent.h>

#include "cli.h"

enum { EAX, EBX, ECX, EDX };

#define MAX_NOTES 8

/* One MSR of the profile, as read. */
struct msr {
  spmu_msr_info info;
  int rc; /* SPMU_OK or SPMU_GP */
  uint64_t value;
};

struct show {
  unsigned cpu;
  bool json;
  const char *msr_path, *cpuid_path;
  spmu_backend be; /* reads only */
  uint32_t leaf_0a[4], leaf_01[4], leaf_07[4];
  bool have_01, have_07; /* else read as zeros */
  spmu_profile raw;      /* leaves 0AH and 01H as they are */
  bool bts, pebs, rtm, pt, sgx;
  uint64_t perf_cap;
  char spec[512]; /* the profile, key=value, as printed */
  spmu_profile prof;
  struct cli_regs regs; /* the catalogue as prof has it */
  char notes[MAX_NOTES][192];
  unsigned nnotes;
  struct msr *msrs;
  size_t nmsrs;
  /* spmu_agent_scan: its result, the INUSE layout, and why it failed. */
  int scan_rc;
  uint64_t inuse;
  char scan_why[160];
};

static void note(struct show *s, const char *fmt, ...) CLI_PRINTF(2, 3);

static void note(struct show *s, const char *fmt, ...)
{
  va_list ap;

  if (s->nnotes == MAX_NOTES)
    return;
  va_start(ap, fmt);
  vsnprintf(s->notes[s->nnotes++], sizeof s->notes[0], fmt, ap);
  va_end(ap);
}

/* ---- the backend: the hardware's, with writes refused -------------------- */

static int refuse_wrmsr(void *opaque, uint32_t msr, uint64_t value)
{
  (void)opaque;
  (void)msr;
  (void)value;
  return SPMU_EIO;
}

/* An MSR through the backend: SPMU_OK or SPMU_GP; anything else is
 * reported and gives CLI_EXIT_USAGE through *failed. */
static int read_msr(const struct show *s, uint32_t addr, uint64_t *v,
                    bool *failed)
{
  int rc = s->be.rdmsr(s->be.opaque, addr, v);

  if (rc == SPMU_OK || rc == SPMU_GP)
    return rc;
  cli_error("cannot read MSR 0x%" PRIx32 " through %s: %s", addr, s->msr_path,
            spmu_strerror(rc));
  *failed = true;
  return rc;
}

/* CPUID leaf into r; leaves the backend lacks read as zeros (false). */
static bool read_leaf(const struct show *s, uint32_t leaf, uint32_t r[4],
                      int *rc)
{
  *rc = s->be.cpuid(s->be.opaque, leaf, 0, r);
  if (*rc == SPMU_OK)
    return true;
  memset(r, 0, 4 * sizeof(*r));
  return false;
}

/* ---- CPUID and the profile ----------------------------------------------- */

static int read_cpuid(struct show *s)
{
  int rc;

  if (!read_leaf(s, 0xA, s->leaf_0a, &rc)) {
    cli_error("cannot read CPUID leaf 0AH through %s: %s", s->cpuid_path,
              rc == SPMU_ENOENT ? "the file has no such record"
                                : spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  s->have_01 = read_leaf(s, 0x1, s->leaf_01, &rc);
  s->have_07 = read_leaf(s, 0x7, s->leaf_07, &rc);
  if (!s->have_01)
    note(s, "CPUID leaf 01H is missing: no PDCM, DS, DTES64 or DS-CPL");
  if (!s->have_07)
    note(s, "CPUID leaf 07H is missing: no RTM, Intel PT or SGX");
  return CLI_EXIT_OK;
}

/* Leaves 0AH and 01H as they are (spmu_profile_from_cpuid, nothing
 * limited yet): the version, and whether DS and PDCM say IA32_MISC_ENABLE
 * and IA32_PERF_CAPABILITIES are worth reading. */
static void decode_leaves(struct show *s)
{
  spmu_profile_from_cpuid(s->leaf_0a, s->have_01 ? s->leaf_01 : NULL, 0,
                          SPMU_CPUID_DECODE, &s->raw, NULL, 0);
}

static bool has(const spmu_profile *p, uint32_t feature)
{
  return (p->features & feature) != 0;
}

/* The features the catalogue depends on beyond leaves 0AH and 01H:
 * CPUID.07H:EBX[2] SGX, [11] RTM, [25] Intel PT; IA32_MISC_ENABLE[11] BTS
 * and [12] PEBS unavailable; IA32_PERF_CAPABILITIES where PDCM says it
 * exists. */
static int read_features(struct show *s)
{
  bool failed = false;
  uint64_t misc = 0;
  int rc;

  s->sgx = s->leaf_07[EBX] >> 2 & 1;
  s->rtm = s->leaf_07[EBX] >> 11 & 1;
  s->pt = s->leaf_07[EBX] >> 25 & 1;
  if (has(&s->raw, SPMU_FEAT_DS)) {
    rc = read_msr(s, 0x1A0, &misc, &failed); /* IA32_MISC_ENABLE */
    if (failed)
      return CLI_EXIT_USAGE;
    if (rc == SPMU_GP) {
      note(s, "IA32_MISC_ENABLE raised #GP: BTS and PEBS taken as "
              "unavailable");
      misc = 3u << 11;
    }
    s->bts = !(misc >> 11 & 1);
    s->pebs = !(misc >> 12 & 1) && s->raw.version >= 2;
  }
  if (has(&s->raw, SPMU_FEAT_PDCM)) {
    rc = read_msr(s, 0x345, &s->perf_cap, &failed); /* PERF_CAPABILITIES */
    if (failed)
      return CLI_EXIT_USAGE;
    if (rc == SPMU_GP) {
      note(s, "IA32_PERF_CAPABILITIES raised #GP although CPUID.01H:ECX[15] "
              "(PDCM) is set");
      s->perf_cap = 0;
    }
  }
  return CLI_EXIT_OK;
}

/* Each line of what spmu_profile_from_cpuid limited, as a note. */
static void note_lines(struct show *s, const char *lines)
{
  while (*lines) {
    size_t n = strcspn(lines, "\n");
    note(s, "%.*s", (int)n, lines);
    lines += n + (lines[n] == '\n');
  }
}

/* The profile: leaves 0AH and 01H and IA32_PERF_CAPABILITIES through
 * spmu_profile_from_cpuid, limited to what the model can be; then the
 * features of leaf 07H and IA32_MISC_ENABLE. Uncore PMIs (DEBUGCTL[13],
 * GLOBAL_STATUS[61]) are model-specific: taken as present from perfmon
 * v3, as on every such Core part. */
static int build_profile(struct show *s)
{
  char why[1024] = "";
  spmu_profile *p = &s->prof;
  int rc;

  rc = spmu_profile_from_cpuid(s->leaf_0a, s->have_01 ? s->leaf_01 : NULL,
                               s->perf_cap, SPMU_CPUID_CLAMP, p, why,
                               sizeof why);
  if (rc == SPMU_OK) {
    note_lines(s, why);
    snprintf(p->name, sizeof p->name, "cpu%u", s->cpu);
    p->features |= (s->bts ? SPMU_FEAT_BTS : 0u) |
                   (s->pebs ? SPMU_FEAT_PEBS : 0u) |
                   (s->rtm ? SPMU_FEAT_RTM : 0u) | (s->pt ? SPMU_FEAT_PT : 0u) |
                   (s->sgx ? SPMU_FEAT_SGX : 0u) |
                   (p->version >= 3 ? SPMU_FEAT_UNCORE_PMI : 0u);
    rc = spmu_profile_validate(p, why, sizeof why);
  }
  if (rc != SPMU_OK) {
    cli_error("the PMU that CPUID enumerates is not one softpmu can decode: %s",
              why[0] ? why : spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  spmu_profile_format(p, s->spec, sizeof s->spec);
  return CLI_EXIT_OK;
}

/* ---- the MSRs ------------------------------------------------------------ */

static int read_msrs(struct show *s)
{
  uint32_t *addrs;
  bool failed = false;
  size_t i;

  addrs = cli_msr_addrs(s->regs.p, &s->nmsrs);
  if (!addrs)
    return CLI_EXIT_USAGE;
  s->msrs = calloc(s->nmsrs ? s->nmsrs : 1, sizeof(*s->msrs));
  if (!s->msrs) {
    free(addrs);
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  for (i = 0; i < s->nmsrs && !failed; i++) {
    struct msr *m = &s->msrs[i];
    spmu_regview_info(s->regs.view, addrs[i], &m->info);
    m->rc = read_msr(s, addrs[i], &m->value, &failed);
  }
  free(addrs);
  return failed ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

/* The MSR called name, as read; NULL if the profile lacks it. */
static const struct msr *find_msr(const struct show *s, const char *name)
{
  size_t i;

  for (i = 0; i < s->nmsrs; i++)
    if (text_ieq(s->msrs[i].info.name, name))
      return &s->msrs[i];
  return NULL;
}

/* Field `field` of MSR `name`: 1 if set (non-zero), 0 if clear, -1 if the
 * MSR is absent, faulted or has no such field. */
static int field_of(const struct show *s, const char *name, const char *field)
{
  const struct msr *m = find_msr(s, name);
  uint64_t v;

  if (!m || m->rc != SPMU_OK ||
      spmu_regview_field_decode(s->regs.view, m->info.addr, field, m->value,
                                &v) != SPMU_OK)
    return -1;
  return v != 0;
}

/* ---- which counters are in use ------------------------------------------- */

/* spmu_agent_scan over the read-only backend. */
static void scan(struct show *s)
{
  spmu_agent *a = NULL;
  int rc = spmu_agent_new(&s->be, &a);

  if (rc == SPMU_OK)
    rc = spmu_agent_scan(a, &s->inuse);
  s->scan_rc = rc;
  if (rc == SPMU_GP)
    snprintf(s->scan_why, sizeof s->scan_why, "RDMSR 0x%" PRIx32 " raised #GP",
             spmu_agent_fault_msr(a));
  else if (rc != SPMU_OK)
    snprintf(s->scan_why, sizeof s->scan_why, "%s", spmu_strerror(rc));
  spmu_agent_free(a);
}

/* A counter of the INUSE layout: GP i is bit i, fixed j is bit 32 + j. */
struct counter {
  unsigned bit;
  char name[32];     /* IA32_PMC0 */
  char inuse[32];    /* PERFEVTSEL0_InUse */
  char control[192]; /* its settings: "EVENT=0xc0, USR, EN" */
  bool programmed;   /* control holds settings (not a note) */
  char state[96];    /* counting, or why not */
};

/* The fields of FIXED_CTR_CTRL that belong to fixed counter j: its 4-bit
 * block at 4j (SDM Vol. 3B 18.2.2.1, Figure 18-2) and its ADAPTIVE bit at
 * 32 + 4j (the catalogue's IA32_FIXED_CTR_CTRL). */
static void fixed_control(const struct show *s, const struct msr *m, unsigned j,
                          char *buf, size_t len)
{
  size_t used = 0;
  unsigned i;

  buf[0] = '\0';
  for (i = 0; i < m->info.nfields; i++) {
    spmu_field_info f;
    uint64_t v;
    int n;

    if (spmu_regview_field_get(s->regs.view, m->info.addr, i, &f) != SPMU_OK ||
        !((f.lsb >= 4 * j && f.lsb < 4 * j + 4) || f.lsb == 32 + 4 * j) ||
        spmu_regview_field_decode(s->regs.view, m->info.addr, f.name, m->value,
                                  &v) != SPMU_OK ||
        v == 0)
      continue;
    n = f.width == 1
            ? snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f.name)
            : snprintf(buf + used, len - used, "%s%s=0x%" PRIx64,
                       used ? ", " : "", f.name, v);
    if (n < 0 || (size_t)n >= len - used)
      return;
    used += (size_t)n;
  }
}

/* Does the counter count? Its own enable, its IA32_PERF_GLOBAL_CTRL bit
 * (v2+) and no CTR_Frz (v4+) (SDM 18.2.2, 18.2.4.1). */
static void counter_state(const struct show *s, struct counter *c,
                          const char *ctl, const char *en)
{
  char global[32];
  int on = field_of(s, ctl, en);

  if (c->bit < 32)
    snprintf(global, sizeof global, "EN_PMC%u", c->bit);
  else
    snprintf(global, sizeof global, "EN_FIXED_CTR%u", c->bit - 32);
  if (on < 0)
    snprintf(c->state, sizeof c->state, "unknown: %s unreadable", ctl);
  else if (!on)
    snprintf(c->state, sizeof c->state, "not counting: %s.%s clear", ctl, en);
  else if (s->prof.version >= 2 &&
           field_of(s, "IA32_PERF_GLOBAL_CTRL", global) != 1)
    snprintf(c->state, sizeof c->state,
             "not counting: IA32_PERF_GLOBAL_CTRL.%s %s", global,
             field_of(s, "IA32_PERF_GLOBAL_CTRL", global) < 0 ? "unreadable"
                                                              : "clear");
  else if (s->prof.version >= 4 &&
           field_of(s, "IA32_PERF_GLOBAL_STATUS", "CTR_Frz") == 1)
    snprintf(c->state, sizeof c->state,
             "frozen: IA32_PERF_GLOBAL_STATUS.CTR_Frz set");
  else
    snprintf(c->state, sizeof c->state, "counting");
}

static void describe_counter(const struct show *s, unsigned bit,
                             struct counter *c)
{
  char ctl[32], en[16];
  const struct msr *m;

  memset(c, 0, sizeof(*c));
  c->bit = bit;
  if (bit < 32) {
    snprintf(c->name, sizeof c->name, "IA32_PMC%u", bit);
    snprintf(c->inuse, sizeof c->inuse, "PERFEVTSEL%u_InUse", bit);
    snprintf(ctl, sizeof ctl, "IA32_PERFEVTSEL%u", bit);
    snprintf(en, sizeof en, "EN");
    m = find_msr(s, ctl);
    if (m && m->rc == SPMU_OK)
      cli_fields_text(&s->regs, &m->info, m->value, c->control,
                      sizeof c->control);
  } else {
    snprintf(c->name, sizeof c->name, "IA32_FIXED_CTR%u", bit - 32);
    snprintf(c->inuse, sizeof c->inuse, "FC%u_InUse", bit - 32);
    snprintf(ctl, sizeof ctl, "IA32_FIXED_CTR_CTRL");
    snprintf(en, sizeof en, "EN%u", bit - 32);
    m = find_msr(s, ctl);
    if (m && m->rc == SPMU_OK)
      fixed_control(s, m, bit - 32, c->control, sizeof c->control);
  }
  c->programmed = c->control[0] != '\0';
  if (m && m->rc == SPMU_GP)
    snprintf(c->control, sizeof c->control, "%s: #GP", ctl);
  else if (!c->control[0])
    snprintf(c->control, sizeof c->control, "nothing programmed");
  counter_state(s, c, ctl, en);
}

/* A list being built in buf: item appended after ", " (dropped if it does
 * not fit). */
struct list {
  char *buf;
  size_t len, used;
};

static void list_add(struct list *l, const char *item)
{
  int n = snprintf(l->buf + l->used, l->len - l->used, "%s%s",
                   l->used ? ", " : "", item);

  if (n > 0 && (size_t)n < l->len - l->used)
    l->used += (size_t)n;
  else
    l->buf[l->used] = '\0';
}

/* What holds the PMI (SDM 18.2.4.3, Figure 18-13: PMI_InUse): each EVTSELn.INT,
 * each FIXED_CTR_CTRL PMIj and each PEBS enable of a GP counter that is set. */
static void pmi_holders(const struct show *s, char *buf, size_t len)
{
  struct list l = {buf, len, 0};
  const struct msr *m;
  char name[48], item[80];
  unsigned i;

  buf[0] = '\0';
  for (i = 0; i < s->prof.gp; i++) {
    snprintf(name, sizeof name, "IA32_PERFEVTSEL%u", i);
    snprintf(item, sizeof item, "%s.INT", name);
    if (field_of(s, name, "INT") == 1)
      list_add(&l, item);
  }
  for (i = 0; i < SPMU_MAX_FIXED; i++) {
    snprintf(name, sizeof name, "PMI%u", i);
    snprintf(item, sizeof item, "IA32_FIXED_CTR_CTRL.%s", name);
    if ((s->prof.fixed_mask >> i & 1) &&
        field_of(s, "IA32_FIXED_CTR_CTRL", name) == 1)
      list_add(&l, item);
  }
  m = find_msr(s, "IA32_PEBS_ENABLE");
  for (i = 0; m && m->rc == SPMU_OK && i < s->prof.gp; i++) {
    snprintf(item, sizeof item, "IA32_PEBS_ENABLE bit %u", i);
    if (m->value >> i & 1)
      list_add(&l, item);
  }
}

/* ---- text ---------------------------------------------------------------- */

static void print_raw(const char *leaf, const uint32_t r[4])
{
  printf("CPUID.%s  EAX 0x%08" PRIx32 "  EBX 0x%08" PRIx32 "  ECX 0x%08" PRIx32
         "  EDX 0x%08" PRIx32 "\n",
         leaf, r[EAX], r[EBX], r[ECX], r[EDX]);
}

static void print_pmu(const struct show *s)
{
  const spmu_profile *p = &s->prof;
  uint32_t unavailable = p->events_unavailable;
  char fixed[64];
  unsigned i;

  cli_bits_text(p->fixed_mask, fixed, sizeof fixed);
  printf("perfmon v%u: %u GP counter%s of %u bits, ", p->version, p->gp,
         p->gp == 1 ? "" : "s", p->gp_width);
  if (fixed[0])
    printf("fixed counter%s %s of %u bits\n", strpbrk(fixed, ",-") ? "s" : "",
           fixed, p->fixed_width);
  else
    puts("no fixed counters");
  printf("architectural events: %u enumerated, ", p->events_len);
  if (!unavailable)
    puts("all available");
  else {
    fputs("not available:", stdout);
    for (i = 0; i < 32; i++)
      if (unavailable >> i & 1)
        printf("%s %s (EBX[%u])", unavailable & ((1u << i) - 1) ? "," : "",
               i < cli_narch_events ? cli_arch_events[i].sdm : "event", i);
    putchar('\n');
  }
  printf("CPUID.01H: PDCM %d, DS %d, DTES64 %d, DS-CPL %d; CPUID.07H: RTM %d, "
         "Intel PT %d, SGX %d\n",
         has(p, SPMU_FEAT_PDCM), has(p, SPMU_FEAT_DS), has(p, SPMU_FEAT_DTES64),
         has(p, SPMU_FEAT_DS_CPL), s->rtm, s->pt, s->sgx);
  if (has(p, SPMU_FEAT_DS))
    printf("IA32_MISC_ENABLE: BTS %savailable, PEBS %savailable\n",
           s->bts ? "" : "not ", s->pebs ? "" : "not ");
  printf("decoded as the profile %s\n", s->spec);
  for (i = 0; i < s->nnotes; i++)
    printf("note: %s\n", s->notes[i]);
}

/* Is it a counter? Its one field is its value, so it is not decoded. */
static bool is_counter(const struct msr *m)
{
  return m->info.policy == SPMU_POLICY_COUNTER ||
         m->info.policy == SPMU_POLICY_COUNTER_SX;
}

/* A counter's value, and its two's-complement reading when the top bit of
 * its width is set (a sampling counter preset to -N). */
static void print_value(const struct msr *m)
{
  unsigned w = m->info.width;

  printf("0x%" PRIx64, m->value);
  if (is_counter(m) && w > 0 && w < 64 && (m->value >> (w - 1) & 1) &&
      !(m->value >> w))
    printf(" (-%" PRIu64 ")", (UINT64_C(1) << w) - m->value);
  putchar('\n');
}

static void print_msrs(const struct show *s)
{
  int w = 0;
  size_t i;

  for (i = 0; i < s->nmsrs; i++)
    if ((int)strlen(s->msrs[i].info.name) > w)
      w = (int)strlen(s->msrs[i].info.name);
  printf("\nThe %zu MSRs of this PMU:\n", s->nmsrs);
  for (i = 0; i < s->nmsrs; i++) {
    const struct msr *m = &s->msrs[i];
    printf("0x%03" PRIx32 "  %-*s  ", m->info.addr, w, m->info.name);
    if (m->rc == SPMU_GP) {
      puts("#GP");
      continue;
    }
    print_value(m);
    if (m->info.nfields && !is_counter(m))
      cli_print_fields(&s->regs, &m->info, m->value, 7, 7, false);
  }
}

static void print_inuse(const struct show *s)
{
  char free_list[512] = "", holders[256];
  size_t used = 0;
  uint64_t present =
      s->prof.gp >= 64 ? UINT64_MAX : (UINT64_C(1) << s->prof.gp) - 1;
  unsigned bit;

  present |= (uint64_t)s->prof.fixed_mask << SPMU_COUNTER_FIXED(0);
  putchar('\n');
  if (s->scan_rc != SPMU_OK) {
    printf("In use: unknown: %s\n", s->scan_why);
    return;
  }
  if (s->prof.version >= 4)
    printf("In use, from IA32_PERF_GLOBAL_INUSE 0x%" PRIx64 ":\n", s->inuse);
  else
    printf("In use, computed as IA32_PERF_GLOBAL_INUSE would be (perfmon v%u "
           "has none) = 0x%" PRIx64 ":\n",
           s->prof.version, s->inuse);
  for (bit = 0; bit < 64; bit++) {
    struct counter c;
    int n;

    if (!(present >> bit & 1))
      continue;
    describe_counter(s, bit, &c);
    if (s->inuse >> bit & 1) {
      printf("  %-16s %-18s %s; %s\n", c.name, c.inuse, c.control, c.state);
      continue;
    }
    n = snprintf(free_list + used, sizeof free_list - used, "%s%s",
                 used ? ", " : "", c.name);
    if (n > 0 && (size_t)n < sizeof free_list - used)
      used += (size_t)n;
  }
  if (s->inuse & SPMU_AGENT_PMI_INUSE) {
    pmi_holders(s, holders, sizeof holders);
    printf("  %-16s %-18s %s\n", "PMI", "PMI_InUse",
           holders[0] ? holders : "no INT, PMI or PEBS enable is set");
  }
  printf("Free: %s%s\n", used ? free_list : "none",
         s->inuse & SPMU_AGENT_PMI_INUSE ? "" : "; the PMI is free");
}

static void print_text(const struct show *s)
{
  printf("CPU %u: MSRs from %s, CPUID from %s\n", s->cpu, s->msr_path,
         s->cpuid_path);
  print_raw("0AH", s->leaf_0a);
  print_raw("01H", s->leaf_01);
  print_raw("07H", s->leaf_07);
  if (s->raw.version == 0) {
    puts("no architectural PMU: CPUID.0AH:EAX[7:0] (the version ID) is 0");
    return;
  }
  print_pmu(s);
  print_msrs(s);
  print_inuse(s);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_regs(const char *key, const uint32_t r[4], bool comma)
{
  printf("%s\"%s\":[\"0x%08" PRIx32 "\",\"0x%08" PRIx32 "\",\"0x%08" PRIx32
         "\",\"0x%08" PRIx32 "\"]",
         comma ? "," : "", key, r[EAX], r[EBX], r[ECX], r[EDX]);
}

static void json_msrs(const struct show *s)
{
  char fields[512];
  size_t i;

  fputs(",\"msrs\":[", stdout);
  for (i = 0; i < s->nmsrs; i++) {
    const struct msr *m = &s->msrs[i];
    printf("%s{\"addr\":\"0x%" PRIx32 "\",\"name\":", i ? "," : "",
           m->info.addr);
    cli_json_string(m->info.name);
    if (m->rc == SPMU_GP) {
      fputs(",\"result\":\"#GP\"}", stdout);
      continue;
    }
    printf(",\"result\":\"ok\",\"value\":\"0x%" PRIx64 "\",\"fields\":",
           m->value);
    fields[0] = '\0';
    if (!is_counter(m))
      cli_fields_text(&s->regs, &m->info, m->value, fields, sizeof fields);
    cli_json_list(fields);
    putchar('}');
  }
  putchar(']');
}

static void json_inuse(const struct show *s)
{
  uint64_t present = (UINT64_C(1) << s->prof.gp) - 1;
  char holders[256];
  bool any = false;
  unsigned bit;

  present |= (uint64_t)s->prof.fixed_mask << SPMU_COUNTER_FIXED(0);
  fputs(",\"inuse\":{\"from\":", stdout);
  cli_json_string(s->prof.version >= 4 ? "IA32_PERF_GLOBAL_INUSE" : "computed");
  if (s->scan_rc != SPMU_OK) {
    fputs(",\"result\":\"unknown\",\"why\":", stdout);
    cli_json_string(s->scan_why);
    putchar('}');
    return;
  }
  printf(",\"result\":\"ok\",\"value\":\"0x%" PRIx64 "\",\"counters\":[",
         s->inuse);
  for (bit = 0; bit < 64; bit++) {
    struct counter c;
    bool in = s->inuse >> bit & 1;

    if (!(present >> bit & 1))
      continue;
    describe_counter(s, bit, &c);
    printf("%s{\"counter\":\"%s\",\"bit\":%u,\"in_use\":%s", any ? "," : "",
           c.name, bit, in ? "true" : "false");
    if (in) {
      printf(",\"flag\":\"%s\",\"control\":", c.inuse);
      cli_json_list(c.programmed ? c.control : "");
      fputs(",\"state\":", stdout);
      cli_json_string(c.state);
    }
    putchar('}');
    any = true;
  }
  printf("],\"pmi\":{\"in_use\":%s",
         s->inuse & SPMU_AGENT_PMI_INUSE ? "true" : "false");
  if (s->inuse & SPMU_AGENT_PMI_INUSE) {
    pmi_holders(s, holders, sizeof holders);
    fputs(",\"by\":", stdout);
    cli_json_list(holders);
  }
  fputs("}}", stdout);
}

static void print_json(const struct show *s)
{
  unsigned i;

  printf("{\"cpu\":%u,\"msr_file\":", s->cpu);
  cli_json_string(s->msr_path);
  fputs(",\"cpuid_file\":", stdout);
  cli_json_string(s->cpuid_path);
  fputs(",\"cpuid\":{", stdout);
  json_regs("0a", s->leaf_0a, false);
  json_regs("01", s->leaf_01, true);
  json_regs("07", s->leaf_07, true);
  printf("},\"version\":%u", s->prof.version);
  if (s->raw.version == 0) {
    puts("}");
    return;
  }
  printf(",\"gp\":%u,\"gp_width\":%u,\"fixed\":\"0x%" PRIx32
         "\",\"fixed_width\":%u,\"events\":%u,\"unavailable\":\"0x%" PRIx32
         "\",\"profile\":",
         s->prof.gp, s->prof.gp_width, s->prof.fixed_mask,
         s->prof.fixed_mask ? s->prof.fixed_width : 0, s->prof.events_len,
         s->prof.events_unavailable);
  cli_json_string(s->spec);
  fputs(",\"notes\":[", stdout);
  for (i = 0; i < s->nnotes; i++) {
    if (i)
      putchar(',');
    cli_json_string(s->notes[i]);
  }
  putchar(']');
  json_msrs(s);
  json_inuse(s);
  puts("}");
}

/* ---- the command --------------------------------------------------------- */

static int parse_cpu(const struct cli_args *a, unsigned *cpu)
{
  uint64_t v;

  *cpu = 0;
  if (!a->cpu_num)
    return CLI_EXIT_OK;
  if (!text_parse_u64(a->cpu_num, &v) || v > 0xffffff) {
    cli_usage_error(&cli_cmd_show,
                    "show: -C takes the number of a CPU of this machine "
                    "(0, 1, ...), not '%s'",
                    a->cpu_num);
    return CLI_EXIT_USAGE;
  }
  *cpu = (unsigned)v;
  return CLI_EXIT_OK;
}

static int gather(struct show *s)
{
  int rc;

  if ((rc = read_cpuid(s)) != CLI_EXIT_OK)
    return rc;
  decode_leaves(s);
  if (s->raw.version == 0)
    return CLI_EXIT_OK;
  if ((rc = read_features(s)) != CLI_EXIT_OK ||
      (rc = build_profile(s)) != CLI_EXIT_OK ||
      (rc = cli_regs_open(&s->regs, &s->prof)) != CLI_EXIT_OK ||
      (rc = read_msrs(s)) != CLI_EXIT_OK)
    return rc;
  scan(s);
  return CLI_EXIT_OK;
}

/* A file given for a device: say plainly why it cannot be opened (the
 * backend's explanation is about the drivers). */
static bool can_open(const char *path, const char *mode)
{
  FILE *f = fopen(path, mode);

  if (!f) {
    cli_error("cannot open %s: %s", path, strerror(errno));
    return false;
  }
  fclose(f);
  return true;
}

static int show_run(const struct cli_args *a)
{
  char msr_dev[64], cpuid_dev[64], why[512] = "";
  struct show s;
  spmu_hw *hw = NULL;
  int rc;

  memset(&s, 0, sizeof s);
  if ((rc = parse_cpu(a, &s.cpu)) != CLI_EXIT_OK)
    return rc;
  s.json = (a->flags & CLI_FLAG_JSON) != 0;
  snprintf(msr_dev, sizeof msr_dev, "/dev/cpu/%u/msr", s.cpu);
  snprintf(cpuid_dev, sizeof cpuid_dev, "/dev/cpu/%u/cpuid", s.cpu);
  s.msr_path = a->msr_file ? a->msr_file : msr_dev;
  s.cpuid_path = a->cpuid_file ? a->cpuid_file : cpuid_dev;
  if ((a->msr_file && !can_open(a->msr_file, "r+b")) ||
      (a->cpuid_file && !can_open(a->cpuid_file, "rb")))
    return CLI_EXIT_USAGE;
  rc = spmu_hw_open_paths(s.msr_path, s.cpuid_path, &hw, why, sizeof why);
  if (rc != SPMU_OK) {
    cli_error("%s", why[0] ? why : spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  spmu_hw_backend(hw, &s.be);
  s.be.wrmsr = refuse_wrmsr;
  s.be.pmi_unmask = NULL;
  rc = gather(&s);
  if (rc == CLI_EXIT_OK) {
    if (s.json)
      print_json(&s);
    else
      print_text(&s);
  }
  free(s.msrs);
  cli_regs_close(&s.regs);
  spmu_hw_close(hw);
  return rc;
}

/* The manual keeps its text column. */
/* clang-format off */
const struct cli_command cli_cmd_show = {
  .name = "show",
  .summary = "read and decode the live PMU of this machine",
  .synopsis = "[-C N] [--json]",
  .description =
    "    Reads the performance-monitoring unit of CPU N of this machine\n"
    "    through Linux's msr and cpuid drivers (/dev/cpu/N/msr and\n"
    "    /dev/cpu/N/cpuid, the agent library's hardware backend) and\n"
    "    decodes it. It only reads; no MSR is written.\n"
    "\n"
    "    First CPUID: the raw leaves 0AH, 01H and 07H, then what they\n"
    "    enumerate (perfmon version, the general-purpose and fixed\n"
    "    counters and their widths, the architectural events that are not\n"
    "    available, the debug-store, TSX, Intel PT and SGX bits that\n"
    "    change the register layouts) and the key=value profile built from\n"
    "    them. IA32_MISC_ENABLE says whether BTS and PEBS are available\n"
    "    and IA32_PERF_CAPABILITIES, when CPUID.01H:ECX[15] says it\n"
    "    exists, gives the PEBS record format and full-width writes. A\n"
    "    \"note:\" line says where the CPU enumerates more than softpmu\n"
    "    models (a perfmon version above 5, more than 8 GP counters, a\n"
    "    newer PEBS format); the registers are then decoded as the newest\n"
    "    layout softpmu knows. Uncore PMIs (IA32_DEBUGCTL bit 13, global\n"
    "    status bit 61) are model-specific and taken as present from\n"
    "    perfmon version 3.\n"
    "\n"
    "    Then every architectural PMU MSR that the profile has (the list\n"
    "    `softpmu msrs` prints for it), in address order: its value and\n"
    "    each field that is not zero, as `softpmu decode` shows them, with\n"
    "    set bits that are reserved or in no field. A counter whose top bit\n"
    "    is set is also shown as -N, the preset of a sampling counter. An\n"
    "    MSR whose RDMSR faults is shown as #GP.\n"
    "\n"
    "    Last, which counters are in use, in the layout of\n"
    "    IA32_PERF_GLOBAL_INUSE (SDM 18.2.4.3): read from that MSR on\n"
    "    perfmon v4 and later, computed before v4 from the event selects\n"
    "    (IA32_PERFEVTSELn[7:0] != 0), IA32_FIXED_CTR_CTRL (ENj != 0) and,\n"
    "    for PMI_InUse, the INT, PMIj and PEBS enable bits, as the agent\n"
    "    library's spmu_agent_scan does. Each counter in use is shown with\n"
    "    its InUse bit, what its control register holds (the event select\n"
    "    fields, or the counter's block of IA32_FIXED_CTR_CTRL) and whether\n"
    "    it is counting: its enable, its IA32_PERF_GLOBAL_CTRL bit and\n"
    "    CTR_Frz. The INUSE bits say which resources are taken, not which\n"
    "    agent took them; the settings are what identifies the holder.\n"
    "    PMI_InUse is shown with the bits that hold the PMI.\n"
    "\n"
    "    The devices exist only with the msr and cpuid drivers loaded\n"
    "    (`modprobe msr`, `modprobe cpuid`), and reading them needs root\n"
    "    (CAP_SYS_RAWIO); without them the message says which is missing.\n",
  .options =
    "    -C, --cpu-num N\n"
    "        The CPU to read, by its number (default 0), as in perf stat\n"
    "        -C: the devices /dev/cpu/N/msr and /dev/cpu/N/cpuid. (--cpu\n"
    "        names a profile in every command; show models none and refuses\n"
    "        it: softpmu cpuid --cpu PROFILE describes a modelled PMU.)\n"
    "\n"
    "    --json\n"
    "        Print one JSON object instead of text: the files, the CPUID\n"
    "        registers, the counters, the profile, the notes, every MSR\n"
    "        (addr, name, result \"ok\" or \"#GP\", value, fields) and the\n"
    "        counters in use (inuse: from, value, counters, pmi).\n"
    "\n"
    "    --msr-file PATH\n"
    "    --cpuid-file PATH\n"
    "        Read these files instead of the devices (for tests; not in the\n"
    "        synopsis). They have the devices' layout: an MSR is the 8 bytes\n"
    "        at file offset = its address, a CPUID leaf the 16 bytes EAX,\n"
    "        EBX, ECX, EDX at offset = leaf | subleaf << 32, both\n"
    "        little-endian. Reading an MSR past the end of the file is #GP;\n"
    "        leaves 01H and 07H past it read as zeros. In a flat file\n"
    "        neighbouring MSRs share bytes, and so do leaves 01H, 07H and\n"
    "        0AH. The MSR file must be writable: the backend opens it as it\n"
    "        opens the device, read-write, although show writes nothing.\n",
  .exit_status =
    "    0   The PMU was read and decoded (also when there is none).\n"
    "    2   The devices cannot be opened (the driver is not loaded, or\n"
    "        no permission: the message says which), a read failed, CPUID\n"
    "        enumerates a PMU softpmu cannot decode, or bad usage.\n",
  .examples =
    "    sudo modprobe msr; sudo modprobe cpuid\n"
    "    sudo softpmu show\n"
    "        CPU 0's PMU: which counters are programmed, by whom, and\n"
    "        whether they count.\n"
    "\n"
    "    sudo softpmu show -C 3 --json | jq .inuse\n"
    "        CPU 3's counters in use, as JSON.\n",
  .flags = CLI_FLAG_JSON | CLI_FLAG_CPU_NUMBER | CLI_FLAG_FILES,
  .min_args = 0,
  .max_args = 0,
  .run = show_run,
};
/* clang-format on */
