/* SPDX-License-Identifier: MIT */
/* perf's build-id cache (buildid_cache.h). */
#define _GNU_SOURCE /* symlink, link */
#include "buildid_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIDC_PATH_MAX 4096

int buildid_cache_dir(char *buf, size_t cap)
{
  const char *home = getenv("HOME");
  int n;

  if (!home || !*home)
    return -1;
  n = snprintf(buf, cap, "%s/.debug", home);
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* mkdir -p of path's every component: 0, or -1 with errno. */
static int bidc_mkdirs(const char *path)
{
  char buf[BIDC_PATH_MAX];
  size_t i, n = strlen(path);

  if (n >= sizeof(buf))
    return errno = ENAMETOOLONG, -1;
  memcpy(buf, path, n + 1);
  for (i = 1; i <= n; i++) {
    if (buf[i] != '/' && buf[i] != '\0')
      continue;
    buf[i] = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return -1;
    buf[i] = path[i];
  }
  return 0;
}

/* Copy from to a new file to (0644, or 0755 when from is executable). */
static int bidc_copy(const char *from, const char *to)
{
  char b[65536];
  struct stat st;
  ssize_t n = 0;
  int in, out, rc = 0;

  if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
    return -1;
  if (fstat(in, &st) != 0 ||
      (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  (st.st_mode & 0111) ? 0755 : 0644)) < 0) {
    close(in);
    return -1;
  }
  while (rc == 0 && (n = read(in, b, sizeof(b))) > 0)
    if (write(out, b, (size_t)n) != n)
      rc = -1;
  if (n < 0 || close(out) != 0)
    rc = -1;
  close(in);
  if (rc != 0)
    unlink(to);
  return rc;
}

static int bidc_fail(char *why, size_t whylen, const char *what)
{
  snprintf(why, whylen, "%s: %s", what, strerror(errno));
  return -1;
}

int buildid_cache_add(const char *dir, const char *path,
                      const unsigned char *id, size_t len, char *why,
                      size_t whylen)
{
  char hex[41], entry[BIDC_PATH_MAX], elf[BIDC_PATH_MAX],
      link_dir[BIDC_PATH_MAX], link_name[BIDC_PATH_MAX], target[BIDC_PATH_MAX];
  size_t i;

  if (len == 0 || len > 20 || path[0] != '/')
    return snprintf(why, whylen, "%s: no build id or not absolute", path), -1;
  for (i = 0; i < len; i++)
    snprintf(hex + 2 * i, 3, "%02x", id[i]);
  if (snprintf(entry, sizeof(entry), "%s%s/%s", dir, path, hex) >=
          (int)sizeof(entry) ||
      snprintf(elf, sizeof(elf), "%s/elf", entry) >= (int)sizeof(elf) ||
      snprintf(link_dir, sizeof(link_dir), "%s/.build-id/%.2s", dir, hex) >=
          (int)sizeof(link_dir) ||
      snprintf(link_name, sizeof(link_name), "%s/%s", link_dir, hex + 2) >=
          (int)sizeof(link_name) ||
      snprintf(target, sizeof(target), "../..%s/%s", path, hex) >=
          (int)sizeof(target))
    return snprintf(why, whylen, "%s: path too long", path), -1;
  if (bidc_mkdirs(entry) != 0)
    return bidc_fail(why, whylen, entry);
  if (access(elf, F_OK) != 0 && link(path, elf) != 0 &&
      bidc_copy(path, elf) != 0 && errno != EEXIST)
    return bidc_fail(why, whylen, elf);
  if (bidc_mkdirs(link_dir) != 0)
    return bidc_fail(why, whylen, link_dir);
  if (symlink(target, link_name) != 0 && errno != EEXIST)
    return bidc_fail(why, whylen, link_name);
  return 0;
}
