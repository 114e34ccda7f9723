/* SPDX-License-Identifier: MIT */
/* The hardware backend: Linux's msr and cpuid drivers.
 *
 * /dev/cpu/N/msr: an 8-byte pread (pwrite) at file offset = MSR address
 * executes RDMSR (WRMSR) on CPU N; the driver returns EIO when the
 * instruction faults. /dev/cpu/N/cpuid: a 16-byte pread at offset
 * leaf | subleaf << 32 executes CPUID and gives EAX, EBX, ECX, EDX. Both
 * use the CPU's byte order. Opening needs the drivers loaded (modprobe msr,
 * modprobe cpuid) and root with CAP_SYS_RAWIO.
 *
 * The only file in the library that performs I/O; the model never does.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "softpmu/agent.h"
#include "softpmu/error.h"

struct spmu_hw {
  int msr_fd;
  int cpuid_fd; /* -1: none */
};

/* Which driver provides a device file, from its name. */
static const char *driver_of(const char *path)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  return strcmp(base, "cpuid") == 0 ? "cpuid" : "msr";
}

int spmu_hw_explain(const char *path, int sys_errno, char *why, size_t whylen)
{
  char text[256];
  int rc = SPMU_EIO;

  if (!path)
    path = "(null)";
  switch (sys_errno) {
  case ENOENT:
  case ENODEV:
  case ENXIO:
    snprintf(text, sizeof text,
             "%s does not exist: the %s driver is not loaded (run `modprobe "
             "%s` as root), or that CPU is not online",
             path, driver_of(path), driver_of(path));
    rc = SPMU_ENOENT;
    break;
  case EACCES:
  case EPERM:
    snprintf(text, sizeof text,
             "%s: permission denied: MSR and CPUID device access needs root "
             "(CAP_SYS_RAWIO)",
             path);
    break;
  default:
    snprintf(text, sizeof text, "%s: %s", path, strerror(sys_errno));
    break;
  }
  if (why && whylen)
    snprintf(why, whylen, "%s", text);
  return rc;
}

static int open_one(const char *path, int flags, int *fd, char *why,
                    size_t whylen)
{
  *fd = open(path, flags | O_CLOEXEC);
  if (*fd < 0)
    return spmu_hw_explain(path, errno, why, whylen);
  return SPMU_OK;
}

int spmu_hw_open_paths(const char *msr_path, const char *cpuid_path,
                       spmu_hw **out, char *why, size_t whylen)
{
  spmu_hw *hw;
  int rc;

  if (!out)
    return SPMU_EINVAL;
  *out = NULL;
  if (!msr_path)
    return SPMU_EINVAL;
  hw = malloc(sizeof *hw);
  if (!hw)
    return SPMU_ENOMEM;
  hw->cpuid_fd = -1;
  rc = open_one(msr_path, O_RDWR, &hw->msr_fd, why, whylen);
  if (rc == SPMU_OK && cpuid_path)
    rc = open_one(cpuid_path, O_RDONLY, &hw->cpuid_fd, why, whylen);
  if (rc != SPMU_OK) {
    spmu_hw_close(hw);
    return rc;
  }
  *out = hw;
  return SPMU_OK;
}

int spmu_hw_open(unsigned cpu, spmu_hw **out, char *why, size_t whylen)
{
  char msr[64], cpuid[64];

  snprintf(msr, sizeof msr, "/dev/cpu/%u/msr", cpu);
  snprintf(cpuid, sizeof cpuid, "/dev/cpu/%u/cpuid", cpu);
  return spmu_hw_open_paths(msr, cpuid, out, why, whylen);
}

void spmu_hw_close(spmu_hw *hw)
{
  if (!hw)
    return;
  if (hw->msr_fd >= 0)
    close(hw->msr_fd);
  if (hw->cpuid_fd >= 0)
    close(hw->cpuid_fd);
  free(hw);
}

/* The result of an n-byte transfer that moved got bytes. The msr driver
 * reports a faulting RDMSR/WRMSR as EIO; a regular file standing in for the
 * device ends where no MSR exists, which reads as the same #GP. */
static int transfer_result(ssize_t got, size_t n)
{
  if (got == (ssize_t)n)
    return SPMU_OK;
  if (got == 0 || (got < 0 && errno == EIO))
    return SPMU_GP;
  return SPMU_EIO;
}

static int hw_rdmsr(void *opaque, uint32_t msr, uint64_t *value)
{
  spmu_hw *hw = opaque;
  uint64_t v;
  ssize_t got = pread(hw->msr_fd, &v, sizeof v, (off_t)msr);
  int rc = transfer_result(got, sizeof v);

  if (rc == SPMU_OK)
    *value = v;
  return rc;
}

static int hw_wrmsr(void *opaque, uint32_t msr, uint64_t value)
{
  spmu_hw *hw = opaque;
  ssize_t put = pwrite(hw->msr_fd, &value, sizeof value, (off_t)msr);

  if (put < 0 && errno == EIO)
    return SPMU_GP;
  return put == (ssize_t)sizeof value ? SPMU_OK : SPMU_EIO;
}

static int hw_cpuid(void *opaque, uint32_t leaf, uint32_t subleaf,
                    uint32_t regs[4])
{
  spmu_hw *hw = opaque;
  uint32_t r[4];
  ssize_t got;
  int rc;

  if (hw->cpuid_fd < 0)
    return SPMU_ENOENT;
  got =
      pread(hw->cpuid_fd, r, sizeof r, (off_t)(leaf | (uint64_t)subleaf << 32));
  rc = transfer_result(got, sizeof r);
  if (rc == SPMU_GP) /* CPUID does not fault; a short file lacks the leaf */
    return SPMU_ENOENT;
  if (rc == SPMU_OK)
    memcpy(regs, r, sizeof r);
  return rc;
}

int spmu_hw_backend(spmu_hw *hw, spmu_backend *out)
{
  if (!hw || !out)
    return SPMU_EINVAL;
  *out = (spmu_backend){
      .opaque = hw, .rdmsr = hw_rdmsr, .wrmsr = hw_wrmsr, .cpuid = hw_cpuid};
  return SPMU_OK;
}
