/* SPDX-License-Identifier: MIT */
/* softpmu record: the QEMU plugin's sample stream (protocol/record.h)
 * turned into a perf.data file (perf_data.h).
 *
 * Each stream record becomes what perf record would have written for it:
 *   PROCESS  COMM of its main thread (and FORK from its parent when it is
 *            a forked child); with SPMU_REC_PROCESS_EXEC, a program an
 *            execve started in a process already seen: COMM with
 *            PERF_RECORD_MISC_COMM_EXEC, after a FINISHED_ROUND;
 *   MMAP     MMAP (the first of equal ones: the plugin repeats them);
 *   THREAD   FORK from the process and COMM with the process's name, for
 *            a thread other than the main one;
 *   SAMPLE   SAMPLE: ip, pid/tid, time (instructions the thread retired),
 *            period, and with a call chain PERF_CONTEXT_USER, the ip, then
 *            the return addresses innermost first;
 *   EXIT     EXIT, after every sample (two FINISHED_ROUNDs first), as a
 *            tool that forgets a thread at its EXIT needs it;
 *   LOST     LOST_SAMPLES;
 *   READ     nothing of its own: the counts of a leader-sampled group
 *            ({a,b}:S), which the leader's next SAMPLE of the thread
 *            carries (PERF_SAMPLE_READ) as each event's count over the
 *            recording, every thread's growth added (perf_data.h);
 *   REGS     nothing of its own: the registers the thread's next SAMPLE
 *            carries (PERF_SAMPLE_REGS_INTR, when the desc asks for
 *            them): its general-purpose registers and flags (bit 3,
 *            PERF_EFLAGS_EXACT, set for a precise event, as Linux sets it
 *            for a PEBS sample), the sample's IP, and x86-64 Linux's user
 *            CS and SS; a sample without one, ABI none.
 * Records of other types are skipped, as the stream's readers must. The
 * header's HEADER_BUILD_ID gives the build id (symbols_build_id) of each
 * mapped file that a sample's ip, call chain or branch stack touches. */
#ifndef SOFTPMU_RECORD_STREAM_H
#define SOFTPMU_RECORD_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "perf_data.h"

/* What a conversion found. */
struct record_stream_stats {
  uint64_t samples[PERF_DATA_MAX_EVENTS]; /* per event */
  uint64_t lost;
  unsigned processes, threads;
  /* The files the build-id cache did not take, and the first's reason. */
  unsigned buildid_cache_failed;
  char buildid_cache_why[256];
};

/* Convert the stream in path to a perf.data file out, described by desc
 * (one event per event= argument the plugin was given, in order), with
 * the header features env states (NULL: none but the events'): 0, or
 * -1 with the reason in why (a malformed or truncated stream, a sample of
 * an event desc does not have, the output not writable). Each file with
 * hits and a build id is added to the build-id cache in buildid_dir (NULL:
 * none), as perf record adds them (buildid_cache.h); a file the cache
 * does not take is counted in st, not an error. */
int record_stream_convert(const char *path, const struct perf_data_desc *desc,
                          const struct perf_data_env *env, const char *out,
                          const char *buildid_dir,
                          struct record_stream_stats *st, char *why,
                          size_t whylen);

#endif
