/* SPDX-License-Identifier: MIT */
/* perf's build-id cache, which perf record fills as it ends and perf
 * archive packs: DIR/PATH/BUILDID/elf (the file, hard-linked, else
 * copied) and DIR/.build-id/BU/ILDID, a symbolic link to
 * ../../PATH/BUILDID. DIR is $HOME/.debug, perf's default (perf sets
 * $PERF_BUILDID_DIR itself, for perf archive, from its buildid.dir
 * setting, else that). */
#ifndef SOFTPMU_PERF_BUILDID_CACHE_H
#define SOFTPMU_PERF_BUILDID_CACHE_H

#include <stddef.h>

/* The cache's directory into buf: 0, or -1 (no $HOME, or too long). */
int buildid_cache_dir(char *buf, size_t cap);

/* Add the file at path (absolute) with build id id (len bytes, 1 to 20)
 * to the cache in dir; an entry already there is kept: 0, or -1 with the
 * reason in why. */
int buildid_cache_add(const char *dir, const char *path,
                      const unsigned char *id, size_t len, char *why,
                      size_t whylen);

#endif
