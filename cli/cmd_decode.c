/* SPDX-License-Identifier: MIT */
/* softpmu decode / encode: between an MSR value and its named fields. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* ---- decode ------------------------------------------------------------ */

static int decode_with(const struct cli_args *a, const struct cli_regs *r)
{
  spmu_msr_info m;
  uint64_t value;
  int rc;

  rc = cli_msr_resolve(r, a->argv[0], &m);
  if (rc != CLI_EXIT_OK)
    return rc;
  if (!text_parse_msr_value(a->argv[1], &value)) {
    cli_error("'%s' is not a 64-bit value (hex, 0x optional, as rdmsr "
              "prints it; decimal after 0n)",
              a->argv[1]);
    return CLI_EXIT_USAGE;
  }
  printf("%s (0x%x) = 0x%" PRIx64 " on %s\n", m.name, m.addr, value,
         r->p->name);
  if (cli_print_fields(r, &m, value, 2, 0, true) &&
      (a->flags & CLI_FLAG_STRICT))
    return CLI_EXIT_FAIL;
  return CLI_EXIT_OK;
}

static int decode_run(const struct cli_args *a)
{
  struct cli_regs r;
  int rc = cli_regs_open(&r, &a->profile);

  if (rc == CLI_EXIT_OK)
    rc = decode_with(a, &r);
  cli_regs_close(&r);
  return rc;
}

const struct cli_command cli_cmd_decode = {
    .name = "decode",
    .summary = "name the fields of an MSR value",
    .synopsis = "[--cpu PROFILE] [--strict] MSR VALUE",
    .description =
        "    Prints the MSR's name, address and VALUE, then one line for each\n"
        "    field of the register that is not zero in VALUE: its bit range\n"
        "    (msb:lsb), its SDM name, its value (1 for a single bit, hex for "
        "a\n"
        "    wider field) and its meaning in one line. Only the fields the\n"
        "    profile has are listed; `softpmu msrs --fields` shows them all.\n"
        "\n"
        "    MSR is an SDM name in any case (IA32_PERF_GLOBAL_STATUS, "
        "ia32_pmc3;\n"
        "    former names such as IA32_PERFCTR0 work too) or an address, "
        "0x-hex\n"
        "    or decimal (0x38e, 910). VALUE is hex, as rdmsr (msr-tools)\n"
        "    prints it, with or without 0x: 300000001 and 0x300000001 are\n"
        "    the same value. A decimal VALUE is written with 0n in front\n"
        "    (0n42 is 0x2a), as WinDbg writes it; n is no hex digit, so no\n"
        "    value rdmsr prints reads as decimal.\n"
        "\n"
        "    Set bits that the profile reserves (a WRMSR setting them raises\n"
        "    #GP) are reported on a line \"reserved bits set: ...\"; set bits\n"
        "    that are in no field but not reserved either (such as the\n"
        "    host-owned bits of IA32_MISC_ENABLE, or counter bits above the\n"
        "    counter width) on a line \"other bits set: ...\". Neither "
        "changes\n"
        "    the exit status unless --strict is given.\n",
    .options = "    --strict\n"
               "        Exit with status 1 if VALUE sets bits reserved in the "
               "profile.\n",
    .exit_status =
        "    0   VALUE was decoded (reserved bits, if any, are reported).\n"
        "    1   --strict was given and VALUE sets reserved bits.\n"
        "    2   Bad usage; an unknown MSR, or one absent from the profile; a\n"
        "        malformed VALUE or PROFILE; an output error.\n",
    .examples =
        "    softpmu decode IA32_PERF_GLOBAL_STATUS 0x8000000400000001\n"
        "        Ovf_PMC0, Ovf_FixedCtr2 and CondChgd are set.\n"
        "\n"
        "    softpmu decode --cpu skylake 0x186 0x4300c0\n"
        "        IA32_PERFEVTSEL0 by address: EVENT 0xc0 with USR, OS and EN.\n"
        "\n"
        "    softpmu decode IA32_PERF_GLOBAL_STATUS 300000001\n"
        "        A value as `rdmsr 0x38e` prints it, bare hex: Ovf_PMC0,\n"
        "        Ovf_FixedCtr0 and Ovf_FixedCtr1.\n"
        "\n"
        "    softpmu decode --strict --cpu icelake IA32_PERFEVTSEL0 0x600000\n"
        "        Exits 1: AnyThread (bit 21) is deprecated, so reserved, on\n"
        "        perfmon v5.\n",
    .flags = CLI_FLAG_STRICT,
    .min_args = 2,
    .max_args = 2,
    .run = decode_run,
};

/* ---- encode ------------------------------------------------------------ */

struct field_ref {
  uint32_t addr;
  const char *field;
};

/* Does the MSR at ref's address have the field in profile p? */
static bool has_field(const spmu_profile *p, const void *ctx)
{
  const struct field_ref *ref = ctx;
  spmu_msr_info m;
  spmu_field_info f;
  return spmu_msr_info_get(p, ref->addr, &m) == SPMU_OK &&
         cli_field_by_name(p, &m, ref->field, &f);
}

static int no_such_field(const struct cli_regs *r, const spmu_msr_info *m,
                         const char *field)
{
  char have[256];
  unsigned i;

  struct field_ref ref = {m->addr, field};

  cli_presets_where(has_field, &ref, have, sizeof have);
  if (have[0])
    cli_error("%s has no field '%s' in profile %s; presets that have it: %s",
              m->name, field, r->p->name, have);
  else
    cli_error("%s has no field '%s'", m->name, field);
  fputs("softpmu: its fields:", stderr);
  for (i = 0; i < m->nfields; i++) {
    spmu_field_info f;
    if (spmu_regview_field_get(r->view, m->addr, i, &f) == SPMU_OK)
      fprintf(stderr, " %s", f.name);
  }
  fputc('\n', stderr);
  return CLI_EXIT_USAGE;
}

static int too_wide(const struct cli_regs *r, const spmu_msr_info *m,
                    const char *field, const char *value)
{
  spmu_field_info f;

  if (!cli_field_by_name(r->p, m, field, &f)) {
    cli_error("%s=%s: %s", field, value, spmu_strerror(SPMU_ERANGE));
    return CLI_EXIT_USAGE;
  }
  cli_error("%s is %u bit%s wide; %s does not fit", f.name, f.width,
            f.width == 1 ? "" : "s", value);
  return CLI_EXIT_USAGE;
}

/* Apply one FIELD=VALUE argument to *reg. */
static int encode_one(const struct cli_regs *r, const spmu_msr_info *m,
                      const char *arg, uint64_t *reg)
{
  const char *eq = strchr(arg, '=');
  char field[48];
  uint64_t v;
  int rc;

  if (!eq || eq == arg) {
    cli_error("'%s' is not FIELD=VALUE", arg);
    return CLI_EXIT_USAGE;
  }
  if ((size_t)(eq - arg) >= sizeof field)
    return no_such_field(r, m, arg);
  snprintf(field, sizeof field, "%.*s", (int)(eq - arg), arg);
  if (!text_parse_u64(eq + 1, &v)) {
    cli_error("%s: '%s' is not a number (0x-hex or decimal)", field, eq + 1);
    return CLI_EXIT_USAGE;
  }
  rc = spmu_regview_field_encode(r->view, m->addr, field, v, reg);
  if (rc == SPMU_ENOENT)
    return no_such_field(r, m, field);
  if (rc == SPMU_ERANGE)
    return too_wide(r, m, field, eq + 1);
  if (rc != SPMU_OK) {
    cli_error("%s: %s", arg, spmu_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

static int encode_run(const struct cli_args *a)
{
  struct cli_regs r;
  spmu_msr_info m;
  uint64_t reg = 0;
  int i, rc;

  rc = cli_regs_open(&r, &a->profile);
  if (rc == CLI_EXIT_OK)
    rc = cli_msr_resolve(&r, a->argv[0], &m);
  for (i = 1; i < a->argc && rc == CLI_EXIT_OK; i++)
    rc = encode_one(&r, &m, a->argv[i], &reg);
  cli_regs_close(&r);
  if (rc != CLI_EXIT_OK)
    return rc;
  printf("0x%" PRIx64 "\n", reg);
  return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_encode = {
    .name = "encode",
    .summary = "build an MSR value from named fields",
    .synopsis = "[--cpu PROFILE] MSR [FIELD=VALUE]...",
    .description =
        "    Starts from 0, sets each FIELD to its VALUE and prints the "
        "result\n"
        "    as one 0x-hex number, ready for `softpmu decode` or a WRMSR.\n"
        "\n"
        "    MSR is named as for `softpmu decode`. FIELD is a field name of\n"
        "    that MSR in the profile, in any case (EVENT, usr, Ovf_PMC0); "
        "VALUE\n"
        "    is 0x-hex or decimal and must fit the field. When a field is "
        "given\n"
        "    twice the last value wins. Fields the profile lacks are refused,\n"
        "    with the presets that have them, so the result never sets bits\n"
        "    that are reserved in the profile.\n",
    .options = NULL,
    .exit_status =
        "    0   The value was printed.\n"
        "    2   Bad usage; an unknown or absent MSR; an unknown field (the\n"
        "        MSR's fields are listed); a VALUE that is not a number or is\n"
        "        wider than its field; a malformed PROFILE; an output error.\n",
    .examples =
        "    softpmu encode IA32_PERFEVTSEL0 event=0xc0 usr=1 os=1 en=1\n"
        "        Prints 0x4300c0: count retired instructions in every ring.\n"
        "\n"
        "    softpmu encode IA32_FIXED_CTR_CTRL en0=3 pmi0=1\n"
        "        Prints 0xb: fixed counter 0 in every ring, PMI on overflow.\n"
        "\n"
        "    v=$(softpmu encode IA32_PERFEVTSEL1 event=0x3c cmask=1 inv=1 "
        "en=1)\n"
        "    softpmu decode IA32_PERFEVTSEL1 \"$v\"\n"
        "        A round trip: 0x1c0003c, and back to its four fields.\n",
    .flags = 0,
    .min_args = 1,
    .max_args = -1,
    .run = encode_run,
};
