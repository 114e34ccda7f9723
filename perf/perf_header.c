/* SPDX-License-Identifier: MIT */
/* perf.data's header features (perf_header.h): the sections after the
 * data, in feature-bit order. */
#include "perf_header.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* A build_id_event's misc: its size byte holds the build id's length. */
#define PERF_DATA_MISC_BUILD_ID_SIZE (1u << 15)
#define PERF_DATA_HOST_PID (-1) /* the host machine's build ids */

/* HEADER_EVENT_DESC: nr, attr size, then per event its attr, its number
 * of ids, its name (a perf_header_string: u32 length, then the name
 * NUL-padded to that length) and its ids. */
static void perf_data_event_desc(struct perf_data_writer *w)
{
  uint32_t hdr[2] = {w->desc.nev, PERF_DATA_ATTR_SIZE};
  unsigned i;

  perf_data_put(w, hdr, sizeof(hdr));
  for (i = 0; i < w->desc.nev; i++) {
    struct perf_data_attr a = perf_data_attr_of(&w->desc, i);
    char name[PERF_DATA_NAME_MAX + PERF_DATA_NAME_ALIGN] = {0};
    size_t len = strlen(w->desc.ev[i].name) + 1;
    uint32_t nr_ids = 1, slen;
    uint64_t id = i + 1;

    len = (len + PERF_DATA_NAME_ALIGN - 1) / PERF_DATA_NAME_ALIGN *
          PERF_DATA_NAME_ALIGN;
    slen = (uint32_t)len;
    memcpy(name, w->desc.ev[i].name, strlen(w->desc.ev[i].name));
    perf_data_put(w, &a, sizeof(a));
    perf_data_put(w, &nr_ids, sizeof(nr_ids));
    perf_data_put(w, &slen, sizeof(slen));
    perf_data_put(w, name, len);
    perf_data_put(w, &id, sizeof(id));
  }
}

void perf_data_set_env(struct perf_data_writer *w,
                       const struct perf_data_env *env)
{
  w->env = env;
}

int perf_data_build_id(struct perf_data_writer *w, const char *path,
                       const unsigned char *id, size_t len)
{
  struct perf_data_bid *b;
  size_t n = strlen(path) + 1;

  if (len > PERF_DATA_BUILD_ID_MAX)
    return -1;
  if (w->nbids == w->capbids) {
    size_t cap = w->capbids ? 2 * w->capbids : 8;
    struct perf_data_bid *q = realloc(w->bids, cap * sizeof(*q));

    if (!q)
      return -1;
    w->bids = q;
    w->capbids = cap;
  }
  b = &w->bids[w->nbids];
  memset(b, 0, sizeof(*b));
  if (!(b->path = malloc(n)))
    return -1;
  memcpy(b->path, path, n);
  memcpy(b->id, id, len);
  b->len = (uint8_t)len;
  w->nbids++;
  return 0;
}

/* A perf_header_string: u32 length (the string's and its NUL, rounded up
 * to a multiple of 64), then the string NUL-padded to it. */
static void perf_data_put_string(struct perf_data_writer *w, const char *s)
{
  static const char zeros[PERF_DATA_NAME_ALIGN];
  size_t n = strlen(s) + 1;
  uint32_t len = (uint32_t)((n + PERF_DATA_NAME_ALIGN - 1) /
                            PERF_DATA_NAME_ALIGN * PERF_DATA_NAME_ALIGN);

  perf_data_put(w, &len, sizeof(len));
  perf_data_put(w, s, n);
  perf_data_put(w, zeros, len - n);
}

/* HEADER_BUILD_ID: per file a build_id_event (perf_event_header of type
 * 0, misc PERF_RECORD_MISC_USER with the size flag; pid -1, the host;
 * the id in 20 bytes, its length, 3 reserved bytes), then the path
 * NUL-padded to a multiple of 64: 36 bytes and the path. */
static void perf_data_build_ids(struct perf_data_writer *w)
{
  static const char zeros[PERF_DATA_NAME_ALIGN];
  size_t i;

  for (i = 0; i < w->nbids; i++) {
    const struct perf_data_bid *b = &w->bids[i];
    size_t n = strlen(b->path) + 1, len = (n + PERF_DATA_NAME_ALIGN - 1) /
                                          PERF_DATA_NAME_ALIGN *
                                          PERF_DATA_NAME_ALIGN;
    struct perf_event_header h = {.type = 0,
                                  .misc = PERF_RECORD_MISC_USER |
                                          PERF_DATA_MISC_BUILD_ID_SIZE,
                                  .size = (uint16_t)(36 + len)};
    int32_t pid = PERF_DATA_HOST_PID;
    unsigned char id[24] = {0};

    memcpy(id, b->id, b->len);
    id[20] = b->len;
    perf_data_put(w, &h, sizeof(h));
    perf_data_put(w, &pid, sizeof(pid));
    perf_data_put(w, id, sizeof(id));
    perf_data_put(w, b->path, n);
    perf_data_put(w, zeros, len - n);
  }
}

/* HEADER_CMDLINE: u32 nr, then nr perf_header_strings. */
static void perf_data_cmdline(struct perf_data_writer *w)
{
  uint32_t nr = w->env->ncmdline;
  unsigned i;

  perf_data_put(w, &nr, sizeof(nr));
  for (i = 0; i < nr; i++)
    perf_data_put_string(w, w->env->cmdline[i]);
}

/* The string env gives feature bit, NULL if none. */
static const char *perf_data_env_string(const struct perf_data_env *e,
                                        unsigned bit)
{
  if (!e)
    return NULL;
  switch (bit) {
  case PERF_DATA_FEAT_HOSTNAME:
    return e->hostname;
  case PERF_DATA_FEAT_OSRELEASE:
    return e->osrelease;
  case PERF_DATA_FEAT_VERSION:
    return e->version;
  case PERF_DATA_FEAT_ARCH:
    return e->arch;
  case PERF_DATA_FEAT_CPUDESC:
    return e->cpudesc;
  case PERF_DATA_FEAT_CPUID:
    return e->cpuid;
  default:
    return NULL;
  }
}

/* The feature bitmap's first word: the features this file has. */
uint64_t perf_header_features(const struct perf_data_writer *w)
{
  const struct perf_data_env *e = w->env;
  uint64_t f = 1ULL << PERF_DATA_FEAT_EVENT_DESC;
  unsigned bit;

  if (w->nbids)
    f |= 1ULL << PERF_DATA_FEAT_BUILD_ID;
  for (bit = PERF_DATA_FEAT_HOSTNAME; bit <= PERF_DATA_FEAT_CPUID; bit++)
    if (perf_data_env_string(e, bit))
      f |= 1ULL << bit;
  if (e && e->nr_cpus_online)
    f |= 1ULL << PERF_DATA_FEAT_NRCPUS;
  if (e && e->total_mem)
    f |= 1ULL << PERF_DATA_FEAT_TOTAL_MEM;
  if (e && e->ncmdline)
    f |= 1ULL << PERF_DATA_FEAT_CMDLINE;
  if (w->desc.branch_feature)
    f |= 1ULL << PERF_DATA_FEAT_BRANCH_STACK;
  return f;
}

/* The section of feature bit (BRANCH_STACK's is empty). */
static void perf_data_feature(struct perf_data_writer *w, unsigned bit)
{
  const char *s = perf_data_env_string(w->env, bit);
  uint32_t nrcpus[2];

  if (s) {
    perf_data_put_string(w, s);
    return;
  }
  switch (bit) {
  case PERF_DATA_FEAT_BUILD_ID:
    perf_data_build_ids(w);
    break;
  case PERF_DATA_FEAT_NRCPUS:
    nrcpus[0] = w->env->nr_cpus_avail;
    nrcpus[1] = w->env->nr_cpus_online;
    perf_data_put(w, nrcpus, sizeof(nrcpus));
    break;
  case PERF_DATA_FEAT_TOTAL_MEM:
    perf_data_put(w, &w->env->total_mem, sizeof(w->env->total_mem));
    break;
  case PERF_DATA_FEAT_CMDLINE:
    perf_data_cmdline(w);
    break;
  case PERF_DATA_FEAT_EVENT_DESC:
    perf_data_event_desc(w);
    break;
  default:
    break;
  }
}

/* The feature sections after the data: their table (one entry per
 * feature, in bit order), then each section in the same order; the
 * table is written again once their sizes are known. */
void perf_header_write(struct perf_data_writer *w, uint64_t feat)
{
  struct perf_data_section sec[64];
  long table = ftell(w->f), at = table;
  unsigned bit, n = 0;

  memset(sec, 0, sizeof(sec));
  for (bit = 0; bit < 64; bit++)
    n += (feat >> bit) & 1;
  perf_data_put(w, sec, n * sizeof(sec[0]));
  for (bit = 0, n = 0; bit < 64; bit++) {
    if (!((feat >> bit) & 1))
      continue;
    sec[n].offset = (uint64_t)ftell(w->f);
    perf_data_feature(w, bit);
    at = ftell(w->f);
    sec[n].size = (uint64_t)at - sec[n].offset;
    n++;
  }
  if (table < 0 || at < 0 || fseek(w->f, table, SEEK_SET) != 0)
    w->failed = true;
  perf_data_put(w, sec, n * sizeof(sec[0]));
}

void perf_header_free(struct perf_data_writer *w)
{
  size_t i;

  for (i = 0; i < w->nbids; i++)
    free(w->bids[i].path);
  free(w->bids);
}
