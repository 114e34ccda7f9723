/* SPDX-License-Identifier: MIT */
/* softpmu cpuid: CPUID leaf 0AH, the PMU bits of leaf 01H, leaf 1CH and
 * the caches of leaf 04H, raw and decoded (SDM Vol. 2A, CPUID; Vol. 3B
 * 18.2). */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

enum { EAX, EBX, ECX, EDX };

static unsigned bits_of(uint32_t reg, unsigned lsb, unsigned width)
{
  return (unsigned)(reg >> lsb) & ((1u << width) - 1);
}

static void print_raw(const char *leaf, const uint32_t r[4])
{
  printf("CPUID.%s  EAX 0x%08" PRIx32 "  EBX 0x%08" PRIx32 "  ECX 0x%08" PRIx32
         "  EDX 0x%08" PRIx32 "\n",
         leaf, r[EAX], r[EBX], r[ECX], r[EDX]);
}

/* One decoded field: where it is, its value, what it means. */
static void row(const char *where, unsigned value, const char *meaning)
{
  printf("  %-10s  %-4u  %s\n", where, value, meaning);
}

static void print_events(uint32_t ebx, unsigned len)
{
  unsigned i;

  for (i = 0; i < len && i < 32; i++) {
    unsigned unavailable = ebx >> i & 1;
    char where[16];

    snprintf(where, sizeof where, "EBX[%u]", i);
    if (i < cli_narch_events)
      printf("  %-10s  %-4u  %s (%02XH/%02XH) %s\n", where, unavailable,
             cli_arch_events[i].sdm, cli_arch_events[i].event,
             cli_arch_events[i].umask,
             unavailable ? "not available" : "available");
    else
      printf("  %-10s  %-4u  architectural event %u %s\n", where, unavailable,
             i, unavailable ? "not available" : "available");
  }
}

/* The fixed counters: ECX and EDX[4:0] as the leaf has them, and the
 * counters that exist as spmu_profile_from_cpuid decodes them (counter i
 * if ECX[i] = 1 or EDX[4:0] > i, SDM Vol. 2A, CPUID leaf 0AH). */
static void print_fixed(const uint32_t r[4], const spmu_profile *p)
{
  char list[160];

  if (p->version >= 5)
    printf("  %-10s  0x%-2" PRIx32 "  fixed counter bitmap\n", "ECX[31:0]",
           r[ECX]);
  else
    printf("  %-10s  0x%-2" PRIx32 "  reserved before version 5\n", "ECX[31:0]",
           r[ECX]);
  if (p->version < 2) {
    row("EDX[12:0]", bits_of(r[EDX], 0, 13),
        "no fixed counters before version 2");
    return;
  }
  row("EDX[4:0]", bits_of(r[EDX], 0, 5), "contiguous fixed counters");
  row("EDX[12:5]", p->fixed_width, "fixed counter width");
  row("EDX[15]", (p->features & SPMU_FEAT_ANY_DEPRECATED) != 0,
      "AnyThread deprecation");
  cli_bits_text(p->fixed_mask, list, sizeof list);
  printf("  fixed counters: %s\n", list[0] ? list : "none");
}

static const char *anythread_text(const spmu_profile *p)
{
  if (p->version < 3)
    return "not available (version 3 or later)";
  if (p->features & SPMU_FEAT_ANY_DEPRECATED)
    return "deprecated: bit 21 is reserved";
  return "available";
}

/* Leaf 0AH as spmu_profile_from_cpuid decodes it; the rows name the bits
 * each value comes from (SDM Vol. 2A Table 3-8). */
static void print_leaf_0a(const uint32_t r[4], const char *profile)
{
  spmu_profile p;

  spmu_profile_from_cpuid(r, NULL, 0, SPMU_CPUID_DECODE, &p, NULL, 0);
  printf("Leaf 0AH, architectural performance monitoring, on %s\n", profile);
  if (p.version == 0) {
    row("EAX[7:0]", p.version, "version ID: no architectural PMU");
    return;
  }
  row("EAX[7:0]", p.version, "version ID");
  row("EAX[15:8]", p.gp, "general-purpose counters per thread");
  row("EAX[23:16]", p.gp_width, "general-purpose counter width");
  row("EAX[31:24]", p.events_len, "length of the EBX event vector");
  print_events(p.events_unavailable, p.events_len);
  print_fixed(r, &p);
  printf("  AnyThread (IA32_PERFEVTSELx bit 21): %s\n", anythread_text(&p));
}

static void print_leaf_01(const uint32_t r[4])
{
  puts("Leaf 01H, the PMU bits (softpmu defines only these)");
  row("ECX[2]", bits_of(r[ECX], 2, 1), "DTES64: 64-bit DS save area layout");
  row("ECX[4]", bits_of(r[ECX], 4, 1), "DS-CPL: CPL-qualified debug store");
  row("ECX[15]", bits_of(r[ECX], 15, 1), "PDCM: IA32_PERF_CAPABILITIES exists");
  row("EDX[21]", bits_of(r[EDX], 21, 1), "DS: debug store (BTS, PEBS)");
}

/* Leaf 1CH, architectural LBRs (SDM Vol. 2A CPUID; Vol. 3B "Architectural
 * Last Branch Records"). */
static void print_leaf_1c(const uint32_t r[4])
{
  unsigned n;

  puts("Leaf 1CH, architectural last branch records");
  row("EAX[7:0]", bits_of(r[EAX], 0, 8),
      "supported depths: 8 * (n + 1) for each bit n");
  row("EAX[30]", bits_of(r[EAX], 30, 1), "deep C-state reset");
  row("EAX[31]", bits_of(r[EAX], 31, 1), "IP values contain LIP");
  row("EBX[0]", bits_of(r[EBX], 0, 1), "CPL filtering (IA32_LBR_CTL.OS/USR)");
  row("EBX[1]", bits_of(r[EBX], 1, 1),
      "branch filtering (IA32_LBR_CTL[22:16])");
  row("EBX[2]", bits_of(r[EBX], 2, 1), "call-stack mode");
  row("ECX[0]", bits_of(r[ECX], 0, 1), "mispredict bit");
  row("ECX[1]", bits_of(r[ECX], 1, 1), "timed LBRs (cycle count)");
  row("ECX[2]", bits_of(r[ECX], 2, 1), "branch type field");
  fputs("  depths:", stdout);
  for (n = 0; n < 8; n++)
    if (r[EAX] >> n & 1)
      printf(" %u", 8 * (n + 1));
  putchar('\n');
}

/* Leaf 04H (SDM Vol. 2A CPUID, Table 3-8): sub-leaf n's cache, until
 * the one of type 0. */
#define LEAF_04_MAX 8

static unsigned leaf_04(const spmu_profile *p, uint32_t r[][4])
{
  unsigned n;

  for (n = 0; n < LEAF_04_MAX; n++) {
    if (spmu_profile_cpuid(p, 0x4, n, r[n]) != SPMU_OK)
      return 0;
    if (bits_of(r[n][EAX], 0, 5) == 0)
      return n + 1;
  }
  return n;
}

static void print_cache(unsigned sub, const uint32_t r[4])
{
  static const char *const types[] = {"no more caches", "data", "instruction",
                                      "unified"};
  unsigned type = bits_of(r[EAX], 0, 5), ways = bits_of(r[EBX], 22, 10) + 1,
           parts = bits_of(r[EBX], 12, 10) + 1,
           line = bits_of(r[EBX], 0, 12) + 1;
  uint64_t sets = (uint64_t)r[ECX] + 1, size = ways * parts * line * sets;

  if (type == 0) {
    printf("  sub-leaf %u: type 0, no more caches\n", sub);
    return;
  }
  printf("  sub-leaf %u: L%u %s, %" PRIu64 " %s: %u ways x %u partition%s x "
         "%u B lines x %" PRIu64 " sets; shared by %u logical processors%s%s%s"
         "\n",
         sub, bits_of(r[EAX], 5, 3), type < 4 ? types[type] : "reserved type",
         size % (1u << 20) ? size >> 10 : size >> 20,
         size % (1u << 20) ? "KB" : "MB", ways, parts, parts == 1 ? "" : "s",
         line, sets, bits_of(r[EAX], 14, 12) + 1,
         bits_of(r[EDX], 1, 1) ? "; inclusive" : "",
         bits_of(r[EDX], 2, 1) ? "; complex indexing" : "",
         bits_of(r[EDX], 0, 1) ? "; WBINVD not guaranteed on lower levels"
                               : "");
}

/* Leaf 04H, deterministic cache parameters: one line per sub-leaf. */
static void print_leaf_04(uint32_t r[][4], unsigned n)
{
  unsigned i;

  puts("Leaf 04H, deterministic cache parameters");
  for (i = 0; i < n; i++)
    print_cache(i, r[i]);
  printf("  addressable core IDs in the package: %u (EAX[31:26] + 1)\n",
         bits_of(r[0][EAX], 26, 6) + 1);
}

/* Leaf 0DH, the sub-leaves softpmu owns with architectural LBRs (SDM
 * Vol. 2A CPUID leaf 0DH; Vol. 1 13.2): sub-leaf 1 ECX[15], IA32_XSS bit
 * 15 for the LBR state component, and sub-leaf 0FH, that component's size
 * and its supervisor bit. Sub-leaf 0 has no bit of softpmu's (a
 * supervisor component is not in XCR0). */
static void print_leaf_0d(const uint32_t s1[4], const uint32_t s15[4])
{
  puts("Leaf 0DH, the architectural LBR state component (XSAVES component "
       "15)");
  row("ECX[15]", bits_of(s1[ECX], 15, 1),
      "sub-leaf 01H: IA32_XSS[15], LBR state, supported");
  row("EAX", (unsigned)s15[EAX],
      "sub-leaf 0FH: size of the component in bytes");
  row("EBX", (unsigned)s15[EBX], "sub-leaf 0FH: offset (0: supervisor state)");
  row("ECX[0]", bits_of(s15[ECX], 0, 1),
      "sub-leaf 0FH: supervisor state (set in IA32_XSS)");
}

static int cpuid_run(const struct cli_args *a)
{
  uint32_t r04[LEAF_04_MAX][4];
  unsigned n04 = leaf_04(&a->profile, r04), i;
  char name[16];
  uint32_t r0a[4], r01[4], r1c[4], r0d1[4], r0df[4];
  bool arch_lbr = (a->profile.features & SPMU_FEAT_ARCH_LBR) != 0;

  if (spmu_profile_cpuid(&a->profile, 0xA, 0, r0a) != SPMU_OK ||
      spmu_profile_cpuid(&a->profile, 0x1, 0, r01) != SPMU_OK) {
    cli_error("the profile gives no CPUID");
    return CLI_EXIT_USAGE;
  }
  spmu_profile_cpuid(&a->profile, 0x1C, 0, r1c);
  spmu_profile_cpuid(&a->profile, 0xD, 1, r0d1);
  spmu_profile_cpuid(&a->profile, 0xD, 0xF, r0df);
  print_raw("0AH", r0a);
  print_raw("01H", r01);
  if (arch_lbr) {
    print_raw("1CH", r1c);
    print_raw("0DH.01H", r0d1);
    print_raw("0DH.0FH", r0df);
  }
  for (i = 0; i < n04; i++) {
    snprintf(name, sizeof name, "04H.%u", i);
    print_raw(name, r04[i]);
  }
  putchar('\n');
  print_leaf_0a(r0a, a->profile.name);
  print_leaf_01(r01);
  if (arch_lbr) {
    print_leaf_1c(r1c);
    print_leaf_0d(r0d1, r0df);
  }
  if (n04)
    print_leaf_04(r04, n04);
  return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_cpuid = {
    .name = "cpuid",
    .summary = "CPUID leaf 0AH, the PMU bits of leaf 01H, leaves 1CH, 0DH "
               "and 04H, decoded",
    .synopsis = "[--cpu PROFILE]",
    .description =
        "    Prints CPUID as the profile enumerates it to a guest (what\n"
        "    spmu_profile_cpuid returns): first the raw EAX, EBX, ECX and EDX\n"
        "    of leaves 0AH and 01H in hex, then every field of leaf 0AH\n"
        "    decoded as SDM Vol. 2A (CPUID) and Vol. 3B 18.2 define it, then\n"
        "    the PMU bits of leaf 01H.\n"
        "\n"
        "    Leaf 0AH: EAX holds the version ID, the number and width of the\n"
        "    general-purpose counters and the length of the EBX vector; an "
        "EBX\n"
        "    bit that is 1 means that architectural event is NOT available\n"
        "    (each is shown with its event select/umask); ECX is the bitmap "
        "of\n"
        "    fixed counters from version 5; EDX holds the number of "
        "contiguous\n"
        "    fixed counters, their width and, in bit 15, the deprecation of\n"
        "    AnyThread. The \"fixed counters\" line applies the SDM rule:\n"
        "    fixed counter i exists if ECX[i] = 1 or EDX[4:0] > i.\n"
        "\n"
        "    Leaf 01H: softpmu defines ECX[2] DTES64, ECX[4] DS-CPL, ECX[15]\n"
        "    PDCM and EDX[21] DS; every other bit of that leaf belongs to the\n"
        "    host CPU model and is printed as 0.\n"
        "\n"
        "    Leaf 1CH (profiles with architectural LBRs, CPUID.07H:EDX[19]):\n"
        "    the supported LBR depths, CPL and branch filtering, call-stack\n"
        "    mode, the mispredict bit, timed LBRs and the branch type field;\n"
        "    then leaf 0DH sub-leaves 01H and 0FH: IA32_XSS bit 15 and the\n"
        "    size of the LBR state component that XSAVES saves (component 15,\n"
        "    supervisor state).\n"
        "\n"
        "    Leaf 04H (profiles with a part, sandybridge to sapphirerapids):\n"
        "    one sub-leaf per cache, L1D, L1I, L2, L3, then type 0: its type\n"
        "    and level, ways, partitions, line size and sets (size = their\n"
        "    product), the logical processors sharing it, and EDX's\n"
        "    inclusiveness and complex indexing. The modelled\n"
        "    micro-architecture of softpmu stat has the same geometry.\n",
    .options = NULL,
    .exit_status =
        "    0   CPUID was printed.\n"
        "    2   Bad usage, a malformed PROFILE or an output error.\n",
    .examples =
        "    softpmu cpuid --cpu skylake\n"
        "        Version 4, four 48-bit counters, three 48-bit fixed "
        "counters.\n"
        "\n"
        "    softpmu cpuid --cpu base=skylake,unavailable=0x44\n"
        "        Reference cycles and branch misses marked not available.\n",
    .flags = 0,
    .min_args = 0,
    .max_args = 0,
    .run = cpuid_run,
};
