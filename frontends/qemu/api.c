/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin API versions (api.h). QEMU loads the plugin with immediate
 * binding and refuses it unless its qemu_plugin_version lies in the
 * range QEMU supports: QEMU 7.2 takes 0 to 1, QEMU 10 takes 2 to 4. So
 * the plugin imports by name only the calls every version has, and one
 * .so serves both: a constructor, which runs while QEMU loads it and
 * before QEMU reads the version, sets qemu_plugin_version from the calls
 * the loading process offers (docs/decisions.md says why this and not
 * two builds). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Set once, at load, before QEMU reads it. */
EXPORT int qemu_plugin_version = SPMU_QEMU_PLUGIN_API_MIN;

static void *host_call(const char *name)
{
  return dlsym(RTLD_DEFAULT, name);
}

/* API 1 has the shared-word inline add, which API 2 removed; API 4 added
 * qemu_plugin_read_memory_vaddr. QEMU 9.0 to 9.2 (API 2 and 3, no such
 * call) take 2. */
static int offered_version(void)
{
  if (host_call("qemu_plugin_register_vcpu_tb_exec_inline"))
    return 1;
  if (host_call("qemu_plugin_read_memory_vaddr"))
    return 4;
  if (host_call("qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu"))
    return 2;
  return SPMU_QEMU_PLUGIN_API_MIN; /* not QEMU (a test's loader) */
}

__attribute__((constructor)) static void choose_version(void)
{
  qemu_plugin_version = offered_version();
}

/* Each name as a pointer to its own type (ISO C has no cast from an
 * object pointer to a function pointer; POSIX dlsym gives one). */
#define LOOKUP(field, name)                                                    \
  do {                                                                         \
    void *sym_ = host_call(name);                                              \
    memcpy(&(field), &sym_, sizeof(field));                                    \
  } while (0)

static bool missing(const char *name, int version, char *why, size_t whylen)
{
  snprintf(why, whylen,
           "this QEMU implements plugin API version %d but has no %s", version,
           name);
  return false;
}

/* LOOKUP, and the resolve function fails, saying which, when QEMU has no
 * such call. */
#define NEED(field, name)                                                      \
  do {                                                                         \
    LOOKUP(field, name);                                                       \
    if (!(field))                                                              \
      return missing(name, api->qemu, why, whylen);                            \
  } while (0)

static bool resolve_v1(struct spmu_qemu_api *api, char *why, size_t whylen)
{
  NEED(api->tb_exec_inline_v1, "qemu_plugin_register_vcpu_tb_exec_inline");
  NEED(api->insn_data_v1, "qemu_plugin_insn_data");
  return true;
}

static bool resolve_v2(struct spmu_qemu_api *api, char *why, size_t whylen)
{
  NEED(api->scoreboard_new, "qemu_plugin_scoreboard_new");
  NEED(api->scoreboard_free, "qemu_plugin_scoreboard_free");
  NEED(api->u64_get, "qemu_plugin_u64_get");
  NEED(api->u64_set, "qemu_plugin_u64_set");
  NEED(api->tb_exec_inline,
       "qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu");
  /* optional: the inline budget needs it (QEMU 9.1 on) */
  LOOKUP(api->tb_exec_cond_cb, "qemu_plugin_register_vcpu_tb_exec_cond_cb");
  /* optional: the registers at a PEBS assist need it (regs.c) */
  LOOKUP(api->insn_exec_cond_cb, "qemu_plugin_register_vcpu_insn_exec_cond_cb");
  if (api->qemu >= 3)
    NEED(api->insn_data_v3, "qemu_plugin_insn_data");
  else
    NEED(api->insn_data_v1, "qemu_plugin_insn_data");
  return true;
}

/* The calls some features use where QEMU has them (api.h). */
static void resolve_optional(struct spmu_qemu_api *api)
{
  LOOKUP(api->insn_haddr, "qemu_plugin_insn_haddr");
  if (api->version < 2)
    return;
  LOOKUP(api->get_registers, "qemu_plugin_get_registers");
  LOOKUP(api->read_register, "qemu_plugin_read_register");
  LOOKUP(api->read_memory_vaddr, "qemu_plugin_read_memory_vaddr");
  LOOKUP(api->byte_array_new, "g_byte_array_new");
  LOOKUP(api->byte_array_free, "g_byte_array_free");
  LOOKUP(api->array_free, "g_array_free");
}

bool spmu_qemu_api_resolve(struct spmu_qemu_api *api, const qemu_info_t *info,
                           char *why, size_t whylen)
{
  *api = (struct spmu_qemu_api){.version = qemu_plugin_version,
                                .qemu = info->version.cur};
  if (info->version.min > api->version || info->version.cur < api->version) {
    snprintf(why, whylen,
             "this QEMU supports plugin API versions %d to %d; the plugin "
             "runs on versions %d to %d and took %d from the QEMU that loaded "
             "it",
             info->version.min, info->version.cur, SPMU_QEMU_PLUGIN_API_MIN,
             SPMU_QEMU_PLUGIN_API, api->version);
    return false;
  }
  resolve_optional(api);
  return api->version == 1 ? resolve_v1(api, why, whylen)
                           : resolve_v2(api, why, whylen);
}

size_t spmu_qemu_insn_bytes(const struct spmu_qemu_api *api,
                            const struct qemu_plugin_insn *insn, void *buf,
                            size_t len)
{
  size_t n = qemu_plugin_insn_size(insn);

  if (api->insn_data_v3)
    return api->insn_data_v3(insn, buf, len);
  if (n > len)
    n = len;
  memcpy(buf, api->insn_data_v1(insn), n);
  return n;
}
