/* The libFuzzer entry point every harness defines. fuzz/replay.c calls it
 * for each corpus file when the harness is built without libFuzzer. */
#ifndef SPMU_FUZZ_FUZZ_H
#define SPMU_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Run one input; returns 0. A violated property calls abort(). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
