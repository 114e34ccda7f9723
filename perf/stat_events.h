/* SPDX-License-Identifier: MIT */
/* softpmu stat: from an -e event string to what the counter is programmed
 * with.
 *
 * An event resolves to a raw IA32_PERFEVTSELx value as a driver writes it
 * (SDM Vol. 3B 18.2.1.1, Figure 18-1: EVENT[7:0], UMASK[15:8], USR bit
 * 16, OS bit 17, E bit 18, EN bit 22, INV bit 23, CMASK[31:24]; INT bit 20
 * is never set: stat takes no interrupts), or to "not supported": the
 * engine produces exactly instructions retired, branch instructions
 * retired by umask, and loads and stores retired, and, with the modelled
 * micro-architecture (uarch/, chosen by stat_model.h), estimates of
 * cycles, cache references and misses, L1D replacements, branch
 * mispredicts and loads by where they hit; an event it does not produce
 * is printed <not supported>, as perf prints an event the machine cannot
 * count. A resolved event says whether its count is modelled.
 *
 * Accepted spellings, case-insensitive:
 *   perf's generic names         instructions, branches, cycles, ...
 *   the profile's Intel names    BR_INST_RETIRED:NEAR_CALL (libpfm4's)
 *                                br_inst_retired.near_call (perf's)
 *   perf's names libpfm4 lacks   inst_retired.any, cpu_clk_unhalted.thread,
 *                                cpu_clk_unhalted.ref_tsc (the fixed
 *                                counters' events, SDM Vol. 3B Table 18-2,
 *                                as the architectural event each counts),
 *                                their AnyThread variants (_any: <not
 *                                supported>)
 *   perf's raw form              r00c0, r5100c0 (the raw config: bits of
 *                                the event select; USR, OS, INT and EN are
 *                                set by the modifiers, as perf's kernel
 *                                side sets them, so they are ignored)
 *   perf's PMU form              cpu/event=0xc4,umask=0x02,cmask=1,inv,edge/
 * each optionally followed by perf's modifiers (cpu/.../ also by /u):
 *   :u, :k, :uk  count user code, kernel code or both (the default, as
 *                perf's); the engine runs only user code, so an event with
 *                :k alone counts 0; :h (hypervisor) counts as :u here, where
 *                no hypervisor runs;
 *   :G, :H       guest or host mode only: all code here is host code, so
 *                :H changes nothing and :G alone counts 0;
 *   :p, :pp, :ppp, :P   a precise level (PEBS, SDM Vol. 3B 18.4.4), refused
 *                on a profile without PEBS (:P is then level 0);
 * combined as perf combines them (:upp).
 *
 * The Intel names come from libpfm4 with its PMU table forced to the
 * profile's: stat_events_setup() sets LIBPFM_FORCE_PMU in this process's
 * environment (skylake -> skl, ...) for pfm_initialize(), then puts the
 * variable back as it was, so the measured program's environment is not
 * changed. libpfm4 reads it once per process, so one process resolves
 * names for one profile.
 */
#ifndef SOFTPMU_STAT_EVENTS_H
#define SOFTPMU_STAT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <softpmu/profile.h>
#include <softpmu/regs.h>

/* IA32_PERFEVTSELx bits: softpmu/regs.h (SPMU_EVTSEL_*). */
/* The bits an event string may choose: EVENT, UMASK, E, INV, CMASK. */
#define STAT_EVTSEL_EVENT_BITS 0xff84ffffULL

/* Whether the modelled micro-architecture counts this run (stat_model.h
 * decides from --model, --no-model and the profile). */
enum stat_model_use {
  STAT_MODEL_ON,  /* a model is loaded: modelled events are counted */
  STAT_MODEL_OFF, /* --no-model: modelled events are <not supported> */
  STAT_MODEL_NONE /* no model to load (the profile has no part): a
                     modelled event is an error saying what would work */
};

/* perf's generic hardware events (perf_event_open(2), PERF_TYPE_HARDWARE,
 * and the L1 data cache's of PERF_TYPE_HW_CACHE) that perf stat derives
 * its metrics from ("insn per cycle", "of all
 * branches", "of all cache refs"); STAT_HW_NONE for every other event. */
enum stat_hw {
  STAT_HW_NONE,
  STAT_HW_CYCLES,
  STAT_HW_INSTRUCTIONS,
  STAT_HW_BRANCHES,
  STAT_HW_BRANCH_MISSES,
  STAT_HW_CACHE_REFS,
  STAT_HW_CACHE_MISSES,
  STAT_HW_L1D_LOADS,      /* L1-dcache-loads (PERF_TYPE_HW_CACHE) */
  STAT_HW_L1D_LOAD_MISSES /* L1-dcache-load-misses */
};

/* One resolved -e event. */
struct stat_event {
  char name[96];    /* as perf prints it: the event string as given */
  uint64_t evtsel;  /* the IA32_PERFEVTSELx value (EN set); 0 when not
                       supported */
  bool supported;   /* false: print <not supported> */
  bool user;        /* USR: counts user code (CPL 3) */
  bool kernel;      /* OS: counts kernel code (CPL 0), which this engine
                       never runs */
  bool modelled;    /* counted by the modelled micro-architecture (an
                       estimate, printed as such), not exactly */
  enum stat_hw hw;  /* which generic hardware event it is, if one */
  unsigned precise; /* perf's precise level from :p, :pp, :ppp or :P
                       (0 to 3; above 0 only where the profile has PEBS):
                       record samples with PEBS, stat ignores it */
};

/* The libpfm4 PMU table name for a profile ("skl" for skylake), or NULL
 * when libpfm4 has none for it (custom profiles, NetBurst). */
const char *stat_events_pfm_pmu(const spmu_profile *p);

/* Make the profile's Intel names resolvable: LIBPFM_FORCE_PMU in the
 * environment for pfm_initialize(), once per process; the environment is
 * left as it was found. 0, or -1 with the
 * reason in why (libpfm4 already set up for another profile, or failed).
 * A profile without a libpfm4 table is not an error: generic names and
 * the raw forms still resolve. stat_event_resolve() calls it. */
int stat_events_setup(const spmu_profile *p, char *why, size_t whylen);

/* Resolve spec (one event, no commas outside cpu/.../) for profile p into
 * *out, with the model as `model` says. 0 when it names an event
 * (out->supported says whether the engine produces it, out->modelled
 * whether by the model); -1 when it does not, with the reason, and the
 * nearest names when some are close ("did you mean"), in why; -1 too for
 * a modelled event with STAT_MODEL_NONE. */
int stat_event_resolve(const spmu_profile *p, enum stat_model_use model,
                       const char *spec, struct stat_event *out, char *why,
                       size_t whylen);

/* perf stat's --all-user on a resolved event: it counts user code only
 * (USR set, OS clear: SDM Vol. 3B 18.2.1.1), whatever its modifiers said,
 * its name unchanged, as perf prints it. An event counting at no level
 * (:G alone: no guest runs here) is left counting nothing. */
void stat_event_user_only(struct stat_event *e);

/* ---- softpmu list: every name stat_event_resolve() takes ---------------*/

/* The groups of the names, as perf list groups its events. */
enum stat_list_group {
  STAT_LIST_HARDWARE, /* perf's generic hardware events */
  STAT_LIST_CACHE,    /* perf's generic cache events */
  STAT_LIST_SOFTWARE, /* perf's software events: never produced here */
  STAT_LIST_INTEL,    /* the profile's Intel names: perf's names of the
                         fixed counters' events, then libpfm4's table in
                         perf's spelling */
  STAT_LIST_NGROUPS
};

/* One name, as stat_event_resolve() resolved it. */
struct stat_list_item {
  enum stat_list_group group;
  const char *name; /* as stat takes it */
  const char *desc; /* what it counts (libpfm4's, or the SDM's words), or
                       NULL */
  const struct stat_event *ev; /* its resolution (ev->supported,
                                  ev->modelled) */
  bool needs_model;            /* a modelled event stat refuses with `model`
                                  STAT_MODEL_NONE: it needs --model */
};

typedef void stat_list_fn(void *opaque, const struct stat_list_item *item);

/* Call fn for every event name stat_event_resolve() takes on profile p
 * (without modifiers; the raw forms are syntax, not names), group by group,
 * each with its resolution under `model`; a modelled event refused for
 * want of a model (STAT_MODEL_NONE) comes with needs_model set and the
 * resolution --no-model gives. Names it refuses otherwise are not passed:
 * what fn sees is what stat takes. 0, or -1 with the reason in why (a
 * NetBurst profile; libpfm4 set up for another profile). */
int stat_events_list(const spmu_profile *p, enum stat_model_use model,
                     stat_list_fn *fn, void *opaque, char *why, size_t whylen);

/* The next event of an -e list ("instructions,cpu/event=0xc4,umask=2/u"),
 * split at commas outside cpu/.../, into buf. Advances *list past it and
 * its comma. false at the end of the list, or when an event does not fit
 * buf (then buf holds "" and *list points at the event). */
bool stat_event_next(const char **list, char *buf, size_t len);

/* One item of an -e list: an event, or perf's event group "{a,b,...}"
 * with the group's modifiers after it ("{a,b}:u"). */
enum stat_item {
  STAT_ITEM_END,   /* the list is done */
  STAT_ITEM_EVENT, /* one event, in buf (as stat_event_next) */
  STAT_ITEM_GROUP, /* a group: its members in buf, ","-separated, its
                      modifiers (without ':') in mods, "" for none */
  STAT_ITEM_BAD    /* a '{' without its '}', or too long for buf */
};

/* The next item of *list, advancing past it and its comma. */
enum stat_item stat_event_item(const char **list, char *buf, size_t len,
                               char *mods, size_t mlen);

/* Does an event string carry perf's modifiers (":u", "/u" after
 * cpu/.../)? */
bool stat_event_has_modifiers(const char *spec);

/* A member of a group given modifiers: perf ORs the group's exclusions
 * into the member's (tools/perf/util/parse-events.c), so it counts at
 * the levels both allow (USR, OS: SDM Vol. 3B 18.2.1.1); none left, it
 * counts nothing here (OS alone, as :G). */
void stat_event_restrict(struct stat_event *e, bool user, bool kernel);

/* The levels a modifier string ("u", "kpp", "G") counts at: false when it
 * is not one. */
bool stat_event_modifier_levels(const char *mods, bool *user, bool *kernel);

#endif
