/* SPDX-License-Identifier: MIT */
/* softpmu run: the command. Reads SCRIPT, parses it (script.c), sets a
 * run up on a modelled core and runs it statement by statement
 * (run_exec.c), then writes the --svg file; the manual page is here.
 * run.h describes the layers below; docs/scripts.md is the reference.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/events.h>
#include <softpmu/pmu.h>

#include "cli_dirs.h"
#include "run.h"

/* ---- setting a run up ---------------------------------------------------- */

/* Counter `name` of lp, controlled by MSR `ctl`, numbered `index` in the
 * model's events (GLOBAL_STATUS bit numbering). */
static bool add_ctr(struct run *r, unsigned lp, const char *name,
                    const char *ctl, unsigned index)
{
  struct ctr *c = &r->ctr[r->nctr];
  spmu_msr_info m;
  uint32_t ctl_addr;
  char label[64];

  memset(c, 0, sizeof(*c));
  if (spmu_msr_lookup(r->p, name, &c->addr) != SPMU_OK ||
      spmu_msr_info_get(r->p, c->addr, &m) != SPMU_OK ||
      spmu_msr_lookup(r->p, ctl, &ctl_addr) != SPMU_OK)
    return true; /* not in this profile */
  c->lp = lp;
  c->index = index;
  snprintf(c->name, sizeof c->name, "%s", m.name);
  c->mask = m.width >= 64 ? UINT64_MAX : (UINT64_C(1) << m.width) - 1;
  c->val = run_rd(r, lp, c->addr);
  c->lane = -1;
  if (r->tl) {
    if (r->show_lp)
      snprintf(label, sizeof label, "lp %u %s", lp, c->name);
    else
      snprintf(label, sizeof label, "%s", c->name);
    c->lane = timeline_counter(r->tl, lp, label, m.width);
    if (c->lane < 0 || !timeline_step(r->tl, c->lane, 0, c->val))
      return false;
  }
  r->nctr++;
  return true;
}

/* Every GP and fixed counter of every logical processor. */
static bool add_counters(struct run *r)
{
  char name[32], ctl[32];
  unsigned lp, i;

  size_t most = (size_t)r->threads * (SPMU_MAX_GP + SPMU_MAX_FIXED);

  r->ctr = calloc(most, sizeof(*r->ctr));
  if (!r->ctr)
    return false;
  for (lp = 0; lp < r->threads; lp++) {
    for (i = 0; i < r->p->gp; i++) {
      snprintf(name, sizeof name, "IA32_PMC%u", i);
      snprintf(ctl, sizeof ctl, "IA32_PERFEVTSEL%u", i);
      if (!add_ctr(r, lp, name, ctl, i))
        return false;
    }
    for (i = 0; i < SPMU_MAX_FIXED; i++) {
      if (!(r->p->fixed_mask >> i & 1))
        continue;
      snprintf(name, sizeof name, "IA32_FIXED_CTR%u", i);
      if (!add_ctr(r, lp, name, "IA32_FIXED_CTR_CTRL", SPMU_COUNTER_FIXED(i)))
        return false;
    }
  }
  return true;
}

static int run_start(struct run *r, const struct script *s, bool json, bool svg)
{
  spmu_host host = {.opaque = r,
                    .read_mem = run_mem_host_read,
                    .write_mem = run_mem_host_write,
                    .machine_state = run_mem_host_state};
  int rc;

  memset(r, 0, sizeof(*r));
  r->s = s;
  r->json = json;
  r->deliver = spmu_deliver;
  rc = spmu_core_new(&s->profile, &r->core);
  if (rc != SPMU_OK) {
    cli_error("%s: %s", s->file, spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  r->p = spmu_core_profile(r->core);
  r->threads = spmu_core_threads(r->core);
  r->show_lp = s->uses_lp;
  run_view_host(&host);
  spmu_core_set_host(r->core, &host);
  if (!run_regs_init(r) || !run_mem_init(&r->mem, s) ||
      (svg && !(r->tl = timeline_new())) || !add_counters(r) ||
      !run_view_init(r)) {
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

static void run_end(struct run *r)
{
  run_view_free(r);
  run_regs_free(r);
  run_mem_free(&r->mem);
  timeline_free(r->tl);
  free(r->ctr);
  spmu_core_free(r->core);
}

static int write_svg(const struct run *r, const char *path)
{
  char title[256];
  FILE *f = fopen(path, "w");

  if (!f) {
    cli_error("cannot write %s: %s", path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  snprintf(title, sizeof title,
           "softpmu run %s on %s: %" PRIu64 " clocks, %" PRIu64 " PMI%s",
           r->s->file, r->p->name, r->clock, r->pmis, r->pmis == 1 ? "" : "s");
  timeline_write_svg(r->tl, f, title, r->clock);
  if (ferror(f) | fclose(f)) {
    cli_error("cannot write %s: %s", path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* ---- reading the script -------------------------------------------------- */

#define SCRIPT_MAX_BYTES (16u << 20)

/* The contents of path ("-": standard input), NUL-terminated, malloc'ed;
 * NULL after a message. */
static char *read_script(const char *path)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  size_t len = 0, cap = 0, n;
  char *buf = NULL;

  if (!f) {
    cli_error("cannot read %s: %s", path, strerror(errno));
    return NULL;
  }
  do {
    if (len + 4096 + 1 > cap) {
      char *more;
      cap = cap ? 2 * cap : 8192;
      more = len < SCRIPT_MAX_BYTES ? realloc(buf, cap) : NULL;
      if (!more) {
        cli_error(len < SCRIPT_MAX_BYTES ? "out of memory"
                                         : "%s: larger than 16 MiB",
                  path);
        free(buf);
        buf = NULL;
        break;
      }
      buf = more;
    }
    n = fread(buf + len, 1, 4096, f);
    len += n;
  } while (n > 0);
  if (buf && ferror(f)) {
    cli_error("cannot read %s: %s", path, strerror(errno));
    free(buf);
    buf = NULL;
  }
  if (f != stdin)
    fclose(f);
  if (buf && memchr(buf, '\0', len)) {
    cli_error("%s: not a text file (it holds a NUL byte)", path);
    free(buf);
    return NULL;
  }
  if (buf)
    buf[len] = '\0';
  return buf;
}

static int run_run(const struct cli_args *a)
{
  const char *path = a->argv[0];
  const char *file = strcmp(path, "-") == 0 ? "<stdin>" : path;
  struct script s;
  struct run r;
  char *text;
  size_t i;
  int rc, errors;

  text = read_script(path);
  if (!text)
    return CLI_EXIT_USAGE;
  errors = script_parse(&s, file, text, a->cpu, &a->profile);
  free(text);
  if (errors != 0) {
    script_free(&s);
    return CLI_EXIT_USAGE;
  }
  rc = run_start(&r, &s, (a->flags & CLI_FLAG_JSON) != 0, a->svg != NULL);
  if (rc == CLI_EXIT_OK) {
    run_trace_cpu(&r, a->cpu ? "--cpu" : s.cpu_line ? "script" : "default");
    for (i = 0; i < s.nstmt && rc == CLI_EXIT_OK; i++)
      rc = run_exec(&r, &s.stmt[i]);
    if (rc == CLI_EXIT_OK)
      run_trace_end(&r);
    if (a->svg && rc != CLI_EXIT_USAGE) {
      int wrc = write_svg(&r, a->svg);
      if (wrc != CLI_EXIT_OK)
        rc = wrc;
    }
  }
  run_end(&r);
  script_free(&s);
  return rc;
}

/* The manual keeps its text column. */
/* clang-format off */
const struct cli_command cli_cmd_run = {
  .name = "run",
  .summary = "run a PMU scenario script and trace what the PMU does",
  .synopsis = "[--cpu PROFILE] [--json] [--svg FILE] SCRIPT",
  .description =
    "    Runs SCRIPT, a scenario in a small line-based language, on a\n"
    "    modelled core and prints a trace of what the PMU did: a line for\n"
    "    each statement that wrote or read something, and one for each\n"
    "    counter overflow, PMI and freeze, PEBS assist and branch record,\n"
    "    at the clock it happened. The whole script is parsed first: if\n"
    "    any line has an error, every error is reported and nothing runs.\n"
    "    SCRIPT - reads standard input. The full reference is\n"
    "    " CLI_DOCDIR "/scripts.md, and\n"
    "    " CLI_DOCDIR "/examples/scripts/ holds a script\n"
    "    for each procedure of the SDM that drivers follow.\n"
    "\n"
    "    One statement per line; '#' starts a comment. Keywords, MSR names,\n"
    "    field names and event names are case-insensitive. MSR is an SDM\n"
    "    name or an address (0x-hex or decimal). VALUE is 0x-hex, decimal\n"
    "    or -N: the two's complement within the MSR's width, which for a\n"
    "    counter is what a driver writes to sample every N events.\n"
    "\n"
    "    cpu PROFILE\n"
    "        The processor, as for --cpu (threads=N in a key=value profile\n"
    "        gives the core N logical processors). Only as the first\n"
    "        statement; without it the script runs on the --cpu profile.\n"
    "        --cpu, when given, replaces it.\n"
    "    lp N\n"
    "        Run what follows on logical processor N (from the start: 0).\n"
    "    wrmsr MSR VALUE\n"
    "    wrmsr MSR FIELD=VALUE...\n"
    "        WRMSR, as the guest executes it. The trace shows the register\n"
    "        the write changes, old -> new, or #GP. A FIELD=VALUE list\n"
    "        starts from 0, as `softpmu encode` does; a VALUE wider than\n"
    "        its FIELD is a script error. An MSR the profile lacks is\n"
    "        accepted: the access raises #GP.\n"
    "    host-wrmsr MSR VALUE | FIELD=VALUE...\n"
    "        The same through the host (VMM) path: never #GP; a value the\n"
    "        host path refuses is reported with its error.\n"
    "    rdmsr MSR\n"
    "        RDMSR: the value and its non-zero fields, or #GP.\n"
    "    rdpmc ECX [cpl=N] [pce=0|1]\n"
    "        RDPMC at CPL N (default 0) with CR4.PCE (default 0).\n"
    "    deliver LINE... [cpl=N] [x COUNT] [tx] [enclave] [smm] [ia32e]\n"
    "            [mem=ADDR [lat=N] [src=N] [store]] [branch=FROM->TO [predicted]]\n"
    "        One clock, or COUNT identical clocks, at CPL N (default 3) in\n"
    "        which each event LINE happens: EVENT/UMASK[:COUNT] such as\n"
    "        0xc0/0x00:3, or an architectural event (SDM Table 18-1) by\n"
    "        name[:COUNT]: cycles, instructions, ref-cycles,\n"
    "        llc-references, llc-misses, branches, branch-misses,\n"
    "        topdown-slots, or the SDM name with dashes\n"
    "        (unhalted-core-cycles). ref-cycles and topdown-slots also\n"
    "        reach fixed counters 2 and 3. tx, enclave and smm mark the\n"
    "        clocks as in a transaction, an SGX enclave or SMM; ia32e as\n"
    "        in IA-32e mode (the 64-bit DS layout even without DTES64).\n"
    "        mem=ADDR gives each clock's instruction a memory access at\n"
    "        linear address ADDR: a load of lat=N cycles (for load\n"
    "        latency) from data source src=N, or with store a store (src=\n"
    "        its status), which a PEBS record reports. branch=FROM->TO\n"
    "        gives it a taken branch, a predicted one with predicted, for\n"
    "        the branch trace store.\n"
    "    memory BASE SIZE\n"
    "        A window of guest linear memory: SIZE bytes (up to 16 MiB)\n"
    "        from address BASE, zero-filled, there from this statement on.\n"
    "        The model reads and writes the DS save area and the PEBS and\n"
    "        BTS buffers in it; an access outside every window fails, and\n"
    "        the record is lost.\n"
    "    poke ADDR VALUE [size=1|2|4|8]\n"
    "        Write VALUE in size bytes (default 8), little-endian, at ADDR\n"
    "        of a window declared above: to set up the DS save area.\n"
    "    state REGISTER=VALUE...\n"
    "        The machine state a PEBS record of this logical processor\n"
    "        holds from now on, all zero but what is named: rip (the\n"
    "        eventing instruction), next (the one after it), rflags, tsc,\n"
    "        rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8-r15.\n"
    "    signal topa|uncore|condchgd\n"
    "        The host reports a full ToPA region, an uncore counter\n"
    "        overflow or a changed PMU condition (IA32_PERF_GLOBAL_STATUS\n"
    "        bits 55, 61 and 63).\n"
    "    reset-pmis\n"
    "        Count this logical processor's PMIs from 0 again.\n"
    "    expect MSR == VALUE\n"
    "    expect MSR.FIELD == VALUE\n"
    "    expect rdpmc ECX == VALUE\n"
    "    expect pmis == N\n"
    "    expect pebs-records == N | bts-records == N | lost == N\n"
    "    expect mem ADDR == VALUE [size=1|2|4|8]\n"
    "    expect fault | expect ok\n"
    "        Check an MSR or one field of it, a counter through RDPMC at\n"
    "        CPL 0, the PMIs this logical processor requested since the\n"
    "        start or reset-pmis, the PEBS records it wrote, the branch\n"
    "        records it stored and the PEBS records it lost since the\n"
    "        start, size bytes of memory (default 8), or whether the last\n"
    "        wrmsr, host-wrmsr, rdmsr or rdpmc faulted (for host-wrmsr: was\n"
    "        refused). Checks change nothing. The first that fails ends\n"
    "        the run.\n",
  .options =
    "    --json\n"
    "        Print the trace as one JSON object per line, each with the\n"
    "        script line, the logical processor and an \"op\": cpu, wrmsr,\n"
    "        host-wrmsr, rdmsr, rdpmc, deliver, overflow, pmi, freeze,\n"
    "        signal, memory, poke, state, pebs, pebs-lost, bts, bts-lost,\n"
    "        expect (a failure) and end. 64-bit values are \"0x...\"\n"
    "        strings.\n"
    "\n"
    "    --svg FILE\n"
    "        Also draw the run as an SVG timeline in FILE: the value of\n"
    "        each counter that was enabled over the clocks (signed within\n"
    "        its width, so a sampling counter climbs to 0), its overflows,\n"
    "        the PMIs and the spans in which counters were frozen. Written\n"
    "        also when an expect fails.\n",
  .exit_status =
    "    0   Every expect held.\n"
    "    1   An expect failed: \"FILE:LINE: expect failed: ...\" on\n"
    "        standard error, with the expected and the actual value.\n"
    "    2   A script error, each reported as \"FILE:LINE:COL: message\"\n"
    "        before anything runs; bad usage; SCRIPT cannot be read or\n"
    "        the --svg FILE written.\n",
  .examples =
    "    softpmu run " CLI_DOCDIR "/examples/scripts/pmi_freeze_v4.pmu\n"
    "        Skylake's streamlined freeze: the PMI sets CTR_Frz, the\n"
    "        handler unfreezes through IA32_PERF_GLOBAL_STATUS_RESET.\n"
    "\n"
    "    softpmu run --json " CLI_DOCDIR "/examples/scripts/sampling.pmu |\n"
    "        jq .op\n"
    "        The trace of a sampling run, as JSON.\n"
    "\n"
    "    softpmu run --svg sampling.svg \\\n"
    "        " CLI_DOCDIR "/examples/scripts/sampling.pmu\n"
    "        The same run, drawn.\n"
    "\n"
    "    softpmu run " CLI_DOCDIR "/examples/scripts/pebs_format3.pmu\n"
    "        A PEBS assist on Skylake: the record, the counter reloaded\n"
    "        from the DS save area, OvfBuf and the PMI.\n"
    "\n"
    "    printf 'cpu core2\\nwrmsr IA32_PERF_GLOBAL_STATUS 0\\nexpect "
    "fault\\n' |\n"
    "    softpmu run -\n"
    "        GLOBAL_STATUS is read-only: WRMSR raises #GP.\n",
  .flags = CLI_FLAG_JSON | CLI_FLAG_SVG,
  .min_args = 1,
  .max_args = 1,
  .run = run_run,
};
/* clang-format on */
