/* SPDX-License-Identifier: MIT */
/* perf.data: writing and reading (perf_data.h). */
#include "perf_data.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writer ---------------------------------------------------------- */

/* The header features (perf.data-file-format.txt, "Feature sections"). */
#define PERF_DATA_FEAT_BUILD_ID 2
#define PERF_DATA_FEAT_HOSTNAME 3
#define PERF_DATA_FEAT_OSRELEASE 4
#define PERF_DATA_FEAT_VERSION 5
#define PERF_DATA_FEAT_ARCH 6
#define PERF_DATA_FEAT_NRCPUS 7
#define PERF_DATA_FEAT_CPUDESC 8
#define PERF_DATA_FEAT_CPUID 9
#define PERF_DATA_FEAT_TOTAL_MEM 10
#define PERF_DATA_FEAT_CMDLINE 11
#define PERF_DATA_FEAT_EVENT_DESC 12   /* HEADER_EVENT_DESC */
#define PERF_DATA_FEAT_BRANCH_STACK 15 /* HEADER_BRANCH_STACK */
#define PERF_DATA_FEAT_GROUP_DESC 17   /* HEADER_GROUP_DESC */
#define PERF_DATA_NAME_ALIGN 64        /* perf pads header strings so */
#define PERF_DATA_BUILD_ID_MAX 20

/* A section of the file: the header's and the features' table. */
struct perf_data_section {
  uint64_t offset, size;
};

/* A file's build id, for HEADER_BUILD_ID. */
struct perf_data_bid {
  char *path;
  unsigned char id[PERF_DATA_BUILD_ID_MAX];
  uint8_t len;
};

struct perf_data_writer {
  FILE *f;
  struct perf_data_desc desc;
  uint64_t sample_type;
  uint64_t data_off;
  bool failed;
  const struct perf_data_env *env;
  struct perf_data_bid *bids;
  size_t nbids, capbids;
  uint64_t read[PERF_DATA_MAX_EVENTS]; /* perf_data_set_read's */
  unsigned nread;
  uint64_t regs[PERF_DATA_NREGS]; /* perf_data_set_regs's */
  bool have_regs;
};

/* Append n bytes at p (a failure is kept in w->failed). */
static void perf_data_put(struct perf_data_writer *w, const void *p, size_t n);
/* The attr of event i, as the attrs section has it. */
static struct perf_data_attr perf_data_attr_of(const struct perf_data_desc *d,
                                               unsigned i);

/* The feature bitmap's first word: the features the file has. */
static uint64_t perf_header_features(const struct perf_data_writer *w);
/* Write the features feat names, at the end of the file. */
static void perf_header_write(struct perf_data_writer *w, uint64_t feat);
/* Free what perf_data_build_id kept. */
static void perf_header_free(struct perf_data_writer *w);

_Static_assert(sizeof(struct perf_data_attr) == PERF_DATA_ATTR_SIZE,
               "perf_event_attr is PERF_ATTR_SIZE_VER7 bytes");

/* The file header (perf.data-file-format.txt, "perf_header"). */
struct perf_data_header {
  char magic[8]; /* "PERFILE2" */
  uint64_t size; /* of this header */
  uint64_t attr_size;
  struct perf_data_section attrs, data, event_types;
  uint64_t features[4]; /* HEADER_FEAT_BITS = 256 */
};
/* One entry of the attrs section. */
struct perf_data_file_attr {
  struct perf_data_attr attr;
  struct perf_data_section ids;
};

#define PERF_DATA_MAGIC "PERFILE2"
#define PERF_DATA_RECORD_USER_TYPE_START 64 /* perf's own records from */
#define PERF_DATA_RECORD_FINISHED_ROUND 68
#define PERF_DATA_MAX_CHAIN 4096 /* a record's size is 16 bits */
#define PERF_DATA_MAX_BRANCHES 64

uint64_t perf_data_event_sample_type(const struct perf_data_desc *desc,
                                     unsigned ev)
{
  uint64_t t = perf_data_sample_type(desc);

  if (ev < desc->nev && desc->ev[ev].sample_read)
    t |= PERF_SAMPLE_READ;
  return t;
}

uint64_t perf_data_sample_type(const struct perf_data_desc *desc)
{
  uint64_t t =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

  if (desc->callchain)
    t |= PERF_SAMPLE_CALLCHAIN;
  if (desc->branch_sample_type)
    t |= PERF_SAMPLE_BRANCH_STACK;
  if (desc->regs_intr)
    t |= PERF_SAMPLE_REGS_INTR;
  if (desc->nev > 1)
    t |= PERF_SAMPLE_IDENTIFIER;
  return t;
}

/* ---- writing ------------------------------------------------------------- */

/* perf's tools take a hardware event whose config has bit 2 set
 * (branches, branch-misses, bus-cycles) sampled at period 1 for a BTS event
 * (tools/perf/util/event.c, is_bts_event) and print no branch stack for
 * it (perf script -F brstack shows nothing): with branch stacks such an
 * event is written as its raw encoding, the same event to the kernel. */
static bool perf_data_looks_bts(const struct perf_data_desc *d,
                                const struct perf_data_event *e)
{
  return d->branch_sample_type && e->type == PERF_TYPE_HARDWARE &&
         (e->config & PERF_COUNT_HW_BRANCH_INSTRUCTIONS) && d->period == 1 &&
         !(d->freq && e->per_second);
}

/* Whether event i leads its group, or is in none. */
static bool perf_data_leads(const struct perf_data_desc *d, unsigned i)
{
  return d->ev[i].group == 0 || d->ev[i].group == i + 1;
}

static struct perf_data_attr perf_data_attr_of(const struct perf_data_desc *d,
                                               unsigned i)
{
  const struct perf_data_event *e = &d->ev[i];
  struct perf_data_attr a;

  memset(&a, 0, sizeof(a));
  a.type = e->type;
  a.size = PERF_DATA_ATTR_SIZE;
  a.config = e->config;
  if (perf_data_looks_bts(d, e)) {
    a.type = PERF_TYPE_RAW;
    a.config = e->raw_config;
  }
  a.sample_period = d->period;
  a.sample_type = perf_data_event_sample_type(d, i);
  /* Leader sampling: the members count, read at the leader's samples. */
  if (e->sample_read)
    a.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP;
  if (e->sample_read && !perf_data_leads(d, i))
    a.sample_period = 0;
  /* qemu-user runs user code only: nothing of the kernel or a hypervisor
   * is in the samples, which perf shows as the :u modifier. */
  a.flags = PERF_DATA_ATTR_EXCLUDE_KERNEL | PERF_DATA_ATTR_EXCLUDE_HV;
  if (e->exclude_user)
    a.flags |= PERF_DATA_ATTR_EXCLUDE_USER;
  if (e->precise)
    a.flags |= 3ULL << PERF_DATA_ATTR_PRECISE_SHIFT;
  if (d->freq && e->per_second && a.sample_period) {
    a.flags |= PERF_DATA_ATTR_FREQ;
    a.sample_period = d->freq; /* the union's sample_freq */
  }
  memcpy(a.rest + PERF_DATA_ATTR_BRANCH_OFF, &d->branch_sample_type, 8);
  memcpy(a.rest + PERF_DATA_ATTR_REGS_INTR_OFF, &d->regs_intr, 8);
  return a;
}

static void perf_data_put(struct perf_data_writer *w, const void *p, size_t n)
{
  if (!w->failed && fwrite(p, 1, n, w->f) != n)
    w->failed = true;
}

struct perf_data_writer *perf_data_open(const char *path,
                                        const struct perf_data_desc *desc,
                                        char *why, size_t whylen)
{
  struct perf_data_writer *w = calloc(1, sizeof(*w));
  struct perf_data_header h;
  uint64_t ids_off;
  unsigned i;

  if (!w) {
    snprintf(why, whylen, "out of memory");
    return NULL;
  }
  w->desc = *desc;
  w->sample_type = perf_data_sample_type(desc);
  w->f = fopen(path, "wb");
  if (!w->f) {
    snprintf(why, whylen, "%s: %s", path, strerror(errno));
    free(w);
    return NULL;
  }
  memset(&h, 0, sizeof(h));
  perf_data_put(w, &h, sizeof(h)); /* written again at the end */
  ids_off = sizeof(h) + desc->nev * sizeof(struct perf_data_file_attr);
  for (i = 0; i < desc->nev; i++) {
    struct perf_data_file_attr fa = {
        .attr = perf_data_attr_of(desc, i),
        .ids = {.offset = ids_off + 8 * i, .size = 8}};

    perf_data_put(w, &fa, sizeof(fa));
  }
  for (i = 0; i < desc->nev; i++) {
    uint64_t id = i + 1;

    perf_data_put(w, &id, sizeof(id));
  }
  w->data_off = ids_off + 8 * desc->nev;
  return w;
}

/* A record: header, fields, then str NUL-padded to a multiple of 8. */
static int perf_data_record(struct perf_data_writer *w, uint32_t type,
                            uint16_t misc, const void *fields, size_t n,
                            const char *str)
{
  static const char zeros[8];
  size_t slen = str ? strlen(str) + 1 : 0, pad = (8 - slen % 8) % 8;
  struct perf_event_header h = {.type = type, .misc = misc};

  if (sizeof(h) + n + slen + pad > UINT16_MAX)
    return -1;
  h.size = (uint16_t)(sizeof(h) + n + slen + pad);
  perf_data_put(w, &h, sizeof(h));
  perf_data_put(w, fields, n);
  if (str) {
    perf_data_put(w, str, slen);
    perf_data_put(w, zeros, pad);
  }
  return w->failed ? -1 : 0;
}

int perf_data_comm(struct perf_data_writer *w, uint32_t pid, uint32_t tid,
                   const char *comm)
{
  uint32_t f[2] = {pid, tid};

  return perf_data_record(w, PERF_RECORD_COMM, 0, f, sizeof(f), comm);
}

int perf_data_comm_exec(struct perf_data_writer *w, uint32_t pid, uint32_t tid,
                        const char *comm)
{
  uint32_t f[2] = {pid, tid};
  uint64_t none = 0;

  /* A round ends first: a reader that orders samples by time in rounds
   * (softpmu report) resolves those before the exec with the old
   * program's name and mappings. perf, with sample_id_all clear, reads
   * the file in order and ignores the round. */
  if (perf_data_record(w, PERF_DATA_RECORD_FINISHED_ROUND, 0, &none, 0, NULL) !=
      0)
    return -1;
  return perf_data_record(w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, f,
                          sizeof(f), comm);
}

int perf_data_mmap(struct perf_data_writer *w, uint32_t pid, uint32_t tid,
                   uint64_t start, uint64_t len, uint64_t pgoff,
                   const char *path)
{
  struct {
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
  } f = {pid, tid, start, len, pgoff};

  return perf_data_record(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, &f,
                          sizeof(f), path);
}

int perf_data_task(struct perf_data_writer *w, bool exit, uint32_t pid,
                   uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
  struct {
    uint32_t pid, ppid, tid, ptid;
    uint64_t time;
  } f = {pid, ppid, tid, ptid, time};

  return perf_data_record(w, exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0, &f,
                          sizeof(f), NULL);
}

/* BRANCH_STACK: nr, hw_idx with PERF_SAMPLE_BRANCH_HW_INDEX, the
 * entries (at most PERF_DATA_MAX_BRANCHES). */
static size_t perf_data_put_branches(const struct perf_data_writer *w,
                                     uint64_t *f,
                                     const struct perf_data_branches *br)
{
  uint64_t nr = br ? br->nr : 0, i;
  size_t n = 0;

  if (nr > PERF_DATA_MAX_BRANCHES)
    nr = PERF_DATA_MAX_BRANCHES;
  f[n++] = nr;
  if (w->desc.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
    f[n++] = br ? br->hw_idx : UINT64_MAX;
  for (i = 0; i < nr; i++) {
    f[n++] = br->e[i].from;
    f[n++] = br->e[i].to;
    f[n++] = br->e[i].flags;
  }
  return n;
}

void perf_data_set_read(struct perf_data_writer *w, const uint64_t *values,
                        unsigned n)
{
  w->nread = n < PERF_DATA_MAX_EVENTS ? n : PERF_DATA_MAX_EVENTS;
  memcpy(w->read, values, w->nread * sizeof(values[0]));
}

/* READ with PERF_FORMAT_ID | PERF_FORMAT_GROUP: nr, then each event of
 * ev's group, value and id (perf_data_set_read's values; 0 for any not
 * given). */
static size_t perf_data_put_read(struct perf_data_writer *w, uint64_t *f,
                                 unsigned ev)
{
  unsigned j, k = 0;
  size_t n = 1;

  for (j = 0; j < w->desc.nev; j++) {
    if (w->desc.ev[j].group != w->desc.ev[ev].group)
      continue;
    f[n++] = k < w->nread ? w->read[k] : 0;
    f[n++] = j + 1;
    k++;
  }
  f[0] = k;
  w->nread = 0;
  return n;
}

void perf_data_set_regs(struct perf_data_writer *w, const uint64_t *val)
{
  memcpy(w->regs, val, sizeof(w->regs));
  w->have_regs = true;
}

/* REGS_INTR: the ABI, then the registers of the mask, lowest bit first
 * (perf_data_set_regs's; none known: ABI none alone). */
static size_t perf_data_put_regs(struct perf_data_writer *w, uint64_t *f)
{
  uint64_t mask = w->desc.regs_intr;
  size_t n = 0;
  unsigned i;

  f[n++] = w->have_regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE;
  for (i = 0; w->have_regs && i < 64; i++)
    if (mask >> i & 1)
      f[n++] = i < PERF_DATA_NREGS ? w->regs[i] : 0;
  w->have_regs = false;
  return n;
}

/* The sample's fields in sample_type's order (<linux/perf_event.h>,
 * PERF_RECORD_SAMPLE): IDENTIFIER, IP, TID, TIME, PERIOD, READ,
 * CALLCHAIN, BRANCH_STACK, REGS_INTR. */
int perf_data_sample(struct perf_data_writer *w, unsigned ev, uint32_t pid,
                     uint32_t tid, uint64_t time, uint64_t ip, uint64_t period,
                     const uint64_t *chain, uint32_t nr,
                     const struct perf_data_branches *br)
{
  uint64_t f[11 + 2 * PERF_DATA_MAX_EVENTS + PERF_DATA_MAX_CHAIN +
             3 * PERF_DATA_MAX_BRANCHES + 1 + 64];
  size_t n = 0;
  uint32_t i;
  uint16_t misc = PERF_RECORD_MISC_USER;

  if (w->sample_type & PERF_SAMPLE_IDENTIFIER)
    f[n++] = ev + 1;
  f[n++] = ip;
  f[n++] = (uint64_t)tid << 32 | pid; /* u32 pid, then u32 tid */
  f[n++] = time;
  f[n++] = period;
  if (perf_data_event_sample_type(&w->desc, ev) & PERF_SAMPLE_READ)
    n += perf_data_put_read(w, f + n, ev);
  if (w->sample_type & PERF_SAMPLE_CALLCHAIN) {
    if (nr > PERF_DATA_MAX_CHAIN - 2)
      nr = PERF_DATA_MAX_CHAIN - 2; /* the outermost calls are cut */
    f[n++] = 2 + (uint64_t)nr;
    f[n++] = PERF_CONTEXT_USER;
    f[n++] = ip;
    for (i = 0; i < nr; i++)
      f[n++] = chain[i];
  }
  if (w->sample_type & PERF_SAMPLE_BRANCH_STACK)
    n += perf_data_put_branches(w, f + n, br);
  if (w->sample_type & PERF_SAMPLE_REGS_INTR)
    n += perf_data_put_regs(w, f + n);
  if (ev < w->desc.nev && w->desc.ev[ev].precise)
    misc |= PERF_RECORD_MISC_EXACT_IP;
  return perf_data_record(w, PERF_RECORD_SAMPLE, misc, f, n * 8, NULL);
}

int perf_data_round(struct perf_data_writer *w)
{
  uint64_t none = 0;

  return perf_data_record(w, PERF_DATA_RECORD_FINISHED_ROUND, 0, &none, 0,
                          NULL);
}

int perf_data_lost(struct perf_data_writer *w, uint64_t count)
{
  return perf_data_record(w, PERF_RECORD_LOST_SAMPLES, 0, &count, sizeof(count),
                          NULL);
}

int perf_data_close(struct perf_data_writer *w, char *why, size_t whylen)
{
  struct perf_data_header h;
  long end = ftell(w->f);
  int rc = 0;

  memset(&h, 0, sizeof(h));
  memcpy(h.magic, PERF_DATA_MAGIC, 8);
  h.size = sizeof(h);
  h.attr_size = sizeof(struct perf_data_file_attr);
  h.attrs.offset = sizeof(h);
  h.attrs.size = w->desc.nev * sizeof(struct perf_data_file_attr);
  h.data.offset = w->data_off;
  h.data.size = end > 0 ? (uint64_t)end - w->data_off : 0;
  h.features[0] = perf_header_features(w);
  perf_header_write(w, h.features[0]);
  if (fseek(w->f, 0, SEEK_SET) != 0)
    w->failed = true;
  perf_data_put(w, &h, sizeof(h));
  if (fclose(w->f) != 0 || w->failed) {
    snprintf(why, whylen, "cannot write the perf.data file: %s",
             strerror(errno ? errno : EIO));
    rc = -1;
  }
  perf_header_free(w);
  free(w);
  return rc;
}

/* ---- reading ------------------------------------------------------------- */

static bool perf_data_in(const struct perf_data_file *f, uint64_t off,
                         uint64_t n)
{
  return off <= f->len && n <= f->len - off;
}

static uint64_t perf_data_u64(const unsigned char *p)
{
  uint64_t v;

  memcpy(&v, p, 8);
  return v;
}

static uint32_t perf_data_u32(const unsigned char *p)
{
  uint32_t v;

  memcpy(&v, p, 4);
  return v;
}

/* The name perf gives an event without a HEADER_EVENT_DESC. */
static void perf_data_default_name(struct perf_data_file_event *e)
{
  static const char *const hw[] = {"cycles",           "instructions",
                                   "cache-references", "cache-misses",
                                   "branches",         "branch-misses"};

  if (e->attr.type == PERF_TYPE_HARDWARE && e->attr.config < 6)
    snprintf(e->name, sizeof(e->name), "%s", hw[e->attr.config]);
  else if (e->attr.type == PERF_TYPE_RAW)
    snprintf(e->name, sizeof(e->name), "r%" PRIx64, e->attr.config);
  else
    snprintf(e->name, sizeof(e->name), "event %u:0x%" PRIx64, e->attr.type,
             e->attr.config);
}

static int perf_data_read_file(const char *path, struct perf_data_file *f,
                               char *why, size_t whylen)
{
  FILE *in = fopen(path, "rb");
  long n;

  if (!in || fseek(in, 0, SEEK_END) != 0 || (n = ftell(in)) < 0 ||
      fseek(in, 0, SEEK_SET) != 0) {
    snprintf(why, whylen, "%s: %s", path, strerror(errno));
    if (in)
      fclose(in);
    return -1;
  }
  f->len = (size_t)n;
  f->buf = malloc(f->len ? f->len : 1);
  if (!f->buf || fread(f->buf, 1, f->len, in) != f->len) {
    snprintf(why, whylen, "%s: cannot read it", path);
    fclose(in);
    return -1;
  }
  fclose(in);
  return 0;
}

/* The attrs section: each event's attr (attr_size bytes, the last 16 the
 * section of its ids) and its first id. */
static int perf_data_read_attrs(struct perf_data_file *f,
                                const struct perf_data_header *h, char *why,
                                size_t whylen)
{
  uint64_t asz = h->attr_size, i;

  if (asz < 16 + 64 || h->attrs.size % asz != 0 ||
      !perf_data_in(f, h->attrs.offset, h->attrs.size) ||
      h->attrs.size / asz > PERF_DATA_MAX_EVENTS) {
    snprintf(why, whylen,
             "bad attrs section (%" PRIu64 " bytes of %" PRIu64 "-byte attrs)",
             h->attrs.size, asz);
    return -1;
  }
  f->nev = (unsigned)(h->attrs.size / asz);
  for (i = 0; i < f->nev; i++) {
    const unsigned char *p = f->buf + h->attrs.offset + i * asz;
    struct perf_data_file_event *e = &f->ev[i];
    uint64_t ids = perf_data_u64(p + asz - 16),
             nids = perf_data_u64(p + asz - 8);

    memcpy(&e->attr, p,
           asz - 16 < sizeof(e->attr) ? asz - 16 : sizeof(e->attr));
    if (nids >= 8 && perf_data_in(f, ids, 8))
      e->id = perf_data_u64(f->buf + ids);
    perf_data_default_name(e);
  }
  return 0;
}

/* HEADER_EVENT_DESC, when the file has it: the events' names. */
static void perf_data_read_names(struct perf_data_file *f,
                                 const struct perf_data_header *h)
{
  uint64_t table = h->data.offset + h->data.size, off, end;
  unsigned bit, idx = 0, i, nr, asz;

  if (!(h->features[0] & 1ULL << PERF_DATA_FEAT_EVENT_DESC))
    return;
  for (bit = 0; bit < PERF_DATA_FEAT_EVENT_DESC; bit++)
    idx += (h->features[0] >> bit) & 1;
  if (!perf_data_in(f, table + 16 * idx, 16))
    return;
  off = perf_data_u64(f->buf + table + 16 * idx);
  end = off + perf_data_u64(f->buf + table + 16 * idx + 8);
  if (!perf_data_in(f, off, 8) || end > f->len)
    return;
  nr = perf_data_u32(f->buf + off);
  asz = perf_data_u32(f->buf + off + 4);
  off += 8;
  for (i = 0; i < nr && i < f->nev; i++) {
    uint32_t nids, slen;

    if (off + asz + 8 > end)
      return;
    nids = perf_data_u32(f->buf + off + asz);
    slen = perf_data_u32(f->buf + off + asz + 4);
    off += asz + 8;
    if (off + slen > end || slen == 0)
      return;
    snprintf(f->ev[i].name, sizeof(f->ev[i].name), "%.*s", (int)slen,
             (const char *)f->buf + off);
    off += slen + 8ULL * nids;
  }
}

/* The sample fields this reader decodes; anything else (READ before the
 * call chain) it cannot step over. */
#define PERF_DATA_READ_BITS                                                    \
  (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |                 \
   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |                      \
   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

int perf_data_load(const char *path, struct perf_data_file *f, char *why,
                   size_t whylen)
{
  struct perf_data_header h;
  unsigned i;

  memset(f, 0, sizeof(*f));
  if (perf_data_read_file(path, f, why, whylen) != 0)
    return -1;
  if (f->len < sizeof(h) || memcmp(f->buf, PERF_DATA_MAGIC, 8) != 0) {
    snprintf(why, whylen, "%s: not a perf.data file (no PERFILE2 header)",
             path);
    return -1;
  }
  memcpy(&h, f->buf, sizeof(h));
  if (perf_data_read_attrs(f, &h, why, whylen) != 0)
    return -1;
  if (!perf_data_in(f, h.data.offset, h.data.size)) {
    snprintf(why, whylen,
             "%s: truncated (the data section ends past the "
             "end of the file)",
             path);
    return -1;
  }
  for (i = 0; i < f->nev; i++)
    if (f->ev[i].attr.sample_type & PERF_SAMPLE_RAW) {
      snprintf(why, whylen,
               "%s: samples with PERF_SAMPLE_RAW are not read here", path);
      return -1;
    }
  f->data_off = f->pos = h.data.offset;
  f->data_end = h.data.offset + h.data.size;
  perf_data_read_names(f, &h);
  return 0;
}

/* The event of a sample: by its id when there are several. */
static unsigned perf_data_event_of(const struct perf_data_file *f, uint64_t id)
{
  unsigned i;

  for (i = 0; i < f->nev; i++)
    if (f->ev[i].id == id)
      return i;
  return 0;
}

/* The bytes of a sample's READ field at p (n bytes left), stepped over:
 * one value or, with PERF_FORMAT_GROUP, nr of them, each with the ids
 * and times read_format asks for (<linux/perf_event.h>, read_format). */
static size_t perf_data_read_size(uint64_t rf, const unsigned char *p, size_t n)
{
  uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
  uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
                   !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
  uint64_t nr;

  if (!(rf & PERF_FORMAT_GROUP))
    return 8 * (per + times);
  if (n < 8 || (nr = perf_data_u64(p)) > n / 8 / per)
    return SIZE_MAX;
  return 8 * (1 + times + nr * per);
}

static int perf_data_sample_fields(const struct perf_data_file *f,
                                   const unsigned char *p, size_t n,
                                   struct perf_data_rec *r)
{
  uint64_t st = f->ev[0].attr.sample_type, id = 0;
  size_t o = 0, rd;
  unsigned ev = 0;

#define PD_TAKE(dst)                                                           \
  do {                                                                         \
    if (o + 8 > n)                                                             \
      return -1;                                                               \
    dst = perf_data_u64(p + o);                                                \
    o += 8;                                                                    \
  } while (0)
  uint64_t skip, pidtid = 0;

  /* The event's own sample_type, once the IDENTIFIER says which (only
   * PERF_SAMPLE_READ differs between a file's events here). */
  if (st & PERF_SAMPLE_IDENTIFIER) {
    PD_TAKE(id);
    ev = f->nev > 1 ? perf_data_event_of(f, id) : 0;
    st = f->ev[ev].attr.sample_type;
  }
  if (st & PERF_SAMPLE_IP)
    PD_TAKE(r->ip);
  if (st & PERF_SAMPLE_TID)
    PD_TAKE(pidtid);
  if (st & PERF_SAMPLE_TIME)
    PD_TAKE(r->time);
  if (st & PERF_SAMPLE_ADDR)
    PD_TAKE(skip);
  if (st & PERF_SAMPLE_ID)
    PD_TAKE(id);
  if (st & PERF_SAMPLE_STREAM_ID)
    PD_TAKE(skip);
  if (st & PERF_SAMPLE_CPU)
    PD_TAKE(skip);
  if (st & PERF_SAMPLE_PERIOD)
    PD_TAKE(r->period);
  else
    r->period = f->ev[0].attr.sample_period;
  if (st & PERF_SAMPLE_READ) {
    uint64_t rf = f->ev[ev].attr.read_format;

    rd = perf_data_read_size(rf, p + o, n - o);
    if (rd > n - o)
      return -1;
    if ((rf & PERF_FORMAT_GROUP) && (rf & PERF_FORMAT_ID)) {
      r->nread = perf_data_u64(p + o);
      r->read_stride = 8 * (2 + !!(rf & PERF_FORMAT_LOST));
      r->read = p + o + rd - r->nread * r->read_stride;
    }
    o += rd;
  }
  if (st & PERF_SAMPLE_CALLCHAIN) {
    PD_TAKE(r->nr);
    if (r->nr > (n - o) / 8)
      return -1;
    r->chain = p + o;
    o += 8 * r->nr;
  }
  r->hw_idx = UINT64_MAX;
  if (st & PERF_SAMPLE_RAW)
    return -1; /* refused at load */
  if (st & PERF_SAMPLE_BRANCH_STACK) {
    uint64_t bst;

    memcpy(&bst, f->ev[0].attr.rest + PERF_DATA_ATTR_BRANCH_OFF, 8);
    PD_TAKE(r->nbr);
    if (bst & PERF_SAMPLE_BRANCH_HW_INDEX)
      PD_TAKE(r->hw_idx);
    if (r->nbr > (n - o) / 24)
      return -1;
    r->br = p + o;
    o += 24 * r->nbr;
  }
  if ((st & PERF_SAMPLE_REGS_INTR) &&
      !(st &
        (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
         PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION))) {
    uint64_t mask;

    memcpy(&mask, f->ev[ev].attr.rest + PERF_DATA_ATTR_REGS_INTR_OFF, 8);
    PD_TAKE(r->regs_abi);
    r->nregs = r->regs_abi ? (uint64_t)__builtin_popcountll(mask) : 0;
    if (r->nregs > (n - o) / 8)
      return -1;
    r->regs = p + o;
  }
#undef PD_TAKE
  (void)skip;
  r->pid = (uint32_t)pidtid;
  r->tid = (uint32_t)(pidtid >> 32);
  r->ev = f->nev > 1 ? perf_data_event_of(f, id) : 0;
  return 0;
}

static int perf_data_fields(const struct perf_data_file *f,
                            const unsigned char *p, size_t n,
                            struct perf_data_rec *r)
{
  switch (r->type) {
  case PERF_RECORD_COMM:
    if (n < 9 || !memchr(p + 8, 0, n - 8))
      return -1;
    r->pid = perf_data_u32(p);
    r->tid = perf_data_u32(p + 4);
    r->str = (const char *)p + 8;
    return 0;
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2: {
    size_t name = r->type == PERF_RECORD_MMAP ? 32 : 64;

    if (n < name + 1 || !memchr(p + name, 0, n - name))
      return -1;
    r->pid = perf_data_u32(p);
    r->tid = perf_data_u32(p + 4);
    r->start = perf_data_u64(p + 8);
    r->len = perf_data_u64(p + 16);
    r->pgoff = perf_data_u64(p + 24);
    r->str = (const char *)p + name;
    return 0;
  }
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    if (n < 24)
      return -1;
    r->pid = perf_data_u32(p);
    r->ppid = perf_data_u32(p + 4);
    r->tid = perf_data_u32(p + 8);
    r->ptid = perf_data_u32(p + 12);
    r->time = perf_data_u64(p + 16);
    return 0;
  case PERF_RECORD_LOST:
    if (n < 16)
      return -1;
    r->lost = perf_data_u64(p + 8);
    return 0;
  case PERF_RECORD_LOST_SAMPLES:
    if (n < 8)
      return -1;
    r->lost = perf_data_u64(p);
    return 0;
  case PERF_RECORD_SAMPLE:
    return f->nev ? perf_data_sample_fields(f, p, n, r) : -1;
  default:
    return 0; /* a record this reader does not use */
  }
}

/* The record at pos into *r: its size, or 0 (reason in why). */
static uint16_t perf_data_decode(const struct perf_data_file *f, uint64_t pos,
                                 struct perf_data_rec *r, char *why,
                                 size_t whylen)
{
  struct perf_event_header h;

  memset(r, 0, sizeof(*r));
  if (f->data_end - pos < sizeof(h)) {
    snprintf(why, whylen, "a truncated record at offset %" PRIu64, pos);
    return 0;
  }
  memcpy(&h, f->buf + pos, sizeof(h));
  if (h.size < sizeof(h) || h.size > f->data_end - pos) {
    snprintf(why, whylen, "a record of bad size %u at offset %" PRIu64,
             (unsigned)h.size, pos);
    return 0;
  }
  r->type = h.type;
  r->misc = h.misc;
  if (perf_data_fields(f, f->buf + pos + sizeof(h), h.size - sizeof(h), r) !=
      0) {
    snprintf(why, whylen, "a malformed record (type %u) at offset %" PRIu64,
             h.type, pos);
    return 0;
  }
  return h.size;
}

int perf_data_next(struct perf_data_file *f, struct perf_data_rec *r, char *why,
                   size_t whylen)
{
  uint16_t n;

  if (f->order) {
    if (f->next >= f->norder)
      return 0;
    if (!perf_data_decode(f, f->order[f->next], r, why, whylen))
      return -1;
    f->next++;
    return 1;
  }
  if (f->pos >= f->data_end)
    return 0;
  if (!(n = perf_data_decode(f, f->pos, r, why, whylen)))
    return -1;
  f->pos += n;
  return 1;
}

void perf_data_read_at(const struct perf_data_file *f,
                       const struct perf_data_rec *r, uint64_t i, unsigned *ev,
                       uint64_t *value)
{
  const unsigned char *e = r->read + i * r->read_stride;

  *value = perf_data_u64(e);
  *ev = perf_data_event_of(f, perf_data_u64(e + 8));
}

/* ---- time order ---------------------------------------------------------- */

/* A record held for sorting: its time, its offset. */
struct perf_data_held {
  uint64_t time, off;
};

static int perf_data_held_cmp(const void *a, const void *b)
{
  const struct perf_data_held *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* The time of a record other than a sample: the sample_id fields after
 * its own (attr.sample_id_all; <linux/perf_event.h>, struct sample_id),
 * whose TIME is followed by ID, STREAM_ID, CPU and IDENTIFIER when the
 * sample_type has them. 1 with *t, 0 when it has none. */
static int perf_data_id_time(const struct perf_data_file *f,
                             const struct perf_data_rec *r, uint64_t pos,
                             uint16_t size, uint64_t *t)
{
  uint64_t st = f->ev[0].attr.sample_type, after = 0;

  if (!(f->ev[0].attr.flags & PERF_DATA_ATTR_SAMPLE_ID_ALL) ||
      r->type >= PERF_DATA_RECORD_USER_TYPE_START) /* perf's own */
    return 0;
  after += (st & PERF_SAMPLE_ID) ? 8 : 0;
  after += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
  after += (st & PERF_SAMPLE_CPU) ? 8 : 0;
  after += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
  if (size < sizeof(struct perf_event_header) + after + 8)
    return 0;
  *t = perf_data_u64(f->buf + pos + size - after - 8);
  return 1;
}

/* The time perf orders the record at pos by: 1 with *t, 0 for none. */
static int perf_data_time_of(const struct perf_data_file *f,
                             const struct perf_data_rec *r, uint64_t pos,
                             uint16_t size, uint64_t *t)
{
  if (!f->nev || !(f->ev[0].attr.sample_type & PERF_SAMPLE_TIME))
    return 0;
  if (r->type == PERF_RECORD_SAMPLE) {
    *t = r->time;
    return 1;
  }
  return perf_data_id_time(f, r, pos, size, t);
}

/* Append the held records to the order, sorted; none held after. */
static void perf_data_flush(struct perf_data_file *f,
                            struct perf_data_held *held, size_t *nheld)
{
  size_t i;

  qsort(held, *nheld, sizeof(*held), perf_data_held_cmp);
  for (i = 0; i < *nheld; i++)
    f->order[f->norder++] = held[i].off;
  *nheld = 0;
}

int perf_data_sort(struct perf_data_file *f, char *why, size_t whylen)
{
  /* At most one record per 8 bytes of data (a header is 8). */
  size_t cap = (size_t)((f->data_end - f->data_off) / 8) + 1, nheld = 0;
  struct perf_data_held *held = malloc(cap * sizeof(*held));
  struct perf_data_rec r;
  uint64_t pos = f->data_off, t;
  uint16_t n;

  free(f->order);
  f->norder = f->next = 0;
  f->order = malloc(cap * sizeof(*f->order));
  if (!held || !f->order) {
    free(held);
    snprintf(why, whylen, "out of memory");
    return -1;
  }
  for (; pos < f->data_end; pos += n) {
    if (!(n = perf_data_decode(f, pos, &r, why, whylen))) {
      free(held);
      return -1;
    }
    if (r.type == PERF_DATA_RECORD_FINISHED_ROUND)
      perf_data_flush(f, held, &nheld);
    else if (perf_data_time_of(f, &r, pos, n, &t))
      held[nheld++] = (struct perf_data_held){t, pos};
    else
      f->order[f->norder++] = pos;
  }
  perf_data_flush(f, held, &nheld);
  free(held);
  return 0;
}

uint64_t perf_data_reg_at(const struct perf_data_rec *r, uint64_t i)
{
  return perf_data_u64(r->regs + 8 * i);
}

uint64_t perf_data_chain(const struct perf_data_rec *r, uint64_t i)
{
  return perf_data_u64(r->chain + 8 * i);
}

struct perf_data_branch perf_data_branch_at(const struct perf_data_rec *r,
                                            uint64_t i)
{
  struct perf_data_branch b = {perf_data_u64(r->br + 24 * i),
                               perf_data_u64(r->br + 24 * i + 8),
                               perf_data_u64(r->br + 24 * i + 16)};
  return b;
}

void perf_data_free(struct perf_data_file *f)
{
  free(f->buf);
  free(f->order);
  f->buf = NULL;
  f->order = NULL;
}

/* ---- the header features, after the data ------------------------------- */

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
/* The members of the group event i leads (0: it leads none). */
static uint32_t perf_data_members(const struct perf_data_desc *d, unsigned i)
{
  uint32_t n = 0;
  unsigned j;

  if (d->ev[i].group != i + 1)
    return 0;
  for (j = 0; j < d->nev; j++)
    n += d->ev[j].group == i + 1;
  return n;
}

/* The groups HEADER_GROUP_DESC lists: those of two events or more, as
 * perf record writes it (a group of one is an event alone to perf). */
static uint32_t perf_data_ngroups(const struct perf_data_desc *d)
{
  uint32_t n = 0;
  unsigned i;

  for (i = 0; i < d->nev; i++)
    n += perf_data_members(d, i) > 1;
  return n;
}

/* HEADER_GROUP_DESC: nr, then per group its name (perf's for a group
 * given without one), its leader's index, its number of events. */
static void perf_data_group_desc(struct perf_data_writer *w)
{
  uint32_t nr = perf_data_ngroups(&w->desc), m[2];
  unsigned i;

  perf_data_put(w, &nr, sizeof(nr));
  for (i = 0; i < w->desc.nev; i++) {
    if ((m[1] = perf_data_members(&w->desc, i)) < 2)
      continue;
    m[0] = i;
    perf_data_put_string(w, "{anon_group}");
    perf_data_put(w, m, sizeof(m));
  }
}

static uint64_t perf_header_features(const struct perf_data_writer *w)
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
  if (perf_data_ngroups(&w->desc))
    f |= 1ULL << PERF_DATA_FEAT_GROUP_DESC;
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
  case PERF_DATA_FEAT_GROUP_DESC:
    perf_data_group_desc(w);
    break;
  default:
    break;
  }
}

/* The feature sections after the data: their table (one entry per
 * feature, in bit order), then each section in the same order; the
 * table is written again once their sizes are known. */
static void perf_header_write(struct perf_data_writer *w, uint64_t feat)
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

static void perf_header_free(struct perf_data_writer *w)
{
  size_t i;

  for (i = 0; i < w->nbids; i++)
    free(w->bids[i].path);
  free(w->bids);
}
