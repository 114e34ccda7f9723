/* softpmu — version of the library. */
#ifndef SOFTPMU_VERSION_H
#define SOFTPMU_VERSION_H

#include "export.h"

#define SPMU_VERSION_MAJOR 0
#define SPMU_VERSION_MINOR 1
#define SPMU_VERSION_PATCH 0

/* One number that orders releases: 0xMMmmpp. */
#define SPMU_VERSION_HEX                                                     \
  ((SPMU_VERSION_MAJOR << 16) | (SPMU_VERSION_MINOR << 8) | SPMU_VERSION_PATCH)

#define SPMU_STRINGIFY_(x) #x
#define SPMU_STRINGIFY(x) SPMU_STRINGIFY_(x)
#define SPMU_VERSION_STRING                                                  \
  SPMU_STRINGIFY(SPMU_VERSION_MAJOR)                                         \
  "." SPMU_STRINGIFY(SPMU_VERSION_MINOR) "." SPMU_STRINGIFY(SPMU_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library actually linked (SPMU_VERSION_HEX layout). */
SPMU_API unsigned spmu_version(void);
/* The same as a string, e.g. "0.1.0". */
SPMU_API const char *spmu_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
