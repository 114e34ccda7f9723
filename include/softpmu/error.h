/* SPDX-License-Identifier: MIT */
/* softpmu — results and error codes.
 *
 * Two kinds of outcome are kept apart:
 *  - an architectural fault is a *result* the guest sees: SPMU_GP (#GP(0)).
 *    It is returned as a positive value by the guest-path calls (spmu_wrmsr,
 *    spmu_rdmsr, spmu_rdpmc) and is not an error of the caller;
 *  - API misuse or a failed host operation is an *error*: a negative SPMU_E*
 *    code, turned into text by spmu_strerror().
 */
#ifndef SOFTPMU_ERROR_H
#define SOFTPMU_ERROR_H

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPMU_OK 0
#define SPMU_GP 1 /* the instruction raises #GP(0) */

/* X(name, text): one list makes both the enum and spmu_strerror(). */
#define SPMU_ERRNO_MAP(X)                                                      \
  X(EINVAL, "invalid argument")                                                \
  X(ENOMEM, "out of memory")                                                   \
  X(ENOENT, "no such name")                                                    \
  X(ENOMSR, "MSR not present in this profile")                                 \
  X(ERESERVED, "reserved bits set")                                            \
  X(EREADONLY, "value differs from read-only state")                           \
  X(ERANGE, "value does not fit the field")                                    \
  X(EPROFILE, "impossible CPU profile")                                        \
  X(ENOSPC, "buffer too small")                                                \
  X(EVERSION, "snapshot format version not supported")                         \
  X(EMISMATCH, "snapshot belongs to another profile")                          \
  X(ECORRUPT, "snapshot damaged or truncated")                                 \
  X(EBUSY, "counter in use by another agent")                                  \
  X(EIO, "backend I/O failed")

typedef enum spmu_errno {
  SPMU_ERRNO_BASE_ = 0,
#define SPMU_ERRNO_ENUM_(name, text) SPMU_ERRNO_##name##_,
  SPMU_ERRNO_MAP(SPMU_ERRNO_ENUM_)
#undef SPMU_ERRNO_ENUM_
      SPMU_ERRNO_COUNT_
} spmu_errno;

#define SPMU_EINVAL (-SPMU_ERRNO_EINVAL_)
#define SPMU_ENOMEM (-SPMU_ERRNO_ENOMEM_)
#define SPMU_ENOENT (-SPMU_ERRNO_ENOENT_)
#define SPMU_ENOMSR (-SPMU_ERRNO_ENOMSR_)
#define SPMU_ERESERVED (-SPMU_ERRNO_ERESERVED_)
#define SPMU_EREADONLY (-SPMU_ERRNO_EREADONLY_)
#define SPMU_ERANGE (-SPMU_ERRNO_ERANGE_)
#define SPMU_EPROFILE (-SPMU_ERRNO_EPROFILE_)
#define SPMU_ENOSPC (-SPMU_ERRNO_ENOSPC_)
#define SPMU_EVERSION (-SPMU_ERRNO_EVERSION_)
#define SPMU_EMISMATCH (-SPMU_ERRNO_EMISMATCH_)
#define SPMU_ECORRUPT (-SPMU_ERRNO_ECORRUPT_)
#define SPMU_EBUSY (-SPMU_ERRNO_EBUSY_)
#define SPMU_EIO (-SPMU_ERRNO_EIO_)

/* Text for a result: 0, SPMU_GP or a negative SPMU_E* code. Never NULL. */
SPMU_API const char *spmu_strerror(int code);
/* The code's name, e.g. "SPMU_ENOMSR". Never NULL. */
SPMU_API const char *spmu_errname(int code);

#ifdef __cplusplus
}
#endif
#endif
