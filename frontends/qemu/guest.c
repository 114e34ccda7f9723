/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guest's registers and memory (guest.h). */
#define _GNU_SOURCE /* process_vm_readv */
#include "guest.h"

#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* QEMU's x86-64 register names (its gdb description), in the PEBS
 * record's order. */
static const char *const gpr_names[SPMU_QEMU_GPRS] = {
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

static int gpr_index(const char *name)
{
  int i;

  for (i = 0; name && i < SPMU_QEMU_GPRS; i++)
    if (strcmp(name, gpr_names[i]) == 0)
      return i;
  return -1;
}

bool spmu_qemu_gprs_find(const struct spmu_qemu_api *api,
                         struct spmu_qemu_gprs *g)
{
  struct spmu_glib_array *list;
  const qemu_plugin_reg_descriptor *d;
  unsigned i, found = 0;

  memset(g, 0, sizeof(*g));
  if (!spmu_qemu_api_registers(api) || !(list = api->get_registers()))
    return false;
  d = (const qemu_plugin_reg_descriptor *)(void *)list->data;
  for (i = 0; i < list->len; i++) {
    int k = gpr_index(d[i].name);

    if (!g->eflags && d[i].name && strcmp(d[i].name, "eflags") == 0)
      g->eflags = d[i].handle;
    if (k >= 0 && !g->handle[k]) {
      g->handle[k] = d[i].handle;
      found++;
    }
  }
  api->array_free(list, 1);
  return found == SPMU_QEMU_GPRS;
}

/* Each register read appends its 8 bytes, little-endian, to one array. */
bool spmu_qemu_gprs_read(const struct spmu_qemu_api *api,
                         const struct spmu_qemu_gprs *g, unsigned n,
                         uint64_t *val)
{
  struct spmu_glib_bytes *buf;
  bool ok = true;
  unsigned i, k;

  if (n > SPMU_QEMU_GPRS || !(buf = api->byte_array_new()))
    return false;
  for (i = 0; ok && i < n; i++)
    ok = api->read_register(g->handle[i], buf) == 8;
  ok = ok && buf->len == 8 * n;
  for (i = 0; ok && i < n; i++)
    for (val[i] = 0, k = 8; k-- > 0;)
      val[i] = val[i] << 8 | buf->data[8 * i + k];
  api->byte_array_free(buf, 1);
  return ok;
}

bool spmu_qemu_eflags_read(const struct spmu_qemu_api *api,
                           const struct spmu_qemu_gprs *g, uint64_t *val)
{
  struct spmu_glib_bytes *buf;
  int n;
  bool ok;

  if (!g->eflags || !(buf = api->byte_array_new()))
    return false;
  n = api->read_register(g->eflags, buf);
  ok = (n == 4 || n == 8) && buf->len == (unsigned)n;
  for (*val = 0; ok && n-- > 0;)
    *val = *val << 8 | buf->data[n];
  api->byte_array_free(buf, 1);
  return ok;
}

static bool host_read(uint64_t host, void *buf, size_t n)
{
  struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)host, n};

  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

bool spmu_qemu_guest_read(const struct spmu_qemu_guest_mem *m, uint64_t addr,
                          void *buf, size_t n)
{
  return m->known && host_read(addr + m->base, buf, n);
}

bool spmu_qemu_guest_write(const struct spmu_qemu_guest_mem *m, uint64_t addr,
                           const void *buf, size_t n)
{
  struct iovec local = {(void *)(uintptr_t)buf, n},
               remote = {(void *)(uintptr_t)(addr + m->base), n};

  return m->known &&
         process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

bool spmu_qemu_guest_mem_find(struct spmu_qemu_guest_mem *m,
                              const struct spmu_qemu_api *api,
                              const struct qemu_plugin_insn *insn,
                              const void *bytes, size_t n)
{
  unsigned char host[16];
  uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
  void *haddr = api->insn_haddr ? api->insn_haddr(insn) : NULL;

  m->base = haddr ? (uint64_t)(uintptr_t)haddr - vaddr : 0;
  m->known = n && n <= sizeof(host) && host_read(vaddr + m->base, host, n) &&
             memcmp(host, bytes, n) == 0;
  return m->known;
}

bool spmu_qemu_guest_agrees(const struct spmu_qemu_guest_mem *m,
                            const struct spmu_qemu_api *api, uint64_t addr,
                            size_t n)
{
  unsigned char host[64];
  struct spmu_glib_bytes *buf;
  bool ok;

  if (!api->read_memory_vaddr || !api->byte_array_new || !api->byte_array_free)
    return true;
  if (n > sizeof(host) || !spmu_qemu_guest_read(m, addr, host, n) ||
      !(buf = api->byte_array_new()))
    return false;
  ok = api->read_memory_vaddr(addr, buf, n) && buf->len == n &&
       memcmp(buf->data, host, n) == 0;
  api->byte_array_free(buf, 1);
  return ok;
}
