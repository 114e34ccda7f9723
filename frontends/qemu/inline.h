/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counting by QEMU's inline adds alone (inline.c): each block adds 1 to
 * its own execution count in the generated code, with no call into the
 * plugin, while that is exact. */
#ifndef SOFTPMU_QEMU_INLINE_H
#define SOFTPMU_QEMU_INLINE_H

#include <stdbool.h>

#include "qemu_plugin_api.h"
#include "tb.h"

struct vcpu;
struct spmu_qemu_blocks;
struct spmu_qemu_inline;
struct spmu_qemu_api;

/* The state of inline counting over the process's blocks; NULL when out
 * of memory. */
struct spmu_qemu_inline *
spmu_qemu_inline_new(const struct spmu_qemu_blocks *blocks,
                     const struct spmu_qemu_api *api);
void spmu_qemu_inline_free(struct spmu_qemu_inline *in);

/* Block t counted inline (and its REP instruction's runs); false when out
 * of memory. */
bool spmu_qemu_inline_tb(struct spmu_qemu_inline *in,
                         struct qemu_plugin_tb *qtb, struct tb *t);
/* QEMU returned from a system call to execute it again (it restarts
 * it): the next execution of a block that is one far transfer is that
 * call again, which retires nothing new. */
void spmu_qemu_inline_restart(struct spmu_qemu_inline *in);
/* Hand the inline counts to v's cores, and count from 0 again. */
void spmu_qemu_inline_flush(struct spmu_qemu_inline *in, struct vcpu *v);
/* The reset that ends inline counting has taken effect (its callback, in
 * QEMU's exclusive section: no vCPU runs): what vCPUs 1 to nvcpus - 1
 * added inline before it (threads that started meanwhile ran blocks
 * translated for inline counting) into vCPU 0's counts, which flush
 * reads. Nothing to do under API 1 (one word for every thread). */
void spmu_qemu_inline_gather(struct spmu_qemu_inline *in, unsigned nvcpus);
/* In a fork's child: the counts so far are the parent's. */
void spmu_qemu_inline_forget(struct spmu_qemu_inline *in);

#endif
