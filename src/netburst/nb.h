/* SPDX-License-Identifier: MIT */
/* The NetBurst counting engine's state (src/netburst): types only, so
 * that the core can hold it in struct spmu_core (src/core/objects.h). */
#ifndef SPMU_NETBURST_NB_H
#define SPMU_NETBURST_NB_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"
#include "util/bits.h"

/* CCCR bits the engine uses (SDM 18.15.3 Figure 18-45, 18.16.2 Figure
 * 18-48, 18.15.5.7 Table 18-65). They restate catalogue fields;
 * tests/test_netburst.c checks each against the table. */
#define SPMU_NB_CCCR_EXT_CASCADE BIT64(11)
#define SPMU_NB_CCCR_ENABLE BIT64(12)
#define SPMU_NB_CCCR_SELECT_SHIFT 13
#define SPMU_NB_CCCR_ACTIVE_SHIFT 16
#define SPMU_NB_CCCR_COMPARE BIT64(18)
#define SPMU_NB_CCCR_COMPLEMENT BIT64(19)
#define SPMU_NB_CCCR_THRESHOLD_SHIFT 20
#define SPMU_NB_CCCR_EDGE BIT64(24)
#define SPMU_NB_CCCR_FORCE_OVF BIT64(25)
#define SPMU_NB_CCCR_OVF_PMI_T0 BIT64(26)
#define SPMU_NB_CCCR_OVF_PMI_T1 BIT64(27)
#define SPMU_NB_CCCR_CASCADE BIT64(30)
#define SPMU_NB_CCCR_OVF BIT64(31)
#define SPMU_NB_WIDTH 40

/* An ESCR as the engine reads it, decoded when registers change. */
struct spmu_nb_escr {
  uint8_t unit;  /* enum spmu_nb_unit; SPMU_NB_UNIT_NONE: not present */
  uint8_t evsel; /* ESCR[30:25] */
  uint16_t mask; /* ESCR[24:9] */
  uint16_t ti;   /* thread-independent bits of its event (Table 19-34) */
  uint8_t ts_ok; /* bit 2t + u: thread t's events at CPL class u (0: CPL
                    0, 1: CPL > 0) qualify (T0/T1 OS/USR, Table 18-66) */
  uint8_t ti_ok; /* bit u: thread-independent events qualify (Table 18-67) */
  uint8_t tag;   /* TAG_VALUE if TAG_ENABLE, else 0 (execution tagging) */
};

/* The engine's state of one core. */
struct spmu_nb {
  struct spmu_nb_escr escr[SPMU_NB_NESCR];
  int8_t sel[SPMU_NB_NCTR]; /* ESCR slot counter n's CCCR selects, or -1:
                               no such ESCR feeds it (it counts nothing) */
  /* Not MSRs, part of the snapshot: */
  uint32_t edge;    /* bit n: counter n's threshold output last clock */
  uint32_t pend[2]; /* bit n: counter n overflowed and owes thread t a
                       PMI at its next increment (SDM 18.15.3) */
  uint8_t armed;    /* bit t: thread t's PEBS counter overflowed; the
                       assist is due at its next increment */
};

#endif
