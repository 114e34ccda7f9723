/* SPDX-License-Identifier: MIT */
/* The sample stream (record.h): the PROCESS record, which states the
 * format's version, written and read here. */
#include "record.h"

#include <stdio.h>
#include <string.h>

void spmu_rec_process_fill(struct spmu_rec_process *r, uint32_t pid,
                           uint32_t ppid, const char *comm)
{
  memset(r, 0, sizeof(*r));
  r->head.type = SPMU_REC_PROCESS;
  r->head.size = spmu_rec_size(sizeof(*r));
  r->pid = pid;
  r->ppid = ppid;
  snprintf(r->comm, sizeof(r->comm), "%s", comm);
  r->version = SPMU_REC_VERSION;
}

int spmu_rec_process_read(const void *rec, size_t len,
                          struct spmu_rec_process *out, char *why,
                          size_t whylen)
{
  if (len < SPMU_REC_PROCESS_V1_SIZE) {
    snprintf(why, whylen, "a short PROCESS record");
    return -1;
  }
  memset(out, 0, sizeof(*out));
  memcpy(out, rec, len < sizeof(*out) ? len : sizeof(*out));
  out->comm[SPMU_REC_COMM_LEN - 1] = '\0';
  if (len < sizeof(*out))
    out->version = 1; /* written before the field: version 1 */
  if (out->version < SPMU_REC_VERSION_MIN || out->version > SPMU_REC_VERSION) {
    snprintf(why, whylen,
             "a PROCESS record of format version %u (this softpmu reads "
             "versions %d to %d)",
             (unsigned)out->version, SPMU_REC_VERSION_MIN, SPMU_REC_VERSION);
    return -1;
  }
  return 0;
}
