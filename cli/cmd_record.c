/* SPDX-License-Identifier: MIT */
/* softpmu record: run a program under qemu-x86_64 with the softpmu QEMU
 * plugin in record mode and write its samples as a perf.data file.
 *
 * The run is the session's (perf/session.h: the options stat and record
 * share, the profile, the model, resolving the events as stat does,
 * finding and running the program, the exit status); what is record's
 * own is here: its options (-c PERIOD, --precise, -g, -b, -j,
 * --call-graph), which events can be sampled and how perf record
 * describes each (record_perf_type), the branch stacks the profile's LBRs
 * allow, the plugin's record-mode arguments, and converting the sample
 * stream (protocol/record.h) the plugin wrote to a temporary file
 * (record_stream.h). --from converts a stream written by hand instead of
 * running anything. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h" /* protocol/: the plugin's arguments */
#include "buildid_cache.h"
#include "cleanup.h"
#include "cli.h"
#include "perf_data.h"
#include "perf_env.h"
#include "record_stream.h"
#include "session.h"
#include "stat_events.h"
#include "stat_model.h"

_Static_assert(PERF_DATA_MAX_EVENTS >= SESSION_MAX_EVENTS,
               "each event of the session has its perf.data attr");

/* perf record's default event is cycles:P. Here cycles is the modelled
 * micro-architecture's, so it is the default when a model runs (the
 * profile's part, or --model), plain: branch stacks with PEBS are not
 * supported yet, and -b is as common as the default. Without a model
 * (core-duo, core2, nehalem; --no-model), instructions, counted exactly. */
#define REC_DEFAULT_MODELLED "cycles"
#define REC_DEFAULT_EXACT "instructions"
/* A prime, so that the samples do not fall in step with a loop (perf
 * record's own default is -F 4000, with a period the kernel adapts to
 * reach that rate: not modelled here, see record_freq_period). */
#define REC_DEFAULT_PERIOD 100003
/* -F's clock: a sample's time is its thread's retired instructions, shown
 * as nanoseconds, so a second is 10^9 of them. */
#define REC_NS_PER_SECOND 1000000000ULL
#define REC_DEFAULT_OUTPUT "perf.data"

struct rec_opts {
  struct session s; /* the options both commands take, the run */
  const char *period_arg;
  const char *freq_arg; /* -F FREQ */
  struct perf_data_desc desc;
  bool precise;
  bool all_user;         /* --all-user: every event :u */
  bool no_buildid_cache; /* -N: nothing added to $HOME/.debug */
  uint64_t branch;       /* -b, -j: perf's branch_sample_type bits */
  uint64_t intr_regs;    /* -I: perf's sample_regs_intr bits; 0: none */
  bool lbr_callgraph;
  int argc; /* the command line, for perf.data's HEADER_CMDLINE */
  char **argv;
};

/* ---- events ----------------------------------------------------------- */

/* perf's type and config of an event (perf_event_open(2)): the generic
 * hardware and cache names as perf encodes them, else the raw config
 * (the IA32_PERFEVTSELx bits an event string chooses, SDM Vol. 3B
 * 18.2.1.1), as perf record encodes a named Intel event. */
static void record_perf_type(const struct stat_event *e,
                             struct perf_data_event *pe)
{
  static const struct {
    const char *name;
    uint32_t type;
    uint64_t config;
  } generic[] = {
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
      {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
      {"branch-instructions", PERF_TYPE_HARDWARE,
       PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
      {"L1-dcache-loads", PERF_TYPE_HW_CACHE,
       PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
           PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16},
      {"L1-dcache-stores", PERF_TYPE_HW_CACHE,
       PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
           PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16},
      {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
       PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
           PERF_COUNT_HW_CACHE_RESULT_MISS << 16},
      {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
      {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
      {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
      {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
      {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
      {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
      {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
  };
  char base[sizeof(e->name)];
  size_t i;

  snprintf(base, sizeof(base), "%s", e->name);
  snprintf(pe->name, sizeof(pe->name), "%s", base);
  if (strchr(base, ':'))
    *strchr(base, ':') = '\0';
  pe->type = PERF_TYPE_RAW;
  pe->config = pe->raw_config = e->evtsel & STAT_EVTSEL_EVENT_BITS;
  for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
    if (text_ieq(base, generic[i].name)) {
      pe->type = generic[i].type;
      pe->config = generic[i].config;
    }
}

/* Whether e counts every retired instruction, the clock of -F: the
 * architectural Instructions Retired event (C0H, umask 00H, no CMASK, INV
 * or E: SDM Vol. 3B Table 18-1), as instructions and inst_retired.any. */
static bool record_counts_instructions(const struct stat_event *e)
{
  return !e->modelled && (e->evtsel & STAT_EVTSEL_EVENT_BITS) == 0xc0;
}

static int record_check_branches(const struct rec_opts *o);

/* A resolved event (the session's next): one the engine produces for
 * user code, described as perf record would. */
static int record_event(struct session *s, void *ctx, const char *spec)
{
  struct rec_opts *o = ctx;
  struct stat_event *e = &s->ev[s->nev];

  if (o->all_user) /* perf's --all-user: as if each event had :u */
    stat_event_user_only(e);
  if (!e->supported && e->modelled)
    return cli_usage_error(&cli_cmd_record,
                           "record: %s: a modelled event, and --no-model "
                           "leaves the model out",
                           spec);
  if (!e->supported)
    return cli_usage_error(&cli_cmd_record,
                           "record: %s: the engine does not produce this "
                           "event (softpmu stat shows it <not supported>), "
                           "so it cannot be sampled",
                           spec);
  if (!e->user)
    return cli_usage_error(&cli_cmd_record,
                           "record: %s counts kernel code only, which "
                           "qemu-x86_64 does not run: it would give no sample",
                           spec);
  /* perf's :p to :P (stat_events.h): PEBS for the run, as --precise. */
  if (e->precise && !o->precise) {
    o->precise = true;
    if (record_check_branches(o) != CLI_EXIT_OK)
      return CLI_EXIT_USAGE;
  }
  record_perf_type(e, &o->desc.ev[o->desc.nev]);
  o->desc.ev[o->desc.nev].per_second = record_counts_instructions(e);
  o->desc.nev++;
  return CLI_EXIT_OK;
}

/* ---- branch stacks --------------------------------------------------------
 */

/* -j's names, as perf record spells them (perf-record(1)), with the
 * branch_sample_type bit each sets. */
static const struct {
  const char *name;
  uint64_t bit;
} record_branch_names[] = {
    {"any", PERF_SAMPLE_BRANCH_ANY},
    {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
    {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
    {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
    {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
    {"call", PERF_SAMPLE_BRANCH_CALL},
    {"cond", PERF_SAMPLE_BRANCH_COND},
    {"call_stack", PERF_SAMPLE_BRANCH_CALL_STACK},
    {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
    {"u", PERF_SAMPLE_BRANCH_USER},
};

static int record_branch_filter(struct rec_opts *o, const char *list)
{
  const char *p = list;

  while (*p) {
    size_t len = strcspn(p, ","), i;

    for (i = 0;
         i < sizeof(record_branch_names) / sizeof(record_branch_names[0]); i++)
      if (strlen(record_branch_names[i].name) == len &&
          strncmp(p, record_branch_names[i].name, len) == 0)
        break;
    if (i < sizeof(record_branch_names) / sizeof(record_branch_names[0]))
      o->branch |= record_branch_names[i].bit;
    else if ((len == 1 && *p == 'k') || (len == 2 && strncmp(p, "hv", 2) == 0))
      return cli_usage_error(&cli_cmd_record,
                             "record: -j %s: qemu-x86_64 runs user code only, "
                             "so '%.*s' would record no branch",
                             list, (int)len, p);
    else
      return cli_usage_error(&cli_cmd_record,
                             "record: -j %s: '%.*s' is not a branch filter "
                             "the model has (any, any_call, any_ret, "
                             "ind_call, ind_jmp, call, cond, call_stack, u, "
                             "save_type)",
                             list, (int)len, p);
    p += len + (p[len] == ',');
  }
  if (!(o->branch &
        ~(uint64_t)(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_TYPE_SAVE)))
    return cli_usage_error(&cli_cmd_record,
                           "record: -j %s: no branch type (any, call, ...)",
                           list);
  return CLI_EXIT_OK;
}

/* What the profile's LBRs can do (SDM Vol. 3B 17.4.8: the LBR format in
 * IA32_PERF_CAPABILITIES[5:0]; 17.5 Core 2 has no MSR_LBR_SELECT;
 * 17.9 call-stack mode from Haswell, format 4; "Architectural Last
 * Branch Records": CPUID.1CH:EBX[1] branch filtering, [2] call stack). */
static int record_check_branches(const struct rec_opts *o)
{
  const spmu_profile *p = &o->s.profile;
  uint64_t types =
      o->branch &
      ~(uint64_t)(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_PLM_ALL |
                  PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES |
                  PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_HW_INDEX);
  bool arch = (p->features & SPMU_FEAT_ARCH_LBR) != 0;
  bool stack = (types & PERF_SAMPLE_BRANCH_CALL_STACK) != 0;
  bool filter = types != PERF_SAMPLE_BRANCH_ANY && !stack;

  if (!o->branch)
    return CLI_EXIT_OK;
  if (!p->lbr_depth && !arch)
    return cli_usage_error(&cli_cmd_record,
                           "record: %s has no last branch records (no LBR "
                           "format in IA32_PERF_CAPABILITIES, no CPUID leaf "
                           "1CH), so no branch stacks",
                           p->name);
  if (o->precise)
    return cli_usage_error(&cli_cmd_record,
                           "record: branch stacks with --precise are not "
                           "supported yet");
  if (stack && (arch ? !(p->lbr_leaf_1c[1] & 4)
                     : (p->perf_capabilities & SPMU_PERFCAP_LBR_FMT_MASK) < 4))
    return cli_usage_error(&cli_cmd_record,
                           "record: %s has no LBR call-stack mode (SDM Vol. 3B "
                           "17.9: Haswell and later; CPUID.1CH:EBX[2])",
                           p->name);
  if (filter && (arch ? !(p->lbr_leaf_1c[1] & 2) : p->lbr_depth == 4))
    return cli_usage_error(&cli_cmd_record,
                           "record: -j: %s cannot filter branches by type (no "
                           "MSR_LBR_SELECT, SDM Vol. 3B 17.5): only -j any",
                           p->name);
  return CLI_EXIT_OK;
}

/* --call-graph MODE: fp (the shadow stack, which -g gives) or lbr (the
 * LBR call stack, as perf record sets it up: BRANCH_STACK with
 * USER | CALL_STACK | NO_CYCLES | NO_FLAGS | HW_INDEX). */
static int record_callgraph_mode(struct rec_opts *o, const char *mode)
{
  o->desc.callchain = true;
  if (strcmp(mode, "fp") == 0)
    return CLI_EXIT_OK;
  if (strcmp(mode, "lbr") == 0) {
    o->lbr_callgraph = true;
    return CLI_EXIT_OK;
  }
  return cli_usage_error(&cli_cmd_record,
                         "record: --call-graph %s: fp (the shadow stack of "
                         "calls and returns) or lbr (the LBR call stack)",
                         mode);
}

/* ---- -I: the registers ------------------------------------------------- */

/* perf's x86-64 registers for -I (its names, <asm/perf_regs.h>'s
 * PERF_REG_X86_* indices): the general-purpose registers, IP, FLAGS, CS
 * and SS; perf record -I with no list asks for all of them (perf's
 * PERF_REGS_MASK: DS, ES, FS and GS are not sampled on x86-64). */
static const struct {
  const char *name;
  unsigned bit;
} record_regs[] = {
    {"AX", 0},   {"BX", 1},   {"CX", 2},   {"DX", 3},   {"SI", 4},
    {"DI", 5},   {"BP", 6},   {"SP", 7},   {"IP", 8},   {"FLAGS", 9},
    {"CS", 10},  {"SS", 11},  {"R8", 16},  {"R9", 17},  {"R10", 18},
    {"R11", 19}, {"R12", 20}, {"R13", 21}, {"R14", 22}, {"R15", 23},
};
#define REC_REGS_DEFAULT UINT64_C(0xff0fff)

/* Register name tok (len characters, any case), as a bit of the mask; 0
 * when perf has no such name here. */
static uint64_t record_reg_bit(const char *tok, size_t len)
{
  char up[8];
  size_t i;

  if (len == 0 || len >= sizeof(up))
    return 0;
  for (i = 0; i < len; i++)
    up[i] = (char)toupper((unsigned char)tok[i]);
  up[len] = '\0';
  for (i = 0; i < sizeof(record_regs) / sizeof(record_regs[0]); i++)
    if (strcmp(up, record_regs[i].name) == 0)
      return UINT64_C(1) << record_regs[i].bit;
  return 0;
}

/* -I (all of them) or --intr-regs=REG,... (perf's names, any case). */
static int record_intr_regs(struct rec_opts *o, const char *list)
{
  const char *tok, *end;

  o->intr_regs = 0;
  for (tok = list; tok && *tok; tok = *end ? end + 1 : end) {
    uint64_t bit;

    end = strchr(tok, ',');
    if (!end)
      end = tok + strlen(tok);
    if (!(bit = record_reg_bit(tok, (size_t)(end - tok))))
      return cli_usage_error(&cli_cmd_record,
                             "record: --intr-regs: unknown register '%.*s' "
                             "(AX, BX, CX, DX, SI, DI, BP, SP, IP, FLAGS, "
                             "CS, SS, R8-R15)",
                             (int)(end - tok), tok);
    o->intr_regs |= bit;
  }
  if (!o->intr_regs)
    o->intr_regs = REC_REGS_DEFAULT;
  return CLI_EXIT_OK;
}

/* ---- the command line ---------------------------------------------------- */

/* record's own options; the shared ones are the session's. */
enum record_key {
  REC_KEY_PERIOD = SESSION_KEY_COMMAND, /* -c N */
  REC_KEY_FREQ,                         /* -F FREQ */
  REC_KEY_FILTER,                       /* -j FILTER,... */
  REC_KEY_CALL_GRAPH,                   /* -g, --call-graph [fp|lbr] */
  REC_KEY_PRECISE,                      /* --precise */
  REC_KEY_BRANCH_ANY,                   /* -b */
  REC_KEY_ALL_USER,                     /* --all-user */
  REC_KEY_NO_BUILDID_CACHE,             /* -N, --no-buildid-cache */
  REC_KEY_INTR_REGS,                    /* -I, --intr-regs[=REGS] */
};

/* --call-graph takes its mode as the next argument only when it is one
 * (else the next argument is the program); dwarf is refused by name. */
static const char *const record_call_graph_modes[] = {"fp", "lbr", "dwarf",
                                                      NULL};

static const struct session_option record_options[] = {
    {"-c", "--count", SESSION_VALUE, REC_KEY_PERIOD, NULL},
    {"-F", "--freq", SESSION_VALUE, REC_KEY_FREQ, NULL},
    {"-j", "--branch-filter", SESSION_VALUE, REC_KEY_FILTER, NULL},
    {"-g", NULL, SESSION_FLAG, REC_KEY_CALL_GRAPH, NULL},
    {NULL, "--call-graph", SESSION_OPTIONAL, REC_KEY_CALL_GRAPH,
     record_call_graph_modes},
    {NULL, "--precise", SESSION_FLAG, REC_KEY_PRECISE, NULL},
    {"-b", "--branch-any", SESSION_FLAG, REC_KEY_BRANCH_ANY, NULL},
    {NULL, "--all-user", SESSION_FLAG, REC_KEY_ALL_USER, NULL},
    {"-N", "--no-buildid-cache", SESSION_FLAG, REC_KEY_NO_BUILDID_CACHE, NULL},
    {"-I", "--intr-regs", SESSION_OPTIONAL, REC_KEY_INTR_REGS, NULL},
    {NULL, NULL, SESSION_FLAG, 0, NULL},
};

static int record_option(struct session *s, void *ctx, int key, const char *val)
{
  struct rec_opts *o = ctx;

  (void)s;
  switch (key) {
  case REC_KEY_PERIOD:
    o->period_arg = val;
    return CLI_EXIT_OK;
  case REC_KEY_FREQ:
    o->freq_arg = val;
    return CLI_EXIT_OK;
  case REC_KEY_FILTER:
    return record_branch_filter(o, val);
  case REC_KEY_CALL_GRAPH:
    if (val)
      return record_callgraph_mode(o, val);
    o->desc.callchain = true;
    return CLI_EXIT_OK;
  case REC_KEY_PRECISE:
    o->precise = true;
    return CLI_EXIT_OK;
  case REC_KEY_ALL_USER:
    o->all_user = true;
    return CLI_EXIT_OK;
  case REC_KEY_NO_BUILDID_CACHE:
    o->no_buildid_cache = true;
    return CLI_EXIT_OK;
  case REC_KEY_INTR_REGS:
    return record_intr_regs(o, val);
  default: /* REC_KEY_BRANCH_ANY */
    o->branch |= PERF_SAMPLE_BRANCH_ANY;
    return CLI_EXIT_OK;
  }
}

/* -F FREQ: samples per second on record's clock, where a second is 10^9
 * retired instructions of the thread (REC_NS_PER_SECOND): a fixed period
 * of round(10^9 / FREQ) events, for every event. perf's "max" (the
 * kernel's perf_event_max_sample_rate) has no counterpart here. */
static int record_freq_period(struct rec_opts *o, uint64_t *n)
{
  uint64_t f;

  if (o->period_arg)
    return cli_usage_error(&cli_cmd_record,
                           "record: cannot set frequency and period at the "
                           "same time (-F and -c), as perf record refuses");
  if (strcmp(o->freq_arg, "max") == 0)
    return cli_usage_error(&cli_cmd_record,
                           "record: -F max: perf's maximum is the kernel's "
                           "sample rate limit, which the model has not; give "
                           "a frequency from 1 to %llu",
                           REC_NS_PER_SECOND);
  if (!text_parse_u64(o->freq_arg, &f) || f == 0 || f > REC_NS_PER_SECOND)
    return cli_usage_error(&cli_cmd_record,
                           "record: -F %s: the frequency is from 1 to %llu "
                           "samples per second (a second being 10^9 retired "
                           "instructions)",
                           o->freq_arg, REC_NS_PER_SECOND);
  o->desc.freq = f;
  *n = (REC_NS_PER_SECOND + f / 2) / f;
  return CLI_EXIT_OK;
}

/* The period: 1 <= N < 2^width - 1, the counter being preset to -N in
 * its width (SDM Vol. 3B 18.2.1: GP counters are gp_width bits wide,
 * CPUID.0AH:EAX[23:16]). */
static int record_set_period(struct rec_opts *o)
{
  unsigned w = o->s.profile.gp_width;
  uint64_t max = (w >= 64 ? UINT64_MAX : (1ULL << w) - 1) - 1, n;
  int rc;

  o->desc.period = REC_DEFAULT_PERIOD;
  if (o->freq_arg) {
    if ((rc = record_freq_period(o, &n)) != CLI_EXIT_OK)
      return rc;
    if (n > max)
      return cli_usage_error(&cli_cmd_record,
                             "record: -F %s: a period of %" PRIu64
                             " events, beyond %s's %u-bit counters",
                             o->freq_arg, n, o->s.profile.name, w);
    o->desc.period = n;
    return CLI_EXIT_OK;
  }
  if (!o->period_arg)
    return CLI_EXIT_OK;
  if (!text_parse_u64(o->period_arg, &n) || n == 0 || n > max)
    return cli_usage_error(&cli_cmd_record,
                           "record: -c %s: the period is from 1 to %" PRIu64
                           " on %s, whose counters are %u bits wide",
                           o->period_arg, max, o->s.profile.name, w);
  o->desc.period = n;
  return CLI_EXIT_OK;
}

/* perf's groups as perf record writes them: each event's leader, and
 * for {a,b}:S (leader sampling) the events the leader's samples read. */
static int record_groups(struct rec_opts *o)
{
  const struct session *s = &o->s;
  unsigned i, j;

  for (i = 0; i < s->nev; i++) {
    if (!s->group[i])
      continue;
    for (j = 0; s->group[j] != s->group[i]; j++)
      ;
    o->desc.ev[i].group = j + 1;
    o->desc.ev[i].sample_read = s->leader_sampled[s->group[i]];
    if (o->desc.ev[i].sample_read && o->precise)
      return cli_usage_error(&cli_cmd_record,
                             "record: {...}:S with --precise (PEBS) is not "
                             "supported yet");
  }
  return CLI_EXIT_OK;
}

static int record_setup(struct rec_opts *o)
{
  unsigned l;
  int rc;

  if ((rc = session_load_profile(&o->s)) != CLI_EXIT_OK)
    return rc;
  /* PEBS: SDM Vol. 3B 18.4.4; a part without it has no precise mode. */
  if (o->precise && !(o->s.profile.features & SPMU_FEAT_PEBS))
    return cli_usage_error(&cli_cmd_record,
                           "record: --precise: %s has no PEBS (SDM Vol. 3B "
                           "18.4.4), so no precise sampling",
                           o->s.profile.name);
  if (o->lbr_callgraph && o->branch)
    return cli_usage_error(&cli_cmd_record,
                           "record: --call-graph lbr takes the branch stack "
                           "that -b and -j would: not both");
  if (o->lbr_callgraph)
    o->branch = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
                PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
                PERF_SAMPLE_BRANCH_HW_INDEX;
  if ((rc = record_check_branches(o)) != CLI_EXIT_OK)
    return rc;
  o->desc.branch_sample_type = o->branch;
  o->desc.branch_feature = o->branch && !o->lbr_callgraph;
  if ((rc = record_set_period(o)) != CLI_EXIT_OK ||
      (rc = session_choose_model(&o->s)) != CLI_EXIT_OK)
    return rc;
  if (o->s.nlists == 0)
    o->s.event_lists[o->s.nlists++] = o->s.model.use == STAT_MODEL_ON
                                          ? REC_DEFAULT_MODELLED
                                          : REC_DEFAULT_EXACT;
  if ((rc = session_add_given_events(&o->s)) != CLI_EXIT_OK)
    return rc;
  /* PEBS arms every sampling counter (a :p on one event included). */
  for (l = 0; l < o->desc.nev; l++)
    o->desc.ev[l].precise = o->precise;
  /* The registers are the PEBS records' (docs/decisions.md). */
  if (o->intr_regs && !o->precise)
    return cli_usage_error(&cli_cmd_record,
                           "record: -I (--intr-regs): the registers come "
                           "from the PEBS records (SDM Vol. 3B 18.4.4): "
                           "sample a precise event (:p, :pp, :ppp, :P, or "
                           "--precise)");
  o->desc.regs_intr = o->intr_regs;
  return record_groups(o);
}

/* ---- converting ---------------------------------------------------------- */

/* As perf record: a non-empty file already at the output path is kept,
 * renamed FILE.old. */
static void record_backup(const char *out)
{
  struct stat st;
  char old[4096];

  if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      snprintf(old, sizeof(old), "%s.old", out) < (int)sizeof(old))
    rename(out, old);
}

/* The output, checked before the program runs as perf record opens it
 * then: a file already there kept as FILE.old, FILE created and its magic
 * written (perf writes its header first too), so that one that cannot be
 * written, or opens but takes no bytes (/proc/version for root), costs no
 * run. The file is written whole once the program has ended. */
static int record_open_output(const struct rec_opts *o)
{
  static const char magic[] = "PERFILE2";
  int fd, err = 0;

  record_backup(o->s.out);
  if ((fd = open(o->s.out, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
    cli_error("record: -o %s: %s", o->s.out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (write(fd, magic, sizeof(magic) - 1) != (ssize_t)(sizeof(magic) - 1))
    err = errno ? errno : EIO;
  if (close(fd) != 0 && !err)
    err = errno;
  if (err) {
    cli_error("record: -o %s: %s", o->s.out, strerror(err));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* perf's build-id cache (buildid_cache.h), or NULL: -N, or no $HOME. */
static const char *record_buildid_dir(const struct rec_opts *o, char *buf,
                                      size_t cap)
{
  if (o->no_buildid_cache || buildid_cache_dir(buf, cap) != 0)
    return NULL;
  return buf;
}

static int record_convert(const struct rec_opts *o, const char *stream)
{
  struct record_stream_stats st;
  struct perf_env_buf env;
  char why[512], bdir[4096];
  uint64_t total = 0;
  unsigned i;
  int rc;

  if (perf_env_fill(&env, &o->s.profile, o->argc, o->argv) != 0) {
    cli_error("record: out of memory");
    return CLI_EXIT_USAGE;
  }
  rc = record_stream_convert(stream, &o->desc, &env.env, o->s.out,
                             record_buildid_dir(o, bdir, sizeof(bdir)), &st,
                             why, sizeof(why));
  perf_env_free(&env);
  if (rc != 0) {
    cli_error("record: %s", why);
    return CLI_EXIT_USAGE;
  }
  for (i = 0; i < o->desc.nev; i++)
    total += st.samples[i];
  fprintf(stderr, "[ softpmu record: wrote %" PRIu64 " samples to %s", total,
          o->s.out);
  if (st.lost)
    fprintf(stderr, ", %" PRIu64 " lost", st.lost);
  fprintf(stderr, " ]\n");
  if (st.buildid_cache_failed)
    cli_error("record: warning: %u file(s) not added to the build-id cache "
              "(perf archive packs from it): %s; -N leaves the cache "
              "alone",
              st.buildid_cache_failed, st.buildid_cache_why);
  return CLI_EXIT_OK;
}

/* ---- running ------------------------------------------------------------- */

/* The process name for the plugin's comm=: the program's file name, as
 * the kernel keeps it (15 characters); commas, which would split QEMU's
 * plugin arguments, become '_'. */
static void record_comm(const char *prog, char *comm, size_t len)
{
  const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
  char *c;

  snprintf(comm, len, "%.15s", base);
  for (c = comm; *c; c++)
    if (*c == ',')
      *c = '_';
}

/* The plugin's arguments (protocol/args.h) of record mode, beyond the
 * session's. */
static void record_plugin_args(const struct rec_opts *o,
                               struct spmu_plugin_args *a)
{
  unsigned i;

  a->period = o->desc.period;
  a->callgraph = o->desc.callchain && !o->lbr_callgraph;
  a->precise = o->precise;
  a->regs = o->intr_regs != 0;
  for (i = 0; i < o->desc.nev; i++)
    if (o->desc.ev[i].sample_read && o->desc.ev[i].group != i + 1)
      a->read |= 1ULL << i; /* {...}:S: read at the leader's samples */
  record_comm(o->s.prog, a->comm, sizeof(a->comm));
  /* The privilege levels default to the event's (perf_event_open(2)):
   * user code only here. */
  if (o->branch)
    a->branch =
        o->branch |
        (o->branch & PERF_SAMPLE_BRANCH_PLM_ALL ? 0 : PERF_SAMPLE_BRANCH_USER);
}

/* An empty stream: the plugin said why on stderr. */
static void record_explain_empty(const char *stream)
{
  struct stat st;

  if (stat(stream, &st) == 0 && st.st_size == 0)
    cli_error("record: the plugin wrote no samples (see the messages above)");
}

static int record_execute(struct rec_opts *o)
{
  struct spmu_plugin_args a;
  int rc;

  session_plugin_args(&o->s, &a);
  record_plugin_args(o, &a);
  if ((rc = session_start(&o->s, &a)) == CLI_EXIT_OK &&
      (rc = session_run(&o->s)) == CLI_EXIT_OK) {
    record_explain_empty(o->s.tmp);
    if ((rc = record_convert(o, o->s.tmp)) == CLI_EXIT_OK)
      rc = session_exit_status(&o->s);
  }
  session_end(&o->s);
  return rc;
}

static const struct session_command record_session = {
    .name = "record",
    .sampling = true,
    .groups = true,
    .sample_read = true,
    .sigint_stops = true,
    .options = record_options,
    .option = record_option,
    .event = record_event,
    .guard = cli_cleanup_guard,
    .say = cli_say,
    .say_opaque = &cli_cmd_record,
};

/* Options end at the program's name: record parses its own command line. */
static int record_main(int argc, char **argv)
{
  struct rec_opts o;
  int rc;

  memset(&o, 0, sizeof(o));
  o.argc = argc;
  o.argv = argv;
  session_init(&o.s, &record_session, &o);
  o.s.profile_name = CLI_DEFAULT_PROFILE;
  o.s.out = REC_DEFAULT_OUTPUT;
  if ((rc = session_parse(&o.s, argc, argv)) == SESSION_HELP) {
    cli_command_manual(&cli_cmd_record);
    return CLI_EXIT_OK;
  }
  if (rc != CLI_EXIT_OK)
    return rc;
  if (o.s.from && o.s.prog_argv[0])
    return cli_usage_error(&cli_cmd_record,
                           "record: --from converts a stream: no program");
  if ((rc = record_setup(&o)) != CLI_EXIT_OK)
    return rc;
  if (o.s.from) {
    record_backup(o.s.out);
    return record_convert(&o, o.s.from);
  }
  if ((rc = session_find(&o.s)) != CLI_EXIT_OK)
    return rc;
  /* A QEMU known to be older than 9 gives a plugin no registers (the
   * plugin refuses regs=1 on any QEMU that cannot give them). */
  if (o.intr_regs && o.s.qemu_major && o.s.qemu_major < 9)
    return cli_usage_error(&cli_cmd_record,
                           "record: -I (--intr-regs): QEMU %d gives a plugin "
                           "no registers; QEMU 9.1 or later does (--qemu, "
                           "scripts/qemu-user --debian 13)",
                           o.s.qemu_major);
  if ((rc = record_open_output(&o)) != CLI_EXIT_OK)
    return rc;
  return record_execute(&o);
}

/* clang-format off: the manual's text is laid out as it prints */
const struct cli_command cli_cmd_record = {
    .name = "record",
    .summary = "run a program and sample its events into perf.data",
    .synopsis = "[-e EVENT,...] [-c PERIOD | -F FREQ] [--precise] [-I] [-g]\n"
                "             [-o FILE]"
                " [-b | -j FILTER,...] [--call-graph fp|lbr]\n"
                "             [--cpu PROFILE] [--model SPEC | --no-model]"
                " [--all-user]\n"
                "             [-N] [--qemu PATH] [--vdso] [--seed N]\n"
                "             [--] PROG [ARGS...]\n"
                "    softpmu record [-e EVENT,...] [-c PERIOD] [-g] [-o FILE]"
                " --from STREAM",
    .description =
        "    Runs PROG under qemu-x86_64 with softpmu's QEMU plugin, as\n"
        "    softpmu stat does, with each event's counter preset to -PERIOD\n"
        "    and its PMI enabled (SDM Vol. 3B 18.2.1.1, INT): at each\n"
        "    overflow the model's PMI is handled as a driver handles it and\n"
        "    a sample is taken. A sample's IP is the exact instruction whose\n"
        "    retirement overflowed the counter, not a skid address (with\n"
        "    --precise, the IP the PEBS record gives).\n"
        "    The samples are written as a perf.data file that perf report,\n"
        "    perf script and softpmu report read. Forked children and\n"
        "    threads are sampled too. The program's input, output and exit\n"
        "    status pass through. As perf record does, the files sampled\n"
        "    are added to perf's build-id cache, $HOME/.debug, from which\n"
        "    perf archive packs them (not with -N).\n"
        "\n"
        "    EVENT is spelt as for softpmu stat; only the events the engine\n"
        "    produces can be sampled: exactly, instructions, branches by\n"
        "    kind, loads and stores retired; through the modelled\n"
        "    micro-architecture (as softpmu stat), cycles, cache-misses,\n"
        "    branch-misses, L1D.REPLACEMENT, MEM_LOAD_RETIRED.*: a sample\n"
        "    of a modelled event is taken when the model's count overflows.\n"
        "    Default: cycles (perf's is cycles:P) when a model runs (the\n"
        "    profile's part or --model), plain, not PEBS: branch stacks\n"
        "    with PEBS are not supported yet; instructions without a model\n"
        "    (core-duo, core2 and nehalem have no part; --no-model).\n",
    .options =
        "    -e, --event EVENT[,EVENT...]\n"
        "        The events to sample (repeatable); each its own counter.\n"
        "        perf's groups {a,b} and {a,b}:u are written as perf record\n"
        "        writes them (perf evlist -g, perf report --group), each\n"
        "        member sampling on its own; with :S ({a,b}:S, leader\n"
        "        sampling) only the leader samples and each of its samples\n"
        "        carries the group's counts, from which perf report and perf\n"
        "        script take the members' (not with --precise).\n\n"
        "    -c, --count PERIOD\n"
        "        Events between two samples, from 1 to 2^W - 2 for counters\n"
        "        W bits wide (48 on skylake). Default: 100003 (perf's default\n"
        "        is -F 4000, whose adaptive period is not modelled: see -F;\n"
        "        a prime, so that the samples do not fall in step with a "
        "loop).\n\n"
        "    -F, --freq FREQ\n"
        "        Samples per second, a second being 10^9 retired\n"
        "        instructions of the thread (a sample's time is its thread's\n"
        "        retired instructions, shown as nanoseconds): a fixed period\n"
        "        of round(10^9 / FREQ) events, FREQ from 1 to 10^9. On an\n"
        "        event counting retired instructions that is FREQ samples a\n"
        "        second, written as perf writes -F (freq, sample_freq); on\n"
        "        any other event a sample every that many of its events,\n"
        "        written as a period (perf's adaptive period is not\n"
        "        modelled). Not with -c, as in perf; -F max is refused.\n\n"
        "    --all-user\n"
        "        Sample every event in user code only, as if each had :u\n"
        "        (SDM Vol. 3B 18.2.1.1, USR): an event given :k alone, "
        "refused\n"
        "        without it, is then sampled. Under qemu-user only user code\n"
        "        runs.\n\n"
        "    -N, --no-buildid-cache\n"
        "        Add nothing to perf's build-id cache ($HOME/.debug), as\n"
        "        perf record -N; the build ids are still written in FILE.\n\n"
        "    --precise\n"
        "        Sample through PEBS (SDM Vol. 3B 18.4.4): records land in\n"
        "        the DS buffer and are drained at its threshold, as a driver\n"
        "        drains them; the assist comes at the counter's next event\n"
        "        (a record every PERIOD + 1 events), and the IP is the\n"
        "        record's EventingIP (format 2 on) or, on Core 2 and\n"
        "        Nehalem, the next instruction's. Profiles with PEBS only.\n\n"
        "    -I, --intr-regs[=REG,...]\n"
        "        With a precise event (:p, --precise), each sample carries "
        "the\n"
        "        registers its PEBS record holds: the program's general-\n"
        "        purpose registers after the eventing instruction (SDM Vol. "
        "3B\n"
        "        18.4.4.2), for perf script -F ip,iregs. -I gives perf's\n"
        "        default set: AX, BX, CX, DX, SI, DI, BP, SP, IP (the\n"
        "        sample's), FLAGS (QEMU keeps CF, PF, AF, ZF, SF, OF and DF\n"
        "        apart: they read 0; bit 3 marks the exact IP, as Linux\n"
        "        marks it), CS, SS (Linux's user selectors), R8-R15; or the\n"
        "        REGs named (perf's names). Needs QEMU 9.1 or later; refused\n"
        "        without a precise event. E.g. softpmu record -e\n"
        "        instructions:pp -c 10007 -I -- ./prog, then perf script -F\n"
        "        ip,iregs.\n\n"
        "    -g, --call-graph [fp]\n"
        "        Record each sample's call chain, from a shadow stack of the\n"
        "        calls and returns the program executed (nothing is unwound\n"
        "        from memory).\n\n"
        "    --call-graph lbr\n"
        "        The call chain from the model's LBRs in call-stack mode (SDM\n"
        "        Vol. 3B 17.9, IA32_LBR_CTL.CALL_STACK), as perf record sets\n"
        "        it up; perf report stitches the chain from the branch stack.\n"
        "        Skylake, Haswell, Ice Lake, Sapphire Rapids.\n\n"
        "    -b, --branch-any\n"
        "        Each sample carries the model's last branch records (SDM "
        "Vol.\n"
        "        3B 17.4.8), programmed and read at each PMI as a driver "
        "does:\n"
        "        the last 4 to 32 taken branches, most recent first, for perf\n"
        "        script -F brstack and perf report --branch-history. With\n"
        "        the modelled micro-architecture (loaded when a modelled\n"
        "        event is sampled, e.g. -e cycles -b, as perf record -b on\n"
        "        cycles) each entry carries its branch predictor's mispredict\n"
        "        flag (M or P) and its timing model's cycles since the\n"
        "        previous entry, where the LBR format has them (MISPRED from\n"
        "        format 3, cycles in MSR_LBR_INFO_x of format 5 and in\n"
        "        architectural LBRs: SDM Vol. 3B 17.12.1). Without it flags\n"
        "        and cycles are not modelled: every branch is marked\n"
        "        predicted, with 0 cycles. Profiles with LBRs (not "
        "core-duo).\n\n"
        "    -j, --branch-filter FILTER[,FILTER...]\n"
        "        As -b, the branches of these kinds only (perf's names): any,\n"
        "        any_call, any_ret, ind_call, ind_jmp, call, cond, "
        "call_stack,\n"
        "        u; programmed in MSR_LBR_SELECT or IA32_LBR_CTL (none on\n"
        "        core2, which records every branch: only any there).\n"
        "        save_type adds each branch's type (COND, UNCOND, IND, CALL,\n"
        "        IND_CALL, RET), which perf script -F brstack prints.\n\n"
        "    -o, --output FILE\n"
        "        The perf.data file to write. Default: perf.data. A file\n"
        "        already there is kept as FILE.old, as perf record does.\n"
        "        FILE is created and written to before PROG runs: if it\n"
        "        cannot be, PROG is not run (exit status 2).\n\n"
        "    --cpu PROFILE\n"
        "        The processor to model, a preset name (as softpmu stat\n"
        "        --cpu). Default: " CLI_DEFAULT_PROFILE
        ", as in every softpmu command.\n\n"
        "    --model SPEC, --no-model\n"
        "        The modelled micro-architecture, as for softpmu stat\n"
        "        (default: the profile's part); loaded only when a modelled\n"
        "        event is sampled (its predictor and timing then also give\n"
        "        the branch stacks' flags and cycles).\n\n" CLI_QEMU_OPTION_TEXT
        "    --from STREAM\n"
        "        Run nothing: convert a sample stream the plugin wrote\n"
        "        (qemu-x86_64 -plugin libsoftpmu-qemu.so,record=STREAM,...)\n"
        "        with the events and period it was given.\n\n"
        "    -a, -p PID, -t TID, -C CPUS, -G CGROUP\n"
        "        perf's targets, refused with the reason (status 2): the\n"
        "        program runs under qemu-x86_64, in user mode, so there is no\n"
        "        system, other process or thread, CPU or cgroup to count.\n",
    .exit_status =
        "    The program's exit status (128 + N when killed by signal N);\n"
        "    127 when PROG is not found, 126 when it cannot be run (a\n"
        "    directory included); 2 for bad usage (an unknown event, an\n"
        "    empty event list, a bad period or frequency, -F with -c,\n"
        "    --precise without PEBS, -I without a precise event or under a\n"
        "    QEMU before 9, an -o FILE that cannot be written) or\n"
        "    when qemu-x86_64 or the plugin is missing (or --qemu's or\n"
        "    $SOFTPMU_QEMU's qemu-x86_64 cannot load it) or the stream is\n"
        "    malformed. Killed by SIGHUP, SIGINT, SIGPIPE or SIGTERM,\n"
        "    record removes its temporary file, passes the signal to PROG\n"
        "    and waits for it, then dies of the signal. While PROG runs, a\n"
        "    SIGINT sent to record alone (kill -INT, not Ctrl-C, which PROG\n"
        "    gets too) stops PROG with SIGTERM, as perf record does; the\n"
        "    samples are written and PROG's status is 143.\n",
    .examples = "    softpmu record -- ./prog\n"
                "    softpmu record -b -c 10007 -- ./prog && perf report "
                "--branch-history\n"
                "    softpmu record -e instructions -F 10000 -- ./prog\n"
                "    softpmu record -e br_inst_retired.near_call -c 1009 -g "
                "-- ./prog\n"
                "    softpmu record --precise -o prog.data -- ./prog && "
                "perf report -i prog.data\n"
                "    softpmu record -e cache-misses -c 1009 -- ./prog && "
                "softpmu report\n",
    .flags = CLI_FLAG_OWN_CPU_OPTION,
    .main = record_main,
};
/* clang-format on */
