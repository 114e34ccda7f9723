/* SPDX-License-Identifier: MIT */
/* The plugin's argument string (args.h): one table of keys, read by the
 * builder and by the parser alike. */
#include "args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a key's value is, and so how it is written and read. */
enum kind {
  TEXT,   /* a string, not empty */
  PATH,   /* a file's path, not empty */
  NAME,   /* a string cut to its field (comm) */
  DEC,    /* a decimal number from 1 up */
  PERIOD, /* a decimal number from 1 to 2^63 - 1 */
  HEX,    /* a nonzero hexadecimal number */
  EVENT,  /* a hexadecimal number, appended to event[] */
  FLAG,   /* 0 or 1 */
  COUNT,  /* inline or callback */
  SEED,   /* a decimal number from 0 up, given or not */
};

struct key {
  const char *name;
  enum kind kind;
  size_t off, size; /* the field in struct spmu_plugin_args */
  bool always;      /* written even at its default */
};

#define FIELD(f)                                                               \
  offsetof(struct spmu_plugin_args, f),                                        \
      sizeof(((struct spmu_plugin_args *)0)->f)

/* In the order the builder writes them (args.h). */
static const struct key keys[] = {
    {"profile", TEXT, FIELD(profile), true},
    {"out", PATH, FIELD(out), false},
    {"record", PATH, FIELD(record), false},
    {"period", PERIOD, FIELD(period), false},
    {"event", EVENT, FIELD(event), false},
    {"multiplex", DEC, FIELD(multiplex), false},
    {"grouped", HEX, FIELD(grouped), false},
    {"interval", DEC, FIELD(interval), false},
    {"read", HEX, FIELD(read), false},
    {"callgraph", FLAG, FIELD(callgraph), false},
    {"precise", FLAG, FIELD(precise), false},
    {"regs", FLAG, FIELD(regs), false},
    {"comm", NAME, FIELD(comm), false},
    {"branch", HEX, FIELD(branch), false},
    {"model", TEXT, FIELD(model), false},
    {"count", COUNT, FIELD(count_callback), false},
    {"exec", DEC, FIELD(exec_time), false},
    {"vdso", FLAG, FIELD(vdso), false},
    {"seed", SEED, FIELD(seed), false},
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

void spmu_plugin_args_init(struct spmu_plugin_args *a)
{
  memset(a, 0, sizeof(*a));
  snprintf(a->profile, sizeof(a->profile), "skylake");
  snprintf(a->comm, sizeof(a->comm), "prog");
}

/* ---- building ------------------------------------------------------------ */

/* An output that counts what it would write beyond its room, as snprintf
 * does. */
struct out {
  char *buf;
  size_t len, n;
};

static void put_char(struct out *o, char c)
{
  if (o->n + 1 < o->len)
    o->buf[o->n] = c;
  o->n++;
}

static void put_text(struct out *o, const char *s, bool escape)
{
  for (; *s; s++) {
    if (escape && *s == ',')
      put_char(o, ','); /* QEMU's option syntax: ",," is a comma */
    put_char(o, *s);
  }
}

static void put_u64(struct out *o, uint64_t v, bool hex)
{
  char num[24];

  if (hex)
    snprintf(num, sizeof(num), "%" PRIx64, v);
  else
    snprintf(num, sizeof(num), "%" PRIu64, v);
  put_text(o, num, false);
}

static void put_key(struct out *o, const char *name)
{
  if (o->n)
    put_char(o, ',');
  put_text(o, name, false);
  put_char(o, '=');
}

static const void *field_of(const struct spmu_plugin_args *a,
                            const struct key *k)
{
  return (const char *)a + k->off;
}

/* Is key k of a at its value in d? */
static bool same(const struct spmu_plugin_args *a,
                 const struct spmu_plugin_args *d, const struct key *k)
{
  const void *f = field_of(a, k), *g = field_of(d, k);

  switch (k->kind) {
  case TEXT:
  case PATH:
  case NAME:
    return strcmp(f, g) == 0;
  case FLAG:
  case COUNT:
    return *(const bool *)f == *(const bool *)g;
  case SEED:
    return !((const struct spmu_plugin_seed *)f)->given &&
           !((const struct spmu_plugin_seed *)g)->given;
  default:
    return *(const uint64_t *)f == *(const uint64_t *)g;
  }
}

/* Key k of a, if it differs from d (the defaults) or is always written. */
static void build_key(struct out *o, const struct spmu_plugin_args *a,
                      const struct spmu_plugin_args *d, const struct key *k)
{
  const void *f = field_of(a, k);
  unsigned i;

  if (k->kind == EVENT) {
    for (i = 0; i < a->nevents; i++) {
      put_key(o, k->name);
      put_u64(o, a->event[i], true);
    }
    return;
  }
  if (!k->always && same(a, d, k))
    return;
  put_key(o, k->name);
  switch (k->kind) {
  case TEXT:
  case PATH:
  case NAME:
    put_text(o, f, true);
    break;
  case DEC:
  case PERIOD:
  case HEX:
    put_u64(o, *(const uint64_t *)f, k->kind == HEX);
    break;
  case FLAG:
    put_char(o, *(const bool *)f ? '1' : '0');
    break;
  case COUNT:
    put_text(o, *(const bool *)f ? "callback" : "inline", false);
    break;
  case SEED:
    put_u64(o, ((const struct spmu_plugin_seed *)f)->value, false);
    break;
  case EVENT:
    break;
  }
}

size_t spmu_plugin_args_build(const struct spmu_plugin_args *a, char *buf,
                              size_t len)
{
  struct spmu_plugin_args d;
  struct out o = {.buf = buf, .len = len};
  size_t i;

  spmu_plugin_args_init(&d);
  for (i = 0; i < NKEYS; i++)
    build_key(&o, a, &d, &keys[i]);
  if (len)
    buf[o.n < len ? o.n : len - 1] = '\0';
  return o.n;
}

char *spmu_plugin_args_option(const char *plugin,
                              const struct spmu_plugin_args *a)
{
  size_t head = strlen(plugin) + 1,
         n = head + spmu_plugin_args_build(a, NULL, 0);
  char *s = malloc(n + 1);

  if (!s)
    return NULL;
  snprintf(s, n + 1, "%s,", plugin);
  spmu_plugin_args_build(a, s + head, n + 1 - head);
  return s;
}

/* ---- parsing ------------------------------------------------------------- */

/* s as a number in base: false unless all of s is one. */
static bool parse_u64(const char *s, int base, uint64_t *v)
{
  char *end;

  errno = 0;
  *v = strtoull(s, &end, base);
  return !errno && end != s && !*end && *s != '-';
}

static int say(char *why, size_t len, const char *key, const char *val,
               const char *what)
{
  snprintf(why, len, "%s=%s: %s", key, val, what);
  return -1;
}

/* A string value, the field's bytes after it zero (the struct compares
 * equal to one built afresh); a name is cut to its field. */
static int parse_text(const struct key *k, const char *val, char *dst,
                      char *why, size_t len)
{
  size_t n = strlen(val);

  if (k->kind != NAME && (n == 0 || n >= k->size))
    return say(why, len, k->name, val,
               k->kind == PATH ? "empty or too long a path"
                               : "empty or too long");
  if (n >= k->size)
    n = k->size - 1;
  memset(dst, 0, k->size);
  memcpy(dst, val, n);
  return 0;
}

static int parse_event(struct spmu_plugin_args *a, const char *val, char *why,
                       size_t len)
{
  uint64_t sel;

  if (!parse_u64(val, 16, &sel))
    return say(why, len, "event", val,
               "not a hexadecimal IA32_PERFEVTSELx value");
  if (a->nevents == SPMU_PLUGIN_ARGS_MAX_EVENTS)
    return say(why, len, "event", val, "at most 32 events");
  a->event[a->nevents++] = sel;
  return 0;
}

static int parse_number(const struct key *k, const char *val, uint64_t *dst,
                        char *why, size_t len)
{
  uint64_t v;
  bool ok = parse_u64(val, k->kind == HEX ? 16 : 10, &v) && v != 0;

  if (k->kind == PERIOD && v > INT64_MAX)
    ok = false;
  if (!ok)
    return say(why, len, k->name, val,
               k->kind == HEX      ? "not a nonzero hexadecimal "
                                     "branch_sample_type"
               : k->kind == PERIOD ? "not a number of events from 1 up"
                                   : "not a number from 1 up");
  *dst = v;
  return 0;
}

/* seed=N: any 64-bit number, 0 included, in decimal. */
static int parse_seed(const char *val, struct spmu_plugin_seed *dst, char *why,
                      size_t len)
{
  if (val[0] < '0' || val[0] > '9' || !parse_u64(val, 10, &dst->value))
    return say(why, len, "seed", val,
               "not a decimal number from 0 to 2^64 - 1");
  dst->given = true;
  return 0;
}

static int parse_value(struct spmu_plugin_args *a, const struct key *k,
                       const char *val, char *why, size_t len)
{
  void *f = (char *)a + k->off;

  switch (k->kind) {
  case TEXT:
  case PATH:
  case NAME:
    return parse_text(k, val, f, why, len);
  case DEC:
  case PERIOD:
  case HEX:
    return parse_number(k, val, f, why, len);
  case EVENT:
    return parse_event(a, val, why, len);
  case FLAG:
    if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
      return say(why, len, k->name, val, "0 or 1");
    *(bool *)f = val[0] == '1';
    return 0;
  case COUNT:
    *(bool *)f = strcmp(val, "callback") == 0;
    return 0;
  case SEED:
    return parse_seed(val, f, why, len);
  }
  return -1;
}

/* The key arg names, or NULL; count takes inline or callback only. */
static const struct key *key_of(const char *arg, const char **val)
{
  const char *eq = strchr(arg, '=');
  size_t klen = eq ? (size_t)(eq - arg) : strlen(arg), i;

  *val = eq ? eq + 1 : "";
  for (i = 0; i < NKEYS; i++)
    if (strlen(keys[i].name) == klen && strncmp(arg, keys[i].name, klen) == 0)
      break;
  if (i == NKEYS || (keys[i].kind == COUNT && strcmp(*val, "inline") != 0 &&
                     strcmp(*val, "callback") != 0))
    return NULL;
  return &keys[i];
}

/* The rules between keys. */
static int check(const struct spmu_plugin_args *a, char *why, size_t len)
{
  const char *msg = NULL;

  if ((!a->out[0] && !a->record[0]) || a->nevents == 0)
    msg = "out=PATH or record=PATH, and at least one event=HEX, are required";
  else if (a->record[0] && !a->period) {
    snprintf(why, len, "record=%s: period=N is required", a->record);
    return -1;
  } else if (!a->record[0] && (a->period || a->callgraph || a->precise))
    msg = "period, callgraph and precise go with record=PATH";
  else if (a->regs && !a->precise)
    msg = "regs=1 goes with precise=1";
  else if (a->branch && (!a->record[0] || a->precise))
    msg = "branch= goes with record=PATH, without precise=1";
  else if (a->multiplex && a->record[0])
    msg = "multiplex=N counts; it does not go with record=PATH";
  else if (a->interval && a->record[0])
    msg = "interval=N counts; it does not go with record=PATH";
  else if (a->grouped && !a->multiplex)
    msg = "grouped=HEX goes with multiplex=N";
  else if (a->read && (!a->record[0] || a->precise || (a->read & 1)))
    msg = "read=HEX goes with record=PATH, without precise=1, and event 0 "
          "leads its group";
  if (msg)
    snprintf(why, len, "%s", msg);
  return msg ? -1 : 0;
}

int spmu_plugin_args_parse(struct spmu_plugin_args *a, int argc,
                           char *const argv[], char *why, size_t len)
{
  int i;

  spmu_plugin_args_init(a);
  for (i = 0; i < argc; i++) {
    const char *val;
    const struct key *k = key_of(argv[i], &val);

    if (!k) {
      snprintf(why, len,
               "unknown argument '%s' (profile=NAME, out=PATH, event=HEX, "
               "record=PATH, period=N, callgraph=0|1, precise=0|1, "
               "regs=0|1, comm=NAME, branch=HEX, multiplex=N, grouped=HEX, "
               "interval=N, read=HEX, model=SPEC, count=inline|callback)",
               argv[i]);
      return -1;
    }
    if (parse_value(a, k, val, why, len) != 0)
      return -1;
  }
  return check(a, why, len);
}
