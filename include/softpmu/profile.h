/* SPDX-License-Identifier: MIT */
/* softpmu — CPU profiles: what PMU the modelled processor has.
 *
 * A profile holds exactly what CPUID enumerates about the PMU (leaf 0AH,
 * the PMU bits of leaf 01H), IA32_PERF_CAPABILITIES, and the few
 * generation-specific facts that CPUID does not enumerate (feature flags).
 * Everything else (which MSRs exist, their reserved bits, reset values) is
 * derived from it by the register catalogue.
 */
#ifndef SOFTPMU_PROFILE_H
#define SOFTPMU_PROFILE_H

#include "export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Model limits, from the architectural MSR ranges (SDM Vol. 4 Table 2-2):
 * IA32_PMC0-7 (C1H-C8H) and IA32_PERFEVTSEL0-7 (186H-18DH) hold 8 GP
 * counters; IA32_PERF_GLOBAL_CTRL bits 47:32 hold 16 fixed counters. */
#define SPMU_MAX_GP 8
#define SPMU_MAX_FIXED 16
#define SPMU_MAX_THREADS 8

/* Features outside CPUID.0AH and IA32_PERF_CAPABILITIES. */
enum spmu_feature {
  SPMU_FEAT_PDCM = 1u << 0,   /* CPUID.01H:ECX[15]: PERF_CAPABILITIES exists */
  SPMU_FEAT_DS = 1u << 1,     /* CPUID.01H:EDX[21]: debug store, DS_AREA */
  SPMU_FEAT_DTES64 = 1u << 2, /* CPUID.01H:ECX[2]: 64-bit DS layout */
  SPMU_FEAT_DS_CPL = 1u << 3, /* CPUID.01H:ECX[4]: BTS_OFF_OS/USR */
  SPMU_FEAT_BTS = 1u << 4,    /* IA32_MISC_ENABLE[11] = 0 */
  SPMU_FEAT_PEBS = 1u << 5,   /* IA32_MISC_ENABLE[12] = 0 */
  SPMU_FEAT_RTM = 1u << 6,    /* TSX: EVTSEL IN_TX/IN_TXCP, DEBUGCTL.RTM */
  SPMU_FEAT_PT = 1u << 7,     /* Intel PT with ToPA: STATUS.Trace_ToPA_PMI */
  SPMU_FEAT_SGX = 1u << 8,    /* SGX: STATUS.ASCI */
  SPMU_FEAT_UNCORE_PMI = 1u << 9,      /* DEBUGCTL[13], STATUS.Ovf_Uncore */
  SPMU_FEAT_PRECISE_STORE = 1u << 10,  /* PEBS_ENABLE[63] PS_EN (SNB/IVB) */
  SPMU_FEAT_ANY_DEPRECATED = 1u << 11, /* CPUID.0AH:EDX[15] (v5+) */
  /* The NetBurst PMU (Pentium 4, family 0FH; SDM 18.15-18.16): 18
   * counters with their CCCRs and the ESCRs instead of architectural
   * perfmon (version must be 0). threads=2 is Hyper-Threading: both
   * logical processors share the one PMU. */
  SPMU_FEAT_NETBURST = 1u << 12,
  SPMU_FEAT_NB_IQ_ESCR = 1u << 13,     /* MSR_IQ_ESCR0/1: family 0FH
                                          models 1-2 only (Table 18-63) */
  SPMU_FEAT_NB_EXT_CASCADE = 1u << 14, /* IQ CCCR bit 11 extended cascading:
                                          0F_02/03/04/06 (18.15.5.7) */
  /* Architectural LBRs (CPUID.(EAX=07H,ECX=0):EDX[19]): IA32_LBR_CTL,
   * IA32_LBR_DEPTH and the IA32_LBR_x_* stack, with the capabilities of
   * CPUID leaf 1CH in lbr_leaf_1c (SDM Vol. 3B "Architectural Last Branch
   * Records"). Excludes the model-specific stack (lbr_depth = 0). */
  SPMU_FEAT_ARCH_LBR = 1u << 15,
};

/* IA32_PERF_CAPABILITIES bits (SDM Vol. 3B 18.6.2 / Vol. 4 Table 2-2). */
#define SPMU_PERFCAP_LBR_FMT_MASK 0x3fULL
#define SPMU_PERFCAP_PEBS_TRAP (1ULL << 6)
#define SPMU_PERFCAP_PEBS_ARCH_REG (1ULL << 7)
#define SPMU_PERFCAP_PEBS_FMT_SHIFT 8
#define SPMU_PERFCAP_PEBS_FMT_MASK (0xfULL << 8)
#define SPMU_PERFCAP_SMM_FREEZE (1ULL << 12)
#define SPMU_PERFCAP_FW_WRITE (1ULL << 13)
#define SPMU_PERFCAP_PEBS_BASELINE (1ULL << 14)
#define SPMU_PERFCAP_PERF_METRICS (1ULL << 15)
#define SPMU_PERFCAP_PEBS_OUTPUT_PT (1ULL << 16)
#define SPMU_PERFCAP_PEBS_TIMING (1ULL << 17)
#define SPMU_PERFCAP_DEFINED_MASK 0x3ffffULL

/* The processor a profile is, for what CPUID enumerates beyond the PMU:
 * its caches, CPUID leaf 04H (spmu_profile_cpuid), which the modelled
 * micro-architecture of the same name (uarch/, part:NAME) takes too, with
 * the part's predictor and timing. The numbers are stable (they are
 * stored in spmu_profile.part). */
typedef enum spmu_part {
  SPMU_PART_NONE = 0, /* CPUID leaf 04H is not the profile's */
  SPMU_PART_SANDYBRIDGE = 1,
  SPMU_PART_HASWELL = 2,
  SPMU_PART_SKYLAKE = 3,
  SPMU_PART_ICELAKE = 4,
  SPMU_PART_SAPPHIRERAPIDS = 5,
} spmu_part;

/* A processor's PMU.
 *
 * Fixed counters (SDM Vol. 2A CPUID leaf 0AH, Table 3-8): EDX[4:0] is the
 * number of contiguous fixed counters and, from version 5, ECX the bitmap
 * of supported ones; fixed counter i is supported iff ECX[i] = 1 or
 * EDX[4:0] > i. fixed_mask is that union, the set the model has. With
 * fixed_contig and fixed_ecx both 0 the profile enumerates fixed_mask in
 * the plain way: EDX[4:0] = its trailing ones, ECX = fixed_mask (version
 * 5). A profile that states either (a part or hypervisor whose leaf is
 * enumerated otherwise, e.g. ECX = 0 on version 5) gets EDX[4:0] =
 * fixed_contig and ECX = fixed_ecx bit for bit, and fixed_mask must be
 * their union.
 *
 * Growth: initialise with designated initialisers (or zero it first).
 * Members are only ever appended into `reserved_`, which must be zero
 * (spmu_profile_validate says so otherwise), so the struct's size and
 * layout stay the same across 0.x releases and a binary built against an
 * older header keeps working. */
typedef struct spmu_profile {
  char name[32];
  uint8_t version;             /* CPUID.0AH:EAX[7:0]; 0 = no PMU */
  uint8_t gp;                  /* EAX[15:8]: GP counters per thread */
  uint8_t gp_width;            /* EAX[23:16] */
  uint8_t events_len;          /* EAX[31:24]: length of the EBX vector */
  uint32_t events_unavailable; /* EBX: bit i = event i NOT available */
  uint32_t fixed_mask;         /* fixed counters present (bit i = FIXED_CTRi) */
  uint8_t fixed_width;         /* EDX[12:5] */
  uint8_t threads;             /* logical processors per core (SMT width) */
  uint32_t features;           /* enum spmu_feature */
  uint64_t perf_capabilities;  /* IA32_PERF_CAPABILITIES (needs PDCM) */
  uint8_t fixed_contig;        /* EDX[4:0] as stated (see above), 0-31 */
  uint32_t fixed_ecx;          /* ECX as stated (see above), version 5 */
  /* The model-specific LBR stack (SDM Vol. 3B 17.4.8, 17.5-17.12): its
   * number of entries, which no CPUID leaf enumerates (0: none). 4 is the
   * Core 2 stack (MSR_LASTBRANCH_0-3_FROM_IP at 40H, _TO_IP at 60H, no
   * MSR_LBR_SELECT); 16 and 32 the Nehalem-and-later stacks (FROM_IP at
   * 680H, TO_IP at 6C0H, LBR_INFO at DC0H with LBR format 5). The record
   * format is IA32_PERF_CAPABILITIES[5:0] (1-5 are modelled). */
  uint8_t lbr_depth;
  /* The part (enum spmu_part) whose caches CPUID leaf 04H describes: the
   * presets from Sandy Bridge on; 0 (none) for the others. */
  uint8_t part;
  uint8_t lbr_pad_[2]; /* must be zero */
  /* Architectural LBRs (SPMU_FEAT_ARCH_LBR): CPUID.(EAX=1CH,ECX=0) EAX,
   * EBX, ECX as the part enumerates them (EAX[7:0] the supported depths
   * 8*(n+1), EAX[30] deep C-state reset, EAX[31] LIP; EBX[0] CPL
   * filtering, [1] branch filtering, [2] call-stack mode; ECX[0]
   * mispredict bit, [1] timed LBRs, [2] branch type field). */
  uint32_t lbr_leaf_1c[3];
  uint64_t reserved_[4];
} spmu_profile;

/* The preset softpmu's own programs (the softpmu command, softpmu-demo)
 * model when none is named: the newest, with every register layout the
 * catalogue knows (perfmon v5, adaptive PEBS, PERF_METRICS). */
#define SPMU_PROFILE_DEFAULT "sapphirerapids"

/* Does p state CPUID.0AH:EDX[4:0] and ECX itself (fixed_contig or
 * fixed_ecx non-zero), rather than enumerate fixed_mask the plain way? */
SPMU_API bool spmu_profile_fixed_stated(const spmu_profile *p);

/* The name of p's part ("skylake"; the presets' names), or NULL when it
 * has none (SPMU_PART_NONE) or an unknown one. */
SPMU_API const char *spmu_profile_part_name(const spmu_profile *p);

/* The event table that names the events of the preset p is (by p's name,
 * exactly): libpfm4's name of that generation's table, its PMU ("skl" for
 * skylake; coreduo, core, nhm, snb, hsw, icl, spr), as LIBPFM_FORCE_PMU
 * takes it. NULL for a profile that is no preset (a custom one, whatever
 * its base) and for the NetBurst presets. */
SPMU_API const char *spmu_profile_event_table(const spmu_profile *p);

/* The CPUID.01H:EAX signature (family, model, stepping) of the processor
 * the preset p models (by p's name, exactly), for a host or a tool that
 * says which processor was modelled: 0x506E3 for skylake (family 06H,
 * model 5EH, stepping 3). 0 for a profile that is no preset. The model
 * itself never reports it: leaf 01H's EAX belongs to the host's CPU
 * model (spmu_profile_cpuid). */
SPMU_API uint32_t spmu_profile_signature(const spmu_profile *p);

/* The named presets, in a stable order; NULL past the end. */
SPMU_API const char *spmu_profile_preset_name(unsigned index);

/* Fill *out from a string: a preset name ("skylake"), or a list of
 * key=value pairs separated by commas or spaces, optionally starting from a
 * preset with base=NAME:
 *
 *   base=skylake,gp=8,threads=1
 *   version=2,gp=2,gp_width=40,fixed=3,fixed_width=40
 *
 * Keys: name, base, version, gp, gp_width, fixed (a count: counters
 * 0..n-1), fixed_mask (a bitmap, v5), fixed_contig (CPUID.0AH:EDX[4:0]
 * as enumerated) and fixed_ecx (CPUID.0AH:ECX as enumerated, v5), which
 * set fixed_mask to their union unless the string gives fixed or
 * fixed_mask too, fixed_width, events (EBX length),
 * unavailable (EBX), perf_capabilities (implies pdcm=1), threads,
 * lbr_depth (the model-specific LBR stack: 0, 4, 16 or 32 entries),
 * part (whose caches CPUID leaf 04H reports: none, sandybridge, haswell,
 * skylake, icelake, sapphirerapids),
 * lbr_1c_eax, lbr_1c_ebx, lbr_1c_ecx (CPUID leaf 1CH, with arch_lbr=1),
 * and the 0/1 feature keys pdcm ds dtes64 ds_cpl bts pebs rtm pt sgx
 * uncore_pmi precise_store any_deprecated netburst iq_escr ext_cascade
 * arch_lbr. Numbers are decimal or 0x-hex.
 *
 * The NetBurst presets: "pentium4" (family 0FH model 2 with
 * Hyper-Threading: two logical processors sharing one PMU, 45 ESCRs,
 * extended cascading, DS with BTS and PEBS, 32-bit DS layout) and
 * "pentium4-noht" (the same part with one logical processor).
 *
 * On failure returns a negative code (SPMU_ENOENT for an unknown preset,
 * SPMU_EINVAL for a malformed string, SPMU_EPROFILE for an impossible
 * profile) and, when why != NULL, a one-line reason in why[0..whylen). */
SPMU_API int spmu_profile_parse(const char *spec, spmu_profile *out, char *why,
                                size_t whylen);

/* 0 if the profile describes a processor the model can be, else
 * SPMU_EPROFILE with the reason in why (as spmu_profile_parse). */
SPMU_API int spmu_profile_validate(const spmu_profile *p, char *why,
                                   size_t whylen);

/* Write the profile as a key=value string that spmu_profile_parse reads
 * back to an identical profile. Returns the length, or SPMU_ENOSPC /
 * SPMU_EINVAL; the output is always NUL-terminated when len > 0. */
SPMU_API int spmu_profile_format(const spmu_profile *p, char *buf, size_t len);

/* CPUID as this profile enumerates it, for leaves 00H (EAX only: the
 * lowest maximum basic leaf that reaches every leaf below the profile
 * enumerates: 1CH with architectural LBRs, 0AH with architectural
 * performance monitoring, 04H with a part, else 01H; EBX, ECX, EDX 0: the
 * vendor is the host's; no bits of leaf 00H are owned, spmu_cpuid_owned
 * says SPMU_ENOENT: a host whose maximum is below EAX raises it to EAX,
 * SDM Vol. 2A CPUID), 01H (only the PMU bits:
 * ECX[2] DTES64, ECX[4] DS-CPL, ECX[15] PDCM, EDX[21] DS), 04H (all of it,
 * for a profile with a part: the deterministic cache parameters, one
 * sub-leaf per cache, L1D, L1I, L2, L3, then type 0 "no more caches" for
 * every sub-leaf after; SPMU_ENOENT without a part), 07H sub-leaf 0 (only
 * EDX[19] Arch LBR), 0AH (all of it; no sub-leaves), 0DH (below) and 1CH
 * (all of it: the architectural LBR capabilities, zero without them).
 * regs = {EAX, EBX, ECX, EDX}. Other leaves: SPMU_ENOENT.
 * spmu_cpuid_owned() gives the bits softpmu defines for a leaf, so a host
 * merges with  host = (host & ~owned) | ours. */
SPMU_API int spmu_profile_cpuid(const spmu_profile *p, uint32_t leaf,
                                uint32_t subleaf, uint32_t regs[4]);
SPMU_API int spmu_cpuid_owned(uint32_t leaf, uint32_t owned[4]);
/* Leaf 0DH, by sub-leaf (architectural LBR profiles; zero otherwise):
 * sub-leaf 1 ECX[15] (IA32_XSS bit 15, the LBR state component), sub-leaf
 * 0FH all of it (EAX its size, SPMU_LBR_XSAVE_SIZE of the deepest depth;
 * EBX 0; ECX 1: a supervisor component; EDX 0); spmu_profile_cpuid
 * answers them. spmu_cpuid_owned_subleaf gives the owned bits of any leaf
 * by sub-leaf (leaf 0DH: those; other sub-leaves of 0DH none); leaf 0DH
 * is not in spmu_cpuid_owned, whose masks hold for every sub-leaf (but
 * leaf 07H: only sub-leaf 0 is owned, here). */
SPMU_API int spmu_cpuid_owned_subleaf(uint32_t leaf, uint32_t subleaf,
                                      uint32_t owned[4]);

/* What spmu_profile_from_cpuid does with a PMU the model cannot be. */
typedef enum spmu_cpuid_mode {
  /* The profile is validated: SPMU_EPROFILE with the reason in why (as
   * spmu_profile_validate) when the model cannot be that PMU. */
  SPMU_CPUID_EXACT = 0,
  /* The nearest PMU the model can be: a version above 5 is taken as 5,
   * more than SPMU_MAX_GP GP counters as SPMU_MAX_GP, an EBX length above
   * 32 as 32, fixed counters past 2 before version 5 and past
   * SPMU_MAX_FIXED - 1 are left out, IA32_PERF_CAPABILITIES bits above 17
   * are cleared, a PEBS record format that does not go with PEBS_BASELINE
   * (bit 14) becomes 3 (or 4 with it), PERF_METRICS without fixed counter 3
   * is cleared. why gets one line per limit taken, '\n' between them ("" if
   * none); the result is then validated as SPMU_CPUID_EXACT does (a width
   * outside 32-64 bits, say, is still SPMU_EPROFILE). */
  SPMU_CPUID_CLAMP = 1,
  /* The fields exactly as CPUID enumerates them, nothing checked: the
   * profile may be one spmu_profile_validate refuses. For a reader of the
   * fields (the agent on real hardware), never for spmu_core_new. */
  SPMU_CPUID_DECODE = 2,
} spmu_cpuid_mode;

/* A profile from CPUID, the inverse of spmu_profile_cpuid: leaf_0a is
 * CPUID.0AH {EAX, EBX, ECX, EDX}, leaf_01 CPUID.01H (NULL: none, as on a
 * CPU without that leaf), perf_capabilities IA32_PERF_CAPABILITIES, read
 * only where CPUID.01H:ECX[15] (PDCM) says it exists (ignored otherwise).
 *
 * Leaf 0AH (SDM Vol. 2A CPUID, Table 3-8; Vol. 3B 18.2.1-18.2.5): EAX[7:0]
 * version, [15:8] GP counters, [23:16] their width, [31:24] the length of
 * the EBX vector; EBX bit i = event i not available (bits at or past the
 * length are reserved and not taken); from version 2 EDX[4:0] contiguous
 * fixed counters and EDX[12:5] their width; from version 5 ECX the fixed
 * counter bitmap and EDX[15] AnyThread deprecation. Fixed counter i exists
 * iff ECX[i] = 1 or EDX[4:0] > i; a leaf that enumerates them otherwise
 * than spmu_profile_cpuid does for that set states fixed_contig and
 * fixed_ecx (profile.h), so the profile gives back the same leaf.
 * Leaf 01H: ECX[15] PDCM, EDX[21] DS, and with DS, ECX[2] DTES64 and
 * ECX[4] DS-CPL (they qualify the DS save area). threads is 1 and the
 * name "cpuid": CPUID leaf 0AH says neither, nor the features that other
 * leaves and IA32_MISC_ENABLE enumerate (BTS, PEBS, RTM, PT, SGX, ...),
 * which the caller sets (then spmu_profile_validate again).
 *
 * Returns SPMU_OK, SPMU_EINVAL (NULL leaf_0a or out, a mode not listed),
 * or SPMU_EPROFILE with the reason in why; *out is written only on
 * SPMU_OK. */
SPMU_API int spmu_profile_from_cpuid(const uint32_t leaf_0a[4],
                                     const uint32_t leaf_01[4],
                                     uint64_t perf_capabilities,
                                     spmu_cpuid_mode mode, spmu_profile *out,
                                     char *why, size_t whylen);

/* Architectural LBRs from CPUID into *p (made by spmu_profile_from_cpuid
 * or a preset): leaf_07 is CPUID.(EAX=07H,ECX=0), leaf_1c CPUID.1CH. With
 * EDX[19] (Arch LBR) set, arch_lbr and lbr_1c_eax/ebx/ecx from leaf 1CH
 * (and no model-specific stack); clear, none. The model-specific stack
 * (lbr_depth) is not enumerated by CPUID (its depth goes by processor
 * model, SDM Vol. 3B 17.4.8): the caller sets it. spmu_profile_validate
 * checks the result: SPMU_OK (*p updated), SPMU_EPROFILE (why; *p left
 * alone), SPMU_EINVAL (p or leaf_07 NULL, leaf_1c NULL with EDX[19]). */
SPMU_API int spmu_profile_lbr_from_cpuid(spmu_profile *p,
                                         const uint32_t leaf_07[4],
                                         const uint32_t leaf_1c[4], char *why,
                                         size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
