/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Record mode (sample.c): the process's sample stream (protocol/record.h)
 * and what goes into it: the samples of the PMIs with their call chains
 * (a shadow stack per thread) and branch stacks, the threads' starts and
 * ends, the samples lost. */
#ifndef SOFTPMU_QEMU_SAMPLE_H
#define SOFTPMU_QEMU_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "tb.h"

struct vcpu;
struct spmu_qemu_stream;

/* The stream to cfg->record (checked writable), or NULL with the reason
 * in why. Records are buffered per process and appended in whole records;
 * flush writes the buffer out. */
struct spmu_qemu_stream *
spmu_qemu_stream_open(const struct spmu_qemu_config *cfg, char *why,
                      size_t len);
void spmu_qemu_stream_free(struct spmu_qemu_stream *rec);
void spmu_qemu_stream_flush(struct spmu_qemu_stream *rec);
/* QEMU's guest base (host address - guest address), which the file
 * mappings of /proc/self/maps are taken back by. */
void spmu_qemu_stream_set_base(struct spmu_qemu_stream *rec, uint64_t base);
/* In a fork's child: a new process, with an empty buffer. */
void spmu_qemu_stream_fork_child(struct spmu_qemu_stream *rec);
/* Did a write fail? */
bool spmu_qemu_stream_failed(const struct spmu_qemu_stream *rec);

/* The thread's records (none without a stream, v->stream NULL). */
void spmu_qemu_sample(struct vcpu *v, unsigned event, uint64_t ip);
/* The same with the registers of its PEBS record (regs=1), written just
 * before it (REGS): rflags, and gpr by register number (16). */
void spmu_qemu_sample_regs(struct vcpu *v, unsigned event, uint64_t ip,
                           uint64_t rflags, const uint64_t *gpr);
void spmu_qemu_thread_start(struct vcpu *v); /* sets v->tid */
void spmu_qemu_thread_exit(struct vcpu *v);
void spmu_qemu_record_lost(struct vcpu *v, uint64_t count);

/* The shadow stack after block p went to next. */
void spmu_qemu_stack_update(struct vcpu *v, const struct tb *p, uint64_t next);

#endif
