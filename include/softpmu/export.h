/* SPDX-License-Identifier: MIT */
/* softpmu — symbol visibility of the public API. */
#ifndef SOFTPMU_EXPORT_H
#define SOFTPMU_EXPORT_H

#if defined(SPMU_BUILDING) && defined(__GNUC__) && __GNUC__ >= 4
#define SPMU_API __attribute__((visibility("default")))
#else
#define SPMU_API
#endif

#endif
