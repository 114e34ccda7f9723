/* SPDX-License-Identifier: GPL-2.0-or-later */
/* getrandom(2) from a seed (seed=N, seed.c): the bytes the host's
 * getrandom wrote into the guest's buffer replaced, when the call
 * returns, by the next ones of a generator started from N, so that the
 * same command gives the program the same bytes on every run, under any
 * QEMU. One generator per process, taken by the calls in the order they
 * return (threads that call it at once get the bytes in the order the host
 * ran them); a forked child goes on from its parent's state, and a program
 * an execve started (exec.c) starts from N again. */
#ifndef SOFTPMU_QEMU_SEED_H
#define SOFTPMU_QEMU_SEED_H

#include <stdbool.h>
#include <stdint.h>

#include "guest.h"

struct spmu_qemu_seed;

/* A generator at seed; NULL when out of memory. */
struct spmu_qemu_seed *spmu_qemu_seed_new(uint64_t seed);
void spmu_qemu_seed_free(struct spmu_qemu_seed *s);

/* vCPU vcpu calls getrandom(buf, ...): where its bytes will be. */
void spmu_qemu_seed_call(struct spmu_qemu_seed *s, unsigned vcpu, uint64_t buf);

/* vCPU vcpu's getrandom returned ret: when it wrote bytes (ret > 0),
 * they are replaced by the generator's next ones through m. false when
 * the guest's memory could not be written (the host's bytes stay). The
 * caller serialises the calls of one process. */
bool spmu_qemu_seed_return(struct spmu_qemu_seed *s,
                           const struct spmu_qemu_guest_mem *m, unsigned vcpu,
                           int64_t ret);

/* The generator's next n bytes into buf (what a call of n bytes gets). */
void spmu_qemu_seed_bytes(struct spmu_qemu_seed *s, void *buf, uint64_t n);

#endif
