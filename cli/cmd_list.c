/* SPDX-License-Identifier: MIT */
/* softpmu list: the event names softpmu stat and record take for a
 * profile, as perf list prints them, each marked exact, modelled or <not
 * supported>. The names and their marks come from the profiler's resolver
 * (perf/stat_events.h, stat_events_list), the one stat uses, so the list
 * is what stat takes. */
/* fnmatch is POSIX.1-2001. */
#define _POSIX_C_SOURCE 200112L

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stat_events.h"  /* the profiler's event names (perf/) */
#include "stat_metrics.h" /* stat -M's metrics (perf/) */
#include "stat_model.h"   /* the model a run counts with (perf/) */

#define LIST_NAME_WIDTH 46 /* the name column, as perf list's */
#define LIST_TEXT_WIDTH 79 /* a description is wrapped to it */
#define LIST_DESC_INDENT 8

/* What the filter word selects: one of perf list's classes, or the names
 * containing it. */
enum list_only { LIST_ALL, LIST_GROUP, LIST_RAW, LIST_METRIC, LIST_WORD };

struct list_out {
  enum list_only only;
  enum stat_list_group group; /* LIST_GROUP: the class */
  const char *word;           /* LIST_WORD: the word */
  const char *profile;
  int last_group; /* the heading printed last, -1 before the first */
  const struct stat_model *model; /* for the preamble (LIST_ALL) */
};

static const char *const group_heading[STAT_LIST_NGROUPS] = {
    "Hardware events (perf's generic names)",
    "Hardware cache events (perf's generic names)",
    "Software events (perf's; under QEMU they would be the emulator's, so "
    "none is counted)",
    "(perf's names of the fixed counters' events and of AnyThread "
    "variants, then "
    "libpfm4's table for the profile, in perf's spelling; libpfm4's own, "
    "EVENT:UMASK, is taken too)",
};

/* perf list's class keywords. */
static bool list_keyword(const char *w, struct list_out *o)
{
  static const struct {
    const char *word;
    enum list_only only;
    enum stat_list_group group;
  } kw[] = {
      {"hw", LIST_GROUP, STAT_LIST_HARDWARE},
      {"hardware", LIST_GROUP, STAT_LIST_HARDWARE},
      {"cache", LIST_GROUP, STAT_LIST_CACHE},
      {"sw", LIST_GROUP, STAT_LIST_SOFTWARE},
      {"software", LIST_GROUP, STAT_LIST_SOFTWARE},
      {"pmu", LIST_GROUP, STAT_LIST_INTEL},
      {"raw", LIST_RAW, STAT_LIST_HARDWARE},
      {"metric", LIST_METRIC, STAT_LIST_HARDWARE},
      {"metrics", LIST_METRIC, STAT_LIST_HARDWARE},
      {"metricgroup", LIST_METRIC, STAT_LIST_HARDWARE},
  };
  size_t i;

  for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
    if (text_ieq(w, kw[i].word)) {
      o->only = kw[i].only;
      o->group = kw[i].group;
      return true;
    }
  return false;
}

/* Does name match word, ignoring case: as a glob when it has one of
 * perf list's glob characters (br_inst_*), else when it contains word? */
static bool name_matches(const char *name, const char *word)
{
  char n[128], w[128];
  size_t i;

  for (i = 0; name[i] && i + 1 < sizeof n; i++)
    n[i] = (char)tolower((unsigned char)name[i]);
  n[i] = '\0';
  for (i = 0; word[i] && i + 1 < sizeof w; i++)
    w[i] = (char)tolower((unsigned char)word[i]);
  w[i] = '\0';
  if (strpbrk(w, "*?["))
    return fnmatch(w, n, 0) == 0;
  return strstr(n, w) != NULL;
}

static bool list_wants(const struct list_out *o,
                       const struct stat_list_item *it)
{
  switch (o->only) {
  case LIST_ALL:
    return true;
  case LIST_GROUP:
    return it->group == o->group;
  case LIST_WORD:
    return name_matches(it->name, o->word);
  case LIST_RAW:
  case LIST_METRIC:
    break;
  }
  return false;
}

static const char *list_mark(const struct stat_list_item *it)
{
  if (it->needs_model)
    return "modelled, with --model";
  if (it->ev->supported)
    return it->ev->modelled ? "modelled" : "exact";
  return "<not supported>";
}

/* text, indented by indent blanks, wrapped at LIST_TEXT_WIDTH. */
static void print_wrapped(const char *text, int indent)
{
  int col = 0;

  while (*text) {
    size_t w = strcspn(text, " ");

    if (col > indent && col + 1 + (int)w > LIST_TEXT_WIDTH) {
      putchar('\n');
      col = 0;
    }
    if (col == 0)
      col = printf("%*s", indent, "");
    else
      col += printf(" ");
    col += printf("%.*s", (int)w, text);
    text += w;
    text += strspn(text, " ");
  }
  if (col > 0)
    putchar('\n');
}

static void list_heading(struct list_out *o, enum stat_list_group g)
{
  char buf[256];

  if (o->last_group == (int)g)
    return;
  if (o->last_group >= 0)
    putchar('\n');
  o->last_group = (int)g;
  if (g == STAT_LIST_INTEL)
    snprintf(buf, sizeof buf, "Intel events of %s %s", o->profile,
             group_heading[g]);
  else
    snprintf(buf, sizeof buf, "%s", group_heading[g]);
  print_wrapped(buf, 0);
}

/* The first lines: the profile and the model stat would count with. */
static void list_preamble(const struct list_out *o)
{
  const struct stat_model *m = o->model;
  char buf[512];

  snprintf(buf, sizeof buf,
           "Events softpmu stat and record take on %s, as perf list prints "
           "them; exact: counted exactly; modelled: an estimate of %s%s; "
           "<not supported>: taken, never counted here.",
           o->profile, m->use == STAT_MODEL_ON ? "the model " : "a model",
           m->use == STAT_MODEL_ON ? m->spec
                                   : " (none by default on this profile: "
                                     "stat and record need --model)");
  print_wrapped(buf, 0);
  putchar('\n');
}

static void list_item(void *opaque, const struct stat_list_item *it)
{
  struct list_out *o = opaque;

  if (!list_wants(o, it))
    return;
  if (o->only == LIST_ALL && o->last_group < 0)
    list_preamble(o);
  list_heading(o, it->group);
  printf("  %-*s [%s]\n", LIST_NAME_WIDTH, it->name, list_mark(it));
  if (it->desc && it->desc[0])
    print_wrapped(it->desc, LIST_DESC_INDENT);
}

static void list_raw(const struct list_out *o)
{
  if (o->last_group >= 0)
    putchar('\n');
  fputs("Raw events (perf's syntax: the event select's EVENT, UMASK, E, INV "
        "and\nCMASK, SDM Vol. 3B 18.2.1.1; exact, modelled or <not "
        "supported> as the\nname of the same encoding)\n",
        stdout);
  printf("  %-*s [raw config, e.g. r02c4]\n", LIST_NAME_WIDTH, "rNNN");
  printf("  %-*s [e.g. cpu/event=0xc4,umask=0x02/u]\n", LIST_NAME_WIDTH,
         "cpu/event=N,umask=N,cmask=N,inv,edge/");
  fputs("\nModifiers (after a name or rNNN, ':' then letters; after "
        "cpu/.../ directly)\n",
        stdout);
  printf("  %-*s [privilege levels; h counts as u here]\n", LIST_NAME_WIDTH,
         "u, k, h");
  printf("  %-*s [guest, host; G alone counts nothing here]\n", LIST_NAME_WIDTH,
         "G, H");
  printf("  %-*s [precise level: PEBS in record]\n", LIST_NAME_WIDTH,
         "p, pp, ppp, P");
}

/* perf list metric: the metrics stat -M takes (perf/stat_metrics.c), each
 * with the events it divides, as perf's metric expression spells them. */
static void list_metrics(void)
{
  const struct stat_metric *m;
  char formula[128];
  size_t i;

  fputs("Metrics (perf's that are one event over another, as stat -M NAME "
        "counts\nthem: exact or modelled as their events are)\n",
        stdout);
  for (i = 0; (m = stat_metric_at(i)); i++) {
    if (m->scale != 1.0)
      snprintf(formula, sizeof formula, "%.0f * %s / %s", m->scale, m->num,
               m->den);
    else
      snprintf(formula, sizeof formula, "%s / %s", m->num, m->den);
    printf("  %-*s [%s]\n", LIST_NAME_WIDTH, m->name, formula);
  }
}

static int list_run(const struct cli_args *a)
{
  struct list_out o = {LIST_ALL, STAT_LIST_HARDWARE, NULL, a->profile.name, -1,
                       NULL};
  struct stat_model m;
  char why[512];

  if (a->cpu && strpbrk(a->cpu, "=, "))
    return cli_usage_error(&cli_cmd_list,
                           "list: --cpu %s: stat and record take a preset "
                           "name, not a key=value profile",
                           a->cpu);
  if (a->argc == 1 && !list_keyword(a->argv[0], &o)) {
    o.only = LIST_WORD;
    o.word = a->argv[0];
  }
  if (stat_model_choose(&m, &a->profile, NULL, false, why, sizeof why) != 0) {
    cli_error("list: %s", why);
    return CLI_EXIT_USAGE;
  }
  o.model = &m;
  if (o.only == LIST_METRIC) {
    list_metrics();
    return CLI_EXIT_OK;
  }
  if (o.only != LIST_RAW && stat_events_list(&a->profile, m.use, list_item, &o,
                                             why, sizeof why) != 0) {
    cli_error("list: %s", why);
    return CLI_EXIT_USAGE;
  }
  if (o.only == LIST_ALL || o.only == LIST_RAW)
    list_raw(&o);
  return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_list = {
    .name = "list",
    .summary = "list the events softpmu stat and record take, as perf list",
    .synopsis = "[--cpu PROFILE] [hw|cache|sw|pmu|raw|metric|WORD]",
    .description =
        "    Prints every event name softpmu stat and softpmu record take on\n"
        "    the profile, as perf list prints the names perf takes, grouped\n"
        "    as perf list groups them: perf's generic hardware events, its\n"
        "    cache events, its software events, then the profile's Intel\n"
        "    events (perf's names of the fixed counters' events, such as\n"
        "    inst_retired.any and cpu_clk_unhalted.thread, counted as the\n"
        "    architectural event each fixed counter counts, SDM Vol. 3B\n"
        "    Table 18-2, and their AnyThread variants, _any, <not\n"
        "    supported>; then libpfm4's table for the profile in perf's\n"
        "    spelling, br_inst_retired.near_call, each with libpfm4's\n"
        "    description; libpfm4's spelling, BR_INST_RETIRED:NEAR_CALL, is\n"
        "    taken too), then perf's raw syntax and modifiers.\n"
        "\n"
        "    Each name is marked as stat counts it: exact (the engine\n"
        "    produces it: instructions, branches by type, loads and stores\n"
        "    retired), modelled (an estimate of the modelled\n"
        "    micro-architecture, the profile's part by default; \"modelled,\n"
        "    with --model\" on a profile without one) or <not supported> (a\n"
        "    name stat takes and prints <not supported>, never a made-up\n"
        "    0). The names and marks come from the resolver stat uses, so\n"
        "    every name listed is one stat takes.\n"
        "\n"
        "    The modifiers, after a name as :LETTERS: u, k count user or\n"
        "    kernel code (qemu-user runs user code only, so k alone counts\n"
        "    0); h, the hypervisor, counts as u here, where none runs; G\n"
        "    and H count in guest or host mode only: all code here is host\n"
        "    code, so H changes nothing and G alone counts nothing; p, pp,\n"
        "    ppp ask for a precise level and P for the highest the profile\n"
        "    has: record then samples with PEBS, as with --precise, and\n"
        "    stat counts as without; p is refused on a profile without PEBS\n"
        "    (SDM Vol. 3B 18.4.4), where P is level 0. They combine, as in\n"
        "    :upp.\n"
        "\n"
        "    An argument selects, as perf list's does: hw (or hardware),\n"
        "    cache, sw (or software), pmu (the Intel events) or raw (the\n"
        "    syntax) one group, metric (or metricgroup) the metrics stat -M\n"
        "    takes; any other word the names containing it, or\n"
        "    matching it as a glob when it has *, ? or [ (br_inst_*),\n"
        "    ignoring case. A NetBurst profile has no names: stat does not\n"
        "    count on it.\n",
    .options = NULL,
    .exit_status = "    0   The list was printed.\n"
                   "    2   Bad usage: an unknown or key=value PROFILE, a "
                   "NetBurst\n"
                   "        profile, or an output error.\n",
    .examples = "    softpmu list\n"
                "        Every name stat takes on skylake.\n"
                "\n"
                "    softpmu list cache\n"
                "        perf's cache events: L1-dcache-loads exact, "
                "L1-dcache-load-misses\n"
                "        modelled, the TLB and LLC ones <not supported>.\n"
                "\n"
                "    softpmu list --cpu icelake br_inst_retired\n"
                "        Ice Lake's branch events, each with its mark.\n",
    .flags = 0,
    .min_args = 0,
    .max_args = 1,
    .run = list_run,
};
