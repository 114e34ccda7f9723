/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's configuration (config.h) from the arguments QEMU hands it
 * (setup.c): parsed by protocol/args.h's parser, then what they name
 * checked and worked out once (the profile, the model, the PEBS and LBR
 * registers, the line each event counts). */
#ifndef SOFTPMU_QEMU_SETUP_H
#define SOFTPMU_QEMU_SETUP_H

#include <stdbool.h>

#include "config.h"

/* cfg from argv[0..argc): true, or false with the reason said on standard
 * error (fail.h). */
bool spmu_qemu_setup(struct spmu_qemu_config *cfg, int argc, char **argv);

#endif
