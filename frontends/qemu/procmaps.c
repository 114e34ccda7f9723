/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's /proc/self/maps as QEMU 7.2 writes it (procmaps.h).
 *
 * QEMU 7.2's open_self_maps (linux-user/syscall.c) reads the host's
 * /proc/self/maps, splits each line at its first five spaces (the sixth
 * field, the path, with its leading blanks removed; none when the line
 * has no sixth field) and, for each host mapping [min, max) whose first
 * guest page (min less the guest base, modulo 2^64) has flags f, prints
 * it when every page of it is a guest page, readable if f is, writable
 * (as mapped) if f is writable now (page_check_range): the guest range,
 * f's r, w (as mapped) and x, the host's p or s, offset, device and
 * inode, then, padded to column 73, "[stack]" for the mapping that starts
 * at the stack's lowest page, else the host's path. Last comes the
 * vsyscall page's line. For x86-64 every host address is in the guest's
 * range (h2g_valid: no -R, so GUEST_ADDR_MAX is ~0). Here the guest's
 * pages and their flags are those QEMU 10 just printed (its table of the
 * guest's pages, the one 7.2 checks), and the host's mappings those of
 * this process, where the plugin keeps 7.2's placement; a host mapping
 * that is partly the plugin's reservation (layout.c; one 7.2 never
 * makes, which the kernel can merge with a guest's PROT_NONE mapping of
 * the same flags) is taken as the guest's part alone, as 7.2's host
 * would have it. A page's writability now: the host's w (QEMU makes a
 * writable page holding translated code read-only on the host,
 * page_protect, and clears its PAGE_WRITE alone). */
#define _GNU_SOURCE /* O_CLOEXEC */
#include "procmaps.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"

#define PAGE UINT64_C(4096)
/* QEMU's x86-64 vsyscall page (linux-user/x86_64/target_syscall.h). */
#define VSYSCALL_PAGE UINT64_C(0xffffffffff600000)
/* Linux x86-64 system call numbers. */
#define NR_OPEN 2
#define NR_OPENAT 257

enum { PAGE_R = 1, PAGE_W = 2, PAGE_X = 4 };

/* An open of the faked file in flight, by vCPU index modulo CALLS. */
#define CALLS 64
struct call {
  unsigned vcpu;
  bool pending;
  uint64_t base; /* QEMU's guest base */
};

struct spmu_qemu_procmaps {
  pthread_mutex_t lock;
  bool said;
  struct call calls[CALLS];
};

/* ---- text -------------------------------------------------------------- */

struct text {
  char *s;
  size_t n, cap;
  bool oom;
};

/* printf onto t; the characters it printed, as dprintf returns them. */
__attribute__((format(printf, 2, 3))) static int put(struct text *t,
                                                     const char *fmt, ...)
{
  va_list ap;
  int k;

  va_start(ap, fmt);
  k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (k < 0 || t->oom)
    return k;
  if (t->n + (size_t)k + 1 > t->cap) {
    size_t cap = 2 * (t->n + (size_t)k + 1);
    char *s = realloc(t->s, cap);

    if (!s) {
      t->oom = true;
      return k;
    }
    t->s = s;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  t->n += (size_t)k;
  return k;
}

/* ---- the guest's pages, from QEMU 10's text ---------------------------- */

struct range {
  uint64_t start, end;
  unsigned flags;
};

struct guest {
  struct range *r;
  size_t n, cap;
  uint64_t stack; /* the stack's lowest page (info->stack_limit) */
  bool have_stack;
  bool oom;
};

static void add_range(struct guest *g, uint64_t start, uint64_t end,
                      unsigned flags)
{
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 64;
    struct range *r = realloc(g->r, cap * sizeof(*r));

    if (!r) {
      g->oom = true;
      return;
    }
    g->r = r;
    g->cap = cap;
  }
  g->r[g->n++] = (struct range){start, end, flags};
}

/* One line of QEMU 10's (open_self_maps_4): "start-end rwxp offset dev
 * inode", padding, the name. */
static void read_guest_line(struct guest *g, const char *line)
{
  uint64_t start, end;
  char perms[5];
  int at = -1;
  const char *name;

  if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %*s %*s %*s %n", &start, &end,
             perms, &at) < 3 ||
      at < 0 || strlen(perms) != 4 || end <= start)
    return;
  name = line + at;
  if (strcmp(name, "[vdso]") == 0)
    return; /* withheld; 7.2 maps none */
  if (strcmp(name, "[stack]") == 0 && !g->have_stack) {
    g->stack = start;
    g->have_stack = true;
  }
  add_range(g, start, end,
            (perms[0] == 'r' ? PAGE_R : 0) | (perms[1] == 'w' ? PAGE_W : 0) |
                (perms[2] == 'x' ? PAGE_X : 0));
}

static void read_guest(struct guest *g, const char *text)
{
  char line[PATH_MAX + 256];

  while (*text) {
    size_t len = strcspn(text, "\n");

    if (len < sizeof(line)) {
      memcpy(line, text, len);
      line[len] = '\0';
      read_guest_line(g, line);
    }
    text += len + (text[len] == '\n');
  }
}

/* The guest range holding page at, or the first one after it; NULL when
 * none. QEMU prints them in address order. */
static const struct range *find_range(const struct guest *g, uint64_t at)
{
  size_t lo = 0, hi = g->n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (g->r[mid].end <= at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < g->n ? &g->r[lo] : NULL;
}

/* ---- the host's mappings ----------------------------------------------- */

/* One line of the host's /proc/self/maps as 7.2's read_self_maps takes
 * it (util/selfmap.c): split at its first five spaces. */
struct host_map {
  uint64_t start, end, offset, inode;
  char perms[5];
  char dev[32];
  const char *path; /* NULL: no sixth field */
};

/* The next space-separated field of *s (one space ends it), NUL-ended in
 * place; NULL at the line's end. */
static char *field(char **s)
{
  char *f = *s, *sp;

  if (!f)
    return NULL;
  sp = strchr(f, ' ');
  if (sp) {
    *sp = '\0';
    *s = sp + 1;
  } else {
    *s = NULL;
  }
  return f;
}

static bool read_hex(const char *s, const char **end, uint64_t *v)
{
  char *e;

  errno = 0;
  *v = strtoull(s, &e, 16);
  if (end)
    *end = e;
  return errno == 0 && e != s;
}

/* false: not a line 7.2 takes. */
static bool read_host_line(char *line, struct host_map *h)
{
  char *rest = line, *f[6];
  const char *end;
  char *e;
  int n;

  for (n = 0; n < 5 && (f[n] = field(&rest)); n++)
    ;
  if (n < 5 || strlen(f[1]) < 4 || strlen(f[3]) >= sizeof(h->dev))
    return false;
  if (!read_hex(f[0], &end, &h->start) || *end != '-' ||
      !read_hex(end + 1, NULL, &h->end) || !read_hex(f[2], NULL, &h->offset))
    return false;
  errno = 0;
  h->inode = strtoull(f[4], &e, 10);
  if (errno || e == f[4] || *e)
    return false;
  memcpy(h->perms, f[1], 4);
  h->perms[4] = '\0';
  strcpy(h->dev, f[3]);
  h->path = NULL;
  if (rest) { /* the sixth field, its leading blanks removed (g_strchug) */
    while (isspace((unsigned char)*rest))
      rest++;
    h->path = rest;
  }
  return true;
}

/* ---- 7.2's lines -------------------------------------------------------- */

/* 7.2's check of [start, end), all guest pages, against the first page's
 * flags (page_check_range); writable: PAGE_WRITE set now. */
static bool pages_agree(const struct guest *g, uint64_t start, uint64_t end,
                        unsigned flags, bool writable)
{
  const struct range *r;
  uint64_t at;

  for (at = start; at < end; at = r->end) {
    r = find_range(g, at);
    if (!r || r->start > at)
      return false;
    if ((flags & PAGE_R) && !(r->flags & PAGE_R))
      return false;
    if (writable && !(r->flags & PAGE_W))
      return false;
  }
  return true;
}

/* The line of guest range [start, end) of host mapping h (its first page
 * at guest address first). */
static void put_line(struct text *t, const struct guest *g,
                     const struct host_map *h, uint64_t first, uint64_t start,
                     uint64_t end)
{
  const struct range *r = find_range(g, start);
  unsigned flags = r->flags;
  uint64_t offset = h->offset + (h->inode ? start - first : 0);
  const char *path = g->have_stack && start == g->stack ? "[stack]" : h->path;
  int count;

  if (!pages_agree(g, start, end, flags,
                   (flags & PAGE_W) && h->perms[1] == 'w'))
    return;
  count =
      put(t, "%" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %s %" PRId64,
          start, end, (flags & PAGE_R) ? 'r' : '-',
          (flags & PAGE_W) ? 'w' : '-', (flags & PAGE_X) ? 'x' : '-',
          h->perms[3] == 'p' ? 'p' : 's', offset, h->dev, (int64_t)h->inode);
  if (path)
    put(t, "%*s%s\n", 73 - count, "", path);
  else
    put(t, "\n");
}

/* The lines of host mapping h: each run of guest pages in it, the gaps
 * (the plugin's reservations) left out. None for a mapping below the
 * guest base: the plugin's reservation of the vsyscall page's host page
 * under QEMU 8.x (layout.c), where 7.2, which runs at softpmu's other
 * base, has nothing. */
static void put_host_map(struct text *t, const struct guest *g,
                         const struct host_map *h, uint64_t base)
{
  uint64_t first = h->start - base, last = h->end - base, at = first;
  const struct range *r;

  if (h->end <= h->start || h->start < base)
    return;
  while (at < last && (r = find_range(g, at)) && r->start < last) {
    uint64_t start = r->start > at ? r->start : at, end = r->end;
    const struct range *next;

    while (end < last && (next = find_range(g, end)) && next->start == end)
      end = next->end;
    if (end > last)
      end = last;
    put_line(t, g, h, first, start, end);
    at = end;
  }
}

char *spmu_qemu_procmaps_text(const char *host, const char *qemu10,
                              uint64_t base, size_t *n)
{
  struct guest g = {0};
  struct text t = {0};
  char line[PATH_MAX + 256];
  struct host_map h;
  int count;

  read_guest(&g, qemu10);
  while (*host && !g.oom) {
    size_t len = strcspn(host, "\n");

    if (len < sizeof(line)) {
      memcpy(line, host, len);
      line[len] = '\0';
      if (read_host_line(line, &h))
        put_host_map(&t, &g, &h, base);
    }
    host += len + (host[len] == '\n');
  }
  /* Execution from the vsyscall page alone (7.2's comment: as
   * CONFIG_LEGACY_VSYSCALL_XONLY). */
  count = put(&t, "%016" PRIx64 "-%016" PRIx64 " --xp 00000000 00:00 0",
              VSYSCALL_PAGE, VSYSCALL_PAGE + PAGE);
  put(&t, "%*s%s\n", 73 - count, "", "[vsyscall]");
  free(g.r);
  if (g.oom || t.oom) {
    free(t.s);
    return NULL;
  }
  *n = t.n;
  return t.s;
}

/* ---- the open ------------------------------------------------------------ */

bool spmu_qemu_procmaps_is_self(const char *path, long pid)
{
  char mine[32];

  if (strncmp(path, "/proc/", 6) != 0)
    return false;
  path += 6;
  if (strncmp(path, "self/", 5) == 0) {
    path += 5;
  } else if (*path >= '1' && *path <= '9') {
    snprintf(mine, sizeof(mine), "%ld/", pid);
    if (strncmp(path, mine, strlen(mine)) != 0)
      return false;
    path += strlen(mine);
  } else {
    return false;
  }
  return strcmp(path, "maps") == 0;
}

struct spmu_qemu_procmaps *spmu_qemu_procmaps_new(void)
{
  struct spmu_qemu_procmaps *m = calloc(1, sizeof(*m));

  if (m && pthread_mutex_init(&m->lock, NULL) != 0) {
    free(m);
    return NULL;
  }
  return m;
}

void spmu_qemu_procmaps_free(struct spmu_qemu_procmaps *m)
{
  if (!m)
    return;
  pthread_mutex_destroy(&m->lock);
  free(m);
}

bool spmu_qemu_procmaps_follows(int64_t num)
{
  return num == NR_OPEN || num == NR_OPENAT;
}

/* The guest's string at addr into buf (n bytes at most, NUL included),
 * read page by page: false when it is not all there. */
static bool read_path(const struct spmu_qemu_guest_mem *mem, uint64_t addr,
                      char *buf, size_t n)
{
  size_t got = 0;

  while (got < n) {
    size_t k = PAGE - (addr + got) % PAGE;

    if (k > n - got)
      k = n - got;
    if (!spmu_qemu_guest_read(mem, addr + got, buf + got, k))
      return false;
    if (memchr(buf + got, '\0', k))
      return true;
    got += k;
  }
  return false;
}

void spmu_qemu_procmaps_syscall(struct spmu_qemu_procmaps *m,
                                const struct spmu_qemu_guest_mem *mem,
                                unsigned vcpu, int64_t num,
                                const uint64_t *args)
{
  char path[32];
  bool self;

  if (!m || !spmu_qemu_procmaps_follows(num))
    return;
  /* "/proc/" and a pid's digits, "/maps": 7.2 fakes nothing longer. */
  memset(path, 0, sizeof(path));
  self =
      read_path(mem, num == NR_OPEN ? args[0] : args[1], path, sizeof(path)) &&
      spmu_qemu_procmaps_is_self(path, (long)getpid());
  pthread_mutex_lock(&m->lock);
  m->calls[vcpu % CALLS] = (struct call){vcpu, self, mem->base};
  pthread_mutex_unlock(&m->lock);
}

/* Is fd QEMU's faked file (a memfd "qemu-open", else a deleted
 * "qemu-open.XXXXXX" in the temporary directory)? */
static bool qemu_fake(int fd)
{
  char link[64], target[PATH_MAX];
  ssize_t k;

  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  k = readlink(link, target, sizeof(target) - 1);
  if (k <= 0)
    return false;
  target[k] = '\0';
  return strncmp(target, "/memfd:qemu-open ", 17) == 0 ||
         (strstr(target, "/qemu-open.") && strstr(target, " (deleted)"));
}

/* The whole of fd from offset 0 (pread: QEMU's file, whose offset the
 * guest reads from), or of the file at path (fd < 0; read in order, as
 * /proc's files are meant to be): a new string, NULL when it cannot be
 * read. */
static char *slurp(int fd, const char *path)
{
  size_t n = 0, cap = 16384;
  char *s = malloc(cap), *more;
  int in = fd >= 0 ? fd : open(path, O_RDONLY | O_CLOEXEC);
  ssize_t k = 0;

  while (s && in >= 0) {
    k = fd >= 0 ? pread(in, s + n, cap - n - 1, (off_t)n)
                : read(in, s + n, cap - n - 1);
    if (k <= 0)
      break;
    n += (size_t)k;
    if (n + 1 == cap) {
      if (!(more = realloc(s, 2 * cap)))
        break;
      s = more;
      cap *= 2;
    }
  }
  if (fd < 0 && in >= 0)
    close(in);
  if (!s || in < 0 || k != 0) {
    free(s);
    return NULL;
  }
  s[n] = '\0';
  return s;
}

/* fd's text replaced by 7.2's: false when it cannot be. */
static bool rewrite(int fd, uint64_t base)
{
  char *qemu10 = slurp(fd, NULL), *host = slurp(-1, "/proc/self/maps");
  char *text = NULL;
  size_t n = 0;
  bool ok = qemu10 && host &&
            (text = spmu_qemu_procmaps_text(host, qemu10, base, &n)) &&
            ftruncate(fd, 0) == 0 && pwrite(fd, text, n, 0) == (ssize_t)n &&
            lseek(fd, 0, SEEK_SET) == 0;

  free(text);
  free(host);
  free(qemu10);
  return ok;
}

void spmu_qemu_procmaps_syscall_ret(struct spmu_qemu_procmaps *m, unsigned vcpu,
                                    int64_t num, int64_t ret)
{
  struct call *c;
  bool pending, said;
  uint64_t base;

  if (!m || !spmu_qemu_procmaps_follows(num))
    return;
  pthread_mutex_lock(&m->lock);
  c = &m->calls[vcpu % CALLS];
  pending = c->pending && c->vcpu == vcpu;
  base = c->base;
  c->pending = false;
  pthread_mutex_unlock(&m->lock);
  if (!pending || ret < 0 || ret > INT_MAX || !qemu_fake((int)ret))
    return;
  if (rewrite((int)ret, base))
    return;
  pthread_mutex_lock(&m->lock);
  said = m->said;
  m->said = true;
  pthread_mutex_unlock(&m->lock);
  if (!said)
    spmu_qemu_fail("cannot give the guest QEMU 7.2's /proc/self/maps: it "
                   "reads QEMU 10's");
}
