/* SPDX-License-Identifier: MIT */
/* A program built against an installed libsoftpmu-agent (and, through it,
 * libsoftpmu): the version check of model.c, then an agent over the model
 * claims a counter.
 *   consumer_agent VERSION */
#include <stdio.h>
#include <string.h>

#include <softpmu/agent.h>
#include <softpmu/softpmu.h>

int main(int argc, char **argv)
{
  /* Retired instructions, at any CPL. */
  const spmu_agent_event inst = {0xC0, 0x00, 0, SPMU_AGENT_USR | SPMU_AGENT_OS,
                                 0};
  spmu_profile prof;
  spmu_core *core;
  spmu_backend be;
  spmu_agent *agent;
  unsigned counter = 0;
  char why[256];

  if (argc != 2 || strcmp(argv[1], SPMU_VERSION_STRING) != 0 ||
      strcmp(spmu_version_string(), SPMU_VERSION_STRING) != 0) {
    fprintf(stderr, "version: header %s, library %s, build system %s\n",
            SPMU_VERSION_STRING, spmu_version_string(),
            argc > 1 ? argv[1] : "?");
    return 1;
  }
  if (spmu_profile_parse("skylake", &prof, why, sizeof why) != SPMU_OK ||
      spmu_core_new(&prof, &core) != SPMU_OK) {
    fprintf(stderr, "skylake: %s\n", why);
    return 1;
  }
  if (spmu_backend_model(spmu_core_lp(core, 0), &be) != SPMU_OK ||
      spmu_agent_new(&be, &agent) != SPMU_OK)
    return 1;
  /* SDM 18.2.2: fixed counter 0 counts INST_RETIRED.ANY; a free fixed
   * counter that counts the event is claimed first (agent.h). */
  if (spmu_agent_claim(agent, &inst, &counter) != SPMU_OK ||
      counter != SPMU_AGENT_FIXED(0)) {
    fprintf(stderr, "claimed counter %u\n", counter);
    return 1;
  }
  spmu_agent_free(agent);
  spmu_core_free(core);
  printf("agent %s: instructions on fixed counter 0\n", spmu_version_string());
  return 0;
}
