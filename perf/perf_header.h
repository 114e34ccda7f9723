/* SPDX-License-Identifier: MIT */
/* perf.data's header features, as perf record writes them (the layouts:
 * perf.data-file-format.txt, "Feature sections", and Linux's
 * tools/perf/util/header.c): internal to perf_data.c, which writes the
 * records and calls these at perf_data_close, and perf_header.c, which
 * writes the features. The writer's state lives here so both see it. */
#ifndef SOFTPMU_PERF_HEADER_H
#define SOFTPMU_PERF_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perf_data.h"

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
};

/* Append n bytes at p (a failure is kept in w->failed). */
void perf_data_put(struct perf_data_writer *w, const void *p, size_t n);
/* The attr of event i, as the attrs section has it. */
struct perf_data_attr perf_data_attr_of(const struct perf_data_desc *d,
                                        unsigned i);

/* The feature bitmap's first word: the features the file has. */
uint64_t perf_header_features(const struct perf_data_writer *w);
/* Write the features feat names, at the end of the file. */
void perf_header_write(struct perf_data_writer *w, uint64_t feat);
/* Free what perf_data_build_id kept. */
void perf_header_free(struct perf_data_writer *w);

#endif
