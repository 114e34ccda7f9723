/* SPDX-License-Identifier: MIT */
/* softpmu — the NetBurst (Pentium 4) PMU: ESCR units and the event table.
 *
 * A NetBurst core (profiles "pentium4", "pentium4-noht"; SDM Vol. 3B
 * 18.15-18.16) has 18 counters, each with a CCCR, and up to 45 ESCRs. An
 * ESCR selects an event (ESCR[30:25]) and event-mask bits (ESCR[24:9]);
 * the ESCRs come in pairs, one pair per unit below, ESCR0 feeding the
 * first counters of a group and ESCR1 the second (SDM Table 18-63). Events
 * reach the model as lines keyed by (unit, event select, event-mask bit):
 * see spmu_deliver_netburst in events.h.
 *
 * The event table holds the events of SDM Tables 19-28, 19-29 and 19-30
 * with their mask bits and which of them are thread-independent (Table
 * 19-34), so that a tool can program "instr_retired:NBOGUSNTAG" by name.
 * Where libpfm4's NetBurst table disagrees with the SDM (the select codes
 * of packed_SP_uop / packed_DP_uop, the ESCRs of instr_completed), the
 * SDM's values are the ones here.
 */
#ifndef SOFTPMU_NETBURST_H
#define SOFTPMU_NETBURST_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ESCR pairs (units), in address order of their ESCR0 (Table 18-63).
 * The three CRU pairs see different events and are distinct units. */
enum spmu_nb_unit {
  SPMU_NB_UNIT_NONE = 0, /* no unit: a line or tag source that is absent */
  SPMU_NB_BSU = 1,       /* MSR_BSU_ESCR0/1    3A0H */
  SPMU_NB_FSB,           /* MSR_FSB_ESCR0/1    3A2H */
  SPMU_NB_FIRM,          /* MSR_FIRM_ESCR0/1   3A4H */
  SPMU_NB_FLAME,         /* MSR_FLAME_ESCR0/1  3A6H */
  SPMU_NB_DAC,           /* MSR_DAC_ESCR0/1    3A8H */
  SPMU_NB_MOB,           /* MSR_MOB_ESCR0/1    3AAH */
  SPMU_NB_PMH,           /* MSR_PMH_ESCR0/1    3ACH */
  SPMU_NB_SAAT,          /* MSR_SAAT_ESCR0/1   3AEH */
  SPMU_NB_U2L,           /* MSR_U2L_ESCR0/1    3B0H */
  SPMU_NB_BPU,           /* MSR_BPU_ESCR0/1    3B2H */
  SPMU_NB_IS,            /* MSR_IS_ESCR0/1     3B4H */
  SPMU_NB_ITLB,          /* MSR_ITLB_ESCR0/1   3B6H */
  SPMU_NB_CRU0,          /* MSR_CRU_ESCR0/1    3B8H */
  SPMU_NB_IQ,            /* MSR_IQ_ESCR0/1     3BAH (models 1-2) */
  SPMU_NB_RAT,           /* MSR_RAT_ESCR0/1    3BCH */
  SPMU_NB_SSU,           /* MSR_SSU_ESCR0      3BEH (no ESCR1) */
  SPMU_NB_MS,            /* MSR_MS_ESCR0/1     3C0H */
  SPMU_NB_TBPU,          /* MSR_TBPU_ESCR0/1   3C2H */
  SPMU_NB_TC,            /* MSR_TC_ESCR0/1     3C4H */
  SPMU_NB_IX,            /* MSR_IX_ESCR0/1     3C8H */
  SPMU_NB_ALF,           /* MSR_ALF_ESCR0/1    3CAH */
  SPMU_NB_CRU2,          /* MSR_CRU_ESCR2/3    3CCH */
  SPMU_NB_CRU4,          /* MSR_CRU_ESCR4/5    3E0H */
  SPMU_NB_NUNITS = SPMU_NB_CRU4
};

/* The unit's short name ("CRU2" for MSR_CRU_ESCR2/3), or NULL. */
SPMU_API const char *spmu_nb_unit_name(unsigned unit);

/* Event flags. */
#define SPMU_NB_EV_AT_RETIREMENT 0x01 /* Table 19-29 (at-retirement) */
#define SPMU_NB_EV_PEBS 0x02          /* can support PEBS (IQ_COUNTER4) */
#define SPMU_NB_EV_MODEL_346 0x04     /* Table 19-30: models 3, 4, 6 only */

/* One event of the table. mask_names[k] names event-mask bit k (ESCR bit
 * 9 + k), NULL where the SDM defines none. */
typedef struct spmu_nb_event {
  const char *name; /* as the SDM spells it: "instr_retired" */
  uint8_t unit;     /* enum spmu_nb_unit */
  uint8_t evsel;    /* ESCR[30:25] */
  uint8_t escrs;    /* usable ESCRs of the pair: bit 0 ESCR0,
                       bit 1 ESCR1 (ESCR restrictions row) */
  uint8_t flags;    /* SPMU_NB_EV_* */
  uint16_t ti;      /* thread-independent mask bits (Table 19-34) */
  const char *mask_names[16];
  const char *brief;
} spmu_nb_event;

/* Event i of the table (i = 0, 1, ...), or NULL past the end. */
SPMU_API const spmu_nb_event *spmu_nb_event_at(unsigned i);

/* The event of (unit, evsel), or NULL: what the model uses to know which
 * mask bits of a programmed ESCR are thread-independent. */
SPMU_API const spmu_nb_event *spmu_nb_event_of(unsigned unit, unsigned evsel);

/* An event programmed by name, as steps 1-4 of the SDM's procedure (SDM
 * Vol. 3B 18.15.5.1) find it: the ESCRs that can count it, the counters
 * each feeds, the CCCR ESCR-select value and the ESCR's event select / mask
 * bits. */
typedef struct spmu_nb_event_sel {
  const spmu_nb_event *event;
  uint16_t mask;         /* the event-mask bits named (all defined ones
                            when the spec names none) */
  uint8_t cccr_select;   /* CCCR[15:13] value for either ESCR of the pair */
  uint32_t escr_addr[2]; /* MSR address of ESCR0 / ESCR1; 0 when that ESCR
                            is absent in the profile or not usable */
  uint32_t counters[2];  /* counters ESCR0 / ESCR1 feed (bit n) */
  uint64_t escr_value;   /* event select << 25 | mask << 9: OR in the
                            T0/T1 OS/USR and tag bits */
} spmu_nb_event_sel;

/* Parse "event[:MASK[:MASK...]]" (names case-insensitive), e.g.
 * "instr_retired:NBOGUSNTAG:NBOGUSTAG", against profile p (NULL: every
 * ESCR of the catalogue). Returns SPMU_OK, SPMU_ENOENT (unknown event or
 * mask name), SPMU_ENOMSR (no ESCR for it in p) or SPMU_EINVAL. */
SPMU_API int spmu_nb_event_parse(const spmu_profile *p, const char *spec,
                                 spmu_nb_event_sel *out);

#ifdef __cplusplus
}
#endif
#endif
