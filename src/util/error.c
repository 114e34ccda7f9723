/* SPDX-License-Identifier: MIT */
/* Error text from the X-macro list in error.h. */
#include "softpmu/error.h"
#include "softpmu/version.h"

const char *spmu_strerror(int code)
{
  switch (code) {
  case SPMU_OK:
    return "success";
  case SPMU_GP:
    return "general-protection fault (#GP)";
#define SPMU_ERRNO_TEXT_(name, text)                                           \
  case SPMU_##name:                                                            \
    return text;
    SPMU_ERRNO_MAP(SPMU_ERRNO_TEXT_)
#undef SPMU_ERRNO_TEXT_
  default:
    return "unknown error";
  }
}

const char *spmu_errname(int code)
{
  switch (code) {
  case SPMU_OK:
    return "SPMU_OK";
  case SPMU_GP:
    return "SPMU_GP";
#define SPMU_ERRNO_NAME_(name, text)                                           \
  case SPMU_##name:                                                            \
    return "SPMU_" #name;
    SPMU_ERRNO_MAP(SPMU_ERRNO_NAME_)
#undef SPMU_ERRNO_NAME_
  default:
    return "SPMU_UNKNOWN";
  }
}

unsigned spmu_version(void)
{
  return SPMU_VERSION_HEX;
}

const char *spmu_version_string(void)
{
  return SPMU_VERSION_STRING;
}
