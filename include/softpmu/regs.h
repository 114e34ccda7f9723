/* SPDX-License-Identifier: MIT */
/* softpmu — the register catalogue, as seen from outside.
 *
 * Every MSR of the architectural and the NetBurst PMU is declared once, in
 * one table (src/regs/catalog.c). These calls answer questions about it
 * for a given profile: which MSRs exist, their names, fields, reset values
 * and reserved bits, and they decode and encode field values. The model itself
 * uses the same table for every RDMSR/WRMSR.
 */
#ifndef SOFTPMU_REGS_H
#define SOFTPMU_REGS_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Field bits, for code that programs or reads the PMU: the model, the
 * agent, the softpmu command, the QEMU plugin (SDM 18.2.1.1 Figure 18-1
 * IA32_PERFEVTSELx, 18.2.2 Figure 18-2 IA32_FIXED_CTR_CTRL, 17.4.1
 * IA32_DEBUGCTL, 18.2.4.1 IA32_PERF_GLOBAL_STATUS, 18.2.4.3 INUSE). They
 * restate fields of the catalogue, which stays the one declaration:
 * tests/test_catalog.c checks each against the table. */
#define SPMU_EVTSEL_EVENT UINT64_C(0xff)
#define SPMU_EVTSEL_UMASK_SHIFT 8
#define SPMU_EVTSEL_USR (UINT64_C(1) << 16)
#define SPMU_EVTSEL_OS (UINT64_C(1) << 17)
#define SPMU_EVTSEL_E (UINT64_C(1) << 18)
#define SPMU_EVTSEL_INT (UINT64_C(1) << 20)
#define SPMU_EVTSEL_ANY (UINT64_C(1) << 21)
#define SPMU_EVTSEL_EN (UINT64_C(1) << 22)
#define SPMU_EVTSEL_INV (UINT64_C(1) << 23)
#define SPMU_EVTSEL_CMASK_SHIFT 24
#define SPMU_EVTSEL_IN_TX (UINT64_C(1) << 32)
#define SPMU_FIXED_EN(j) (UINT64_C(3) << (4 * (j)))
#define SPMU_FIXED_ANY(j) (UINT64_C(4) << (4 * (j)))
#define SPMU_FIXED_PMI(j) (UINT64_C(8) << (4 * (j)))
#define SPMU_DEBUGCTL_LBR (UINT64_C(1) << 0)
#define SPMU_DEBUGCTL_TR (UINT64_C(1) << 6)
#define SPMU_DEBUGCTL_BTS (UINT64_C(1) << 7)
#define SPMU_DEBUGCTL_BTINT (UINT64_C(1) << 8)
#define SPMU_DEBUGCTL_BTS_OFF_OS (UINT64_C(1) << 9)
#define SPMU_DEBUGCTL_BTS_OFF_USR (UINT64_C(1) << 10)
#define SPMU_DEBUGCTL_FREEZE_LBRS (UINT64_C(1) << 11)
#define SPMU_DEBUGCTL_FREEZE_PERFMON (UINT64_C(1) << 12)
#define SPMU_DEBUGCTL_ENABLE_UNCORE_PMI (UINT64_C(1) << 13)
#define SPMU_DEBUGCTL_FREEZE_WHILE_SMM (UINT64_C(1) << 14)
#define SPMU_STATUS_TRACE_TOPA_PMI (UINT64_C(1) << 55)
#define SPMU_STATUS_LBR_FRZ (UINT64_C(1) << 58)
#define SPMU_STATUS_CTR_FRZ (UINT64_C(1) << 59)
#define SPMU_STATUS_ASCI (UINT64_C(1) << 60)
#define SPMU_STATUS_OVF_UNCORE (UINT64_C(1) << 61)
#define SPMU_STATUS_OVF_BUF (UINT64_C(1) << 62)
#define SPMU_STATUS_COND_CHGD (UINT64_C(1) << 63)
#define SPMU_MSR_DEBUGCTL 0x1D9u
#define SPMU_MSR_GLOBAL_STATUS 0x38Eu
#define SPMU_MSR_GLOBAL_CTRL 0x38Fu
#define SPMU_INUSE_PMI (UINT64_C(1) << 63)
/* LBRs (SDM 17.7.2 Table 17-11 MSR_LBR_SELECT, 1 = do not record; 17.9.1
 * EN_CALLSTACK; 17.12.1 MSR_LBR_INFO_x; "Architectural Last Branch
 * Records": IA32_LBR_CTL, 1 = record, and IA32_LBR_x_INFO). */
#define SPMU_LBR_SELECT_CPL_EQ_0 (UINT64_C(1) << 0)
#define SPMU_LBR_SELECT_CPL_NEQ_0 (UINT64_C(1) << 1)
#define SPMU_LBR_SELECT_JCC_SHIFT 2 /* bits 8:2: the types, JCC first */
#define SPMU_LBR_SELECT_TYPES (UINT64_C(0x7f) << 2)
#define SPMU_LBR_SELECT_EN_CALLSTACK (UINT64_C(1) << 9)
#define SPMU_LBR_CTL_LBREN (UINT64_C(1) << 0)
#define SPMU_LBR_CTL_OS (UINT64_C(1) << 1)
#define SPMU_LBR_CTL_USR (UINT64_C(1) << 2)
#define SPMU_LBR_CTL_CALL_STACK (UINT64_C(1) << 3)
#define SPMU_LBR_CTL_COND_SHIFT 16 /* bits 22:16: the types, COND first */
#define SPMU_LBR_CTL_TYPES (UINT64_C(0x7f) << 16)
#define SPMU_LBR_INFO_CYC_CNT UINT64_C(0xffff)
#define SPMU_LBR_INFO_BR_TYPE_SHIFT 56
#define SPMU_LBR_INFO_CYC_CNT_VALID (UINT64_C(1) << 60)
#define SPMU_LBR_INFO_TSX_ABORT (UINT64_C(1) << 61)
#define SPMU_LBR_INFO_IN_TX (UINT64_C(1) << 62)
#define SPMU_LBR_INFO_MISPRED (UINT64_C(1) << 63)

#ifdef __cplusplus
extern "C" {
#endif

/* How a register reacts to a guest WRMSR. */
typedef enum spmu_policy {
  SPMU_POLICY_RW,         /* stored; reserved bits #GP; read-only fields
                             must keep their value (else #GP) */
  SPMU_POLICY_RO,         /* #GP on write; the host may write it */
  SPMU_POLICY_CONST,      /* #GP on write; fixed by the profile */
  SPMU_POLICY_COMPUTED,   /* #GP on write; read computes it from others */
  SPMU_POLICY_W1C,        /* each 1 clears that bit of the target; reads 0 */
  SPMU_POLICY_W1S,        /* each 1 sets that bit of the target; reads 0 */
  SPMU_POLICY_COUNTER_SX, /* counter; bits 31:0 written, sign-extended */
  SPMU_POLICY_COUNTER,    /* counter; full width, bits above it #GP */
} spmu_policy;

typedef enum spmu_access {
  SPMU_ACCESS_RW, /* writable field */
  SPMU_ACCESS_RO, /* read-only: a write must keep its value */
  SPMU_ACCESS_W1C,
  SPMU_ACCESS_W1S,
} spmu_access;

typedef struct spmu_msr_info {
  uint32_t addr;
  char name[40]; /* SDM name of this instance, e.g. "IA32_PMC3" */
  spmu_policy policy;
  uint32_t target;   /* the MSR whose state a W1C/W1S/alias write changes */
  unsigned width;    /* counters: the counter width; others 64 */
  uint64_t reset;    /* power-on value in this profile */
  uint64_t reserved; /* bits that #GP when set: for IA32_PMCx none
                        (bits 63:32 of a write are ignored, SDM
                        18.2.5); for full-width counters the bits
                        above the width */
  uint64_t readonly; /* bits a write must not change */
  unsigned nfields;
  const char *sdm; /* where the SDM defines it */
  char brief[96];  /* one line, of this instance ("event select for
                      IA32_PMC3") */
} spmu_msr_info;

typedef struct spmu_field_info {
  char name[40]; /* e.g. "Ovf_PMC0", "EN_FIXED_CTR1", "CMASK" */
  unsigned lsb, width;
  spmu_access access;
  char brief[96]; /* one line, of this instance ("IA32_PMC1 overflowed") */
} spmu_field_info;

/* Two forms of every question. The spmu_msr_* calls take a profile; each
 * validates it and works out, for that one call, only what its answer
 * needs (the MSR asked about, or which MSRs exist): simple, for a question
 * or two, and without global state. An spmu_regview handle applies its
 * profile to the whole catalogue once; its spmu_regview_* calls answer
 * from it, the same answers, without validating again (bench/bench_msr
 * measures both). A handle is read-only after spmu_regview_new: any number
 * of threads may query one at once. */
typedef struct spmu_regview spmu_regview;

/* A handle on profile p applied to the catalogue: SPMU_OK, SPMU_EINVAL
 * (p NULL or invalid, out NULL), SPMU_ENOMEM. *out is NULL on failure. */
SPMU_API int spmu_regview_new(const spmu_profile *p, spmu_regview **out);
SPMU_API void spmu_regview_free(spmu_regview *r);

/* As spmu_msr_list, spmu_msr_info_get, spmu_msr_field_get,
 * spmu_msr_lookup (r == NULL: any name of the catalogue),
 * spmu_msr_field_decode and spmu_msr_field_encode below. */
SPMU_API size_t spmu_regview_list(const spmu_regview *r, uint32_t *addrs,
                                  size_t cap);
SPMU_API int spmu_regview_info(const spmu_regview *r, uint32_t addr,
                               spmu_msr_info *out);
SPMU_API int spmu_regview_field_get(const spmu_regview *r, uint32_t addr,
                                    unsigned idx, spmu_field_info *out);
SPMU_API int spmu_regview_lookup(const spmu_regview *r, const char *name,
                                 uint32_t *addr);
SPMU_API int spmu_regview_field_decode(const spmu_regview *r, uint32_t addr,
                                       const char *field, uint64_t reg,
                                       uint64_t *value);
SPMU_API int spmu_regview_field_encode(const spmu_regview *r, uint32_t addr,
                                       const char *field, uint64_t value,
                                       uint64_t *reg);

/* Every MSR present in the profile, in ascending address order. Writes up to
 * cap addresses and returns how many exist (call with cap 0 to count). */
SPMU_API size_t spmu_msr_list(const spmu_profile *p, uint32_t *addrs,
                              size_t cap);

/* Every MSR address the catalogue declares on some processor that profile p
 * does not have, in ascending address order: counters and event selects
 * past the profile's, the LBR layouts of other families (Core 2's at 40H /
 * 60H on a Skylake, 680H-6FFH on a Core 2; SDM Vol. 4 Chapter 2, the MSR
 * tables of each family), the NetBurst MSRs on the others and the others'
 * on NetBurst, PEBS, DS and architectural-LBR MSRs a profile lacks; and
 * the debug and LBR address blocks no modelled processor has an MSR in
 * (NetBurst's LBR MSRs at 1D7H-1D8H and 1DAH-1DCH, the architectural LBR
 * entries past the 32 modelled at 1220H-12FFH, 1520H-15FFH and
 * 1620H-16FFH), but never the architectural MSRs of other facilities at
 * 48H, 49H, 4EH, 4FH and 79H (docs/decisions.md #96). The
 * modelled processor raises #GP(0) on RDMSR or WRMSR of any of them (SDM
 * Vol. 2B RDMSR, WRMSR: "If the value in ECX specifies a reserved or
 * unimplemented MSR address"), as spmu_rdmsr and spmu_wrmsr answer
 * SPMU_GP: a host that keeps other MSRs itself and hands the model only
 * spmu_msr_list's raises #GP for these. Disjoint from spmu_msr_list. Writes
 * up to cap addresses and returns how many there are (cap 0 to count); 0 for
 * an invalid profile. */
SPMU_API size_t spmu_msr_absent_list(const spmu_profile *p, uint32_t *addrs,
                                     size_t cap);

/* Describe an MSR of the profile: SPMU_OK, or SPMU_ENOMSR if absent. */
SPMU_API int spmu_msr_info_get(const spmu_profile *p, uint32_t addr,
                               spmu_msr_info *out);

/* Field idx (0..nfields-1) of an MSR, in ascending bit order. */
SPMU_API int spmu_msr_field_get(const spmu_profile *p, uint32_t addr,
                                unsigned idx, spmu_field_info *out);

/* Address of an MSR by SDM name (case-insensitive; "IA32_PMC3",
 * "IA32_PERF_GLOBAL_OVF_CTRL") or by number ("0x38f", "911"). With
 * p == NULL any name in the catalogue is accepted; otherwise the MSR must be
 * present in p (SPMU_ENOMSR if it exists only elsewhere, SPMU_ENOENT if the
 * name is unknown). */
SPMU_API int spmu_msr_lookup(const spmu_profile *p, const char *name,
                             uint32_t *addr);

/* Read / set one named field of a register value. Field names are
 * case-insensitive. SPMU_ENOMSR, SPMU_ENOENT (no such field), SPMU_ERANGE
 * (value wider than the field). */
SPMU_API int spmu_msr_field_decode(const spmu_profile *p, uint32_t addr,
                                   const char *field, uint64_t reg,
                                   uint64_t *value);
SPMU_API int spmu_msr_field_encode(const spmu_profile *p, uint32_t addr,
                                   const char *field, uint64_t value,
                                   uint64_t *reg);

#ifdef __cplusplus
}
#endif
#endif
