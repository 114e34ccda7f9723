/* SPDX-License-Identifier: MIT */
/* perf's target options, which choose what to count (the whole system,
 * another process or thread, some CPUs, a cgroup), refused with the
 * reason: the program runs under qemu-x86_64, in user mode, and only it
 * (its threads and forked children) reaches the model (session.h). */
#include "session.h"

#include <stddef.h>

/* Each option's value is taken (and ignored), so that "-p 1234" and
 * "-p1234" get the reason, not "unknown option". */
const struct session_option session_target_options[] = {
    {"-a", "--all-cpus", SESSION_FLAG, SESSION_KEY_TARGET, NULL},
    {"-p", "--pid", SESSION_VALUE, SESSION_KEY_TARGET, NULL},
    {"-t", "--tid", SESSION_VALUE, SESSION_KEY_TARGET, NULL},
    {"-C", NULL, SESSION_VALUE, SESSION_KEY_TARGET, NULL},
    {"-G", "--cgroup", SESSION_VALUE, SESSION_KEY_TARGET, NULL},
    {NULL, NULL, SESSION_FLAG, 0, NULL},
};

/* What there is none of, by the option's short name. */
static const struct {
  const char *name, *none;
} session_target_none[] = {
    {"-a", "there is no system to count"},
    {"-p", "there is no other process to count"},
    {"-t", "there is no other thread to count"},
    {"-C", "there are no CPUs to choose"},
    {"-G", "there is no cgroup to count"},
};

const char *session_target_none_of(const struct session_option *o)
{
  size_t i;

  for (i = 0; i < sizeof(session_target_none) / sizeof(session_target_none[0]);
       i++)
    if (o->short_name && o->short_name[1] == session_target_none[i].name[1])
      return session_target_none[i].none;
  return "there is nothing else to count";
}
