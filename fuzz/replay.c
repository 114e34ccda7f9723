/* SPDX-License-Identifier: MIT */
/* Replays fuzz inputs without libFuzzer: runs LLVMFuzzerTestOneInput on
 * every regular file of each directory named on the command line (in name
 * order, not recursing) and on each file named directly. Any violated
 * property aborts inside the harness; this program fails only when it
 * cannot read its inputs or finds none. Every step of every input runs
 * every check (no sample: harness.h), unless SPMU_FUZZ_CHECKS=sampled.
 *
 *   replay_model fuzz/corpus/model [more dirs or files...]
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

/* Larger inputs are not produced by the fuzzers (-max_len) or the seed
 * generator; refuse them rather than guess. */
#define MAX_INPUT (1u << 20)

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  unsigned char *buf;
  size_t n;

  if (!f) {
    perror(path);
    return -1;
  }
  buf = malloc(MAX_INPUT + 1);
  if (!buf) {
    fclose(f);
    fprintf(stderr, "%s: out of memory\n", path);
    return -1;
  }
  n = fread(buf, 1, MAX_INPUT + 1, f);
  if (ferror(f) || n > MAX_INPUT) {
    fprintf(stderr, "%s: %s\n", path,
            ferror(f) ? "read error" : "larger than 1 MiB");
    fclose(f);
    free(buf);
    return -1;
  }
  fclose(f);
  /* An exact-size copy, so that a sanitizer sees reads past the input. */
  {
    unsigned char *exact = malloc(n ? n : 1);
    if (!exact) {
      free(buf);
      return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
  }
  return 0;
}

static int cmp_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every regular file of dir; adds the count to *files. */
static int run_dir(const char *dir, unsigned long *files)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, cap = 0, i;
  int rc = 0;

  if (!d) {
    perror(dir);
    return -1;
  }
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    if (n == cap) {
      char **grown;
      cap = cap ? 2 * cap : 64;
      grown = realloc(names, cap * sizeof *names);
      if (!grown) {
        rc = -1;
        break;
      }
      names = grown;
    }
    names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
    if (!names[n]) {
      rc = -1;
      break;
    }
    sprintf(names[n], "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  if (n)
    qsort(names, n, sizeof *names, cmp_names);
  for (i = 0; i < n; i++) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(names[i]) != 0)
        rc = -1;
      else
        (*files)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv)
{
  unsigned long files = 0;
  int i;

  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
    return 2;
  }
  fz_check_all_steps(true); /* every check on every step (harness.h) */
  for (i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      return 1;
    }
    if (S_ISDIR(st.st_mode)) {
      if (run_dir(argv[i], &files) != 0)
        return 1;
    } else {
      if (run_file(argv[i]) != 0)
        return 1;
      files++;
    }
  }
  if (files == 0) {
    fprintf(stderr, "%s: no inputs found\n", argv[0]);
    return 1;
  }
  printf("%s: %lu inputs replayed, all properties held\n", argv[0], files);
  return 0;
}
