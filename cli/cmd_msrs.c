/* SPDX-License-Identifier: MIT */
/* softpmu msrs: the register catalogue as a profile has it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dirs.h"

static const char *policy_name(spmu_policy policy)
{
  switch (policy) {
  case SPMU_POLICY_RW:
    return "rw";
  case SPMU_POLICY_RO:
    return "ro";
  case SPMU_POLICY_CONST:
    return "const";
  case SPMU_POLICY_COMPUTED:
    return "computed";
  case SPMU_POLICY_W1C:
    return "w1c";
  case SPMU_POLICY_W1S:
    return "w1s";
  case SPMU_POLICY_COUNTER_SX:
    return "counter-sx";
  case SPMU_POLICY_COUNTER:
    return "counter";
  }
  return "?";
}

static const char *access_name(spmu_access access)
{
  switch (access) {
  case SPMU_ACCESS_RW:
    return "rw";
  case SPMU_ACCESS_RO:
    return "ro";
  case SPMU_ACCESS_W1C:
    return "w1c";
  case SPMU_ACCESS_W1S:
    return "w1s";
  }
  return "?";
}

/* Column widths of the MSR lines. */
struct widths {
  int name, reset;
};

static struct widths measure(const spmu_msr_info *m, size_t n)
{
  struct widths w = {0, 0};
  size_t i;

  for (i = 0; i < n; i++) {
    char reset[24];
    int len = snprintf(reset, sizeof reset, "0x%" PRIx64, m[i].reset);
    if ((int)strlen(m[i].name) > w.name)
      w.name = (int)strlen(m[i].name);
    if (len > w.reset)
      w.reset = len;
  }
  return w;
}

static void print_fields(const spmu_regview *view, const spmu_msr_info *m)
{
  unsigned i;

  for (i = 0; i < m->nfields; i++) {
    spmu_field_info f;
    char bits[8];

    if (spmu_regview_field_get(view, m->addr, i, &f) != SPMU_OK)
      continue;
    if (f.width == 1)
      snprintf(bits, sizeof bits, "%u", f.lsb);
    else
      snprintf(bits, sizeof bits, "%u:%u", f.lsb + f.width - 1, f.lsb);
    printf("        %5s  %-21s  %-3s  %s\n", bits, f.name,
           access_name(f.access), f.brief);
  }
}

static void print_msr(const spmu_msr_info *m, struct widths w)
{
  char reset[24];

  snprintf(reset, sizeof reset, "0x%" PRIx64, m->reset);
  printf("0x%03" PRIx32 "  %-*s  %-10s  %-*s  %s\n", m->addr, w.name, m->name,
         policy_name(m->policy), w.reset, reset, m->brief);
}

static int msrs_with(const struct cli_args *a, const struct cli_regs *r)
{
  spmu_msr_info *infos;
  uint32_t *addrs;
  struct widths w;
  size_t n, i;

  addrs = cli_msr_addrs(r->p, &n);
  infos = addrs ? calloc(n ? n : 1, sizeof(*infos)) : NULL;
  if (!infos) {
    free(addrs);
    return CLI_EXIT_USAGE;
  }
  for (i = 0; i < n; i++)
    spmu_regview_info(r->view, addrs[i], &infos[i]);
  w = measure(infos, n);
  for (i = 0; i < n; i++) {
    print_msr(&infos[i], w);
    if (a->flags & CLI_FLAG_FIELDS)
      print_fields(r->view, &infos[i]);
  }
  free(infos);
  free(addrs);
  return CLI_EXIT_OK;
}

/* The addresses the profile lacks (spmu_msr_absent_list), one run of
 * consecutive addresses a line. */
static int msrs_absent(const spmu_profile *p)
{
  size_t n = spmu_msr_absent_list(p, NULL, 0), i, j;
  uint32_t *addrs = malloc((n ? n : 1) * sizeof(*addrs));

  if (!addrs) {
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  n = spmu_msr_absent_list(p, addrs, n);
  for (i = 0; i < n; i = j) {
    for (j = i + 1; j < n && addrs[j] == addrs[j - 1] + 1; j++)
      ;
    if (j - i == 1)
      printf("0x%03" PRIx32 "\n", addrs[i]);
    else
      printf("0x%03" PRIx32 "-0x%03" PRIx32 "\n", addrs[i], addrs[j - 1]);
  }
  free(addrs);
  return CLI_EXIT_OK;
}

static int msrs_run(const struct cli_args *a)
{
  struct cli_regs r;
  int rc = cli_regs_open(&r, &a->profile);

  if (rc == CLI_EXIT_OK)
    rc = a->flags & CLI_FLAG_ABSENT ? msrs_absent(r.p) : msrs_with(a, &r);
  cli_regs_close(&r);
  return rc;
}

const struct cli_command cli_cmd_msrs = {
    .name = "msrs",
    .summary = "list the MSRs of a profile",
    .synopsis = "[--cpu PROFILE] [--fields | --absent]",
    .description =
        "    Prints one line per MSR the profile has, in address order: the\n"
        "    address, the SDM name, the write policy, the value at reset and\n"
        "    what the register is for. No header is printed, so the number of\n"
        "    lines is the number of MSRs (with --fields, of MSR lines).\n"
        "\n"
        "    Write policies (how a guest WRMSR behaves):\n"
        "        rw          stored; setting a reserved bit raises #GP\n"
        "        ro          #GP; only the host path writes it\n"
        "        const       #GP; fixed by the profile\n"
        "        computed    #GP; a read computes it from other state\n"
        "        w1c         each 1 clears that bit of the target; reads 0\n"
        "        w1s         each 1 sets that bit of the target; reads 0\n"
        "        counter-sx  counter; bits 31:0 written, sign-extended\n"
        "        counter     counter; full width, bits above it raise #GP\n"
        "\n"
        "    The generated reference, " CLI_DOCDIR "/msrs.md,\n"
        "    describes every MSR of the catalogue across all profiles.\n",
    .options =
        "    --fields\n"
        "        After each MSR, one indented line per field the profile has:\n"
        "        bit range (msb:lsb), name, access (rw, ro, w1c, w1s) and\n"
        "        meaning. These are the names `softpmu encode` takes.\n"
        "\n"
        "    --absent\n"
        "        Print instead the MSR addresses of the PMU, debug and LBR\n"
        "        blocks that the profile does not have, one run of\n"
        "        consecutive addresses a line (0xFIRST or 0xFIRST-0xLAST):\n"
        "        another family's LBR stack, counters past the profile's,\n"
        "        the reserved rest of each block. RDMSR and WRMSR of each\n"
        "        raise #GP(0) (SDM Vol. 2B RDMSR, WRMSR), in the model and\n"
        "        in the QEMU system integration.\n",
    .exit_status =
        "    0   The list was printed.\n"
        "    2   Bad usage, a malformed PROFILE or an output error.\n",
    .examples = "    softpmu msrs --cpu core2\n"
                "        The 16 MSRs of a perfmon v2 PMU.\n"
                "\n"
                "    softpmu msrs --cpu skylake --fields\n"
                "        Every MSR of Skylake, each followed by its fields.\n"
                "\n"
                "    softpmu msrs --cpu core2 --absent\n"
                "        The addresses a Core 2 raises #GP for.\n",
    .flags = CLI_FLAG_FIELDS | CLI_FLAG_ABSENT,
    .min_args = 0,
    .max_args = 0,
    .run = msrs_run,
};
