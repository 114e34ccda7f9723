/* SPDX-License-Identifier: MIT */
/* softpmu: the command-line face of the PMU model. main() finds the
 * subcommand and hands over; each one lives in its own cmd_*.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <softpmu/version.h>

#include "cli.h"
#include "cli_dirs.h"
#include "man.h"

static const struct cli_command *const commands[] = {
    &cli_cmd_decode, &cli_cmd_encode, &cli_cmd_cpuid, &cli_cmd_msrs,
    &cli_cmd_run,    &cli_cmd_show,   &cli_cmd_stat,  &cli_cmd_record,
    &cli_cmd_report, &cli_cmd_list,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char usage_line[] = "usage: softpmu COMMAND [OPTIONS] [ARGUMENTS] "
                                 " (softpmu --help lists them)\n";

static void print_manual(FILE *out)
{
  size_t i;

  fputs("NAME\n"
        "    softpmu - the Intel performance-monitoring unit, as softpmu "
        "models it\n\n"
        "SYNOPSIS\n"
        "    softpmu COMMAND [--cpu PROFILE] [OPTIONS] [ARGUMENTS]\n"
        "    softpmu help [COMMAND]\n"
        "    softpmu --help | --version\n\n"
        "DESCRIPTION\n"
        "    Answers questions about the PMU of a modelled processor from the\n"
        "    register catalogue the library itself uses for every RDMSR and\n"
        "    WRMSR: what an MSR value means, how to build one, what CPUID\n"
        "    says, which MSRs exist; and runs scenario scripts against the\n"
        "    model, tracing what the PMU does. The processor is a preset or\n"
        "    a key=value profile given with --cpu; the default is\n"
        "    " CLI_DEFAULT_PROFILE
        " in every command. `softpmu show` reads the PMU "
        "of\n"
        "    this machine instead (its CPU is -C N, as in perf stat -C).\n"
        "    One meaning per option letter: -c is softpmu record's period, as\n"
        "    in perf; -c PROFILE, the former spelling of --cpu PROFILE, still\n"
        "    works elsewhere, with a warning.\n\n"
        "COMMANDS\n",
        out);
  for (i = 0; i < NCOMMANDS; i++)
    fprintf(out, "    %-8s %s\n", commands[i]->name, commands[i]->summary);
  fputs("\n    `softpmu COMMAND --help` or `softpmu help COMMAND` prints a\n"
        "    command's manual.\n\n"
        "OPTIONS\n"
        "    -h, --help\n"
        "        Print this manual and exit.\n\n"
        "    -V, --version\n"
        "        Print the library version and exit.\n\n"
        "EXIT STATUS\n"
        "    0   Success.\n"
        "    1   A check asked for failed (decode --strict, an expect of a\n"
        "        run script).\n"
        "    2   Bad usage or bad input (an unknown command, MSR, field or\n"
        "        profile; a malformed number), or the output could not be\n"
        "        written. Messages go to standard error, prefixed\n"
        "        \"softpmu: \".\n\n"
        "EXAMPLES\n"
        "    softpmu decode IA32_PERF_GLOBAL_STATUS 0x8000000400000001\n"
        "    softpmu encode --cpu skylake IA32_PERFEVTSEL0 event=0xc0 en=1 "
        "usr=1\n"
        "    softpmu cpuid --cpu icelake\n"
        "    softpmu msrs --cpu core2 --fields\n"
        "    softpmu run " CLI_DOCDIR "/examples/scripts/pmi_freeze_v4.pmu\n"
        "    sudo softpmu show -C 0\n"
        "    softpmu stat -- ./prog\n"
        "    softpmu record -g -- ./prog && softpmu report\n"
        "    softpmu list cache\n",
        out);
}

static const struct cli_command *find_command(const char *name)
{
  size_t i;

  for (i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i]->name, name) == 0)
      return commands[i];
  return NULL;
}

static int unknown_command(const char *name)
{
  struct nearest nb;
  size_t i;

  cli_error("unknown command '%s'", name);
  nearest_init(&nb, name);
  for (i = 0; i < NCOMMANDS; i++)
    nearest_offer(&nb, commands[i]->name);
  cli_nearest_report(&nb);
  fputs(usage_line, stderr);
  return CLI_EXIT_USAGE;
}

static void write_manual(FILE *out, const void *unused)
{
  (void)unused;
  print_manual(out);
}

static void write_command_manual(FILE *out, const void *cmd)
{
  cli_command_write_manual(out, cmd);
}

/* softpmu help --roff [COMMAND] (not in the manual: the build makes the
 * man pages with it): softpmu(1) or softpmu-COMMAND(1), in roff. */
static int help_roff(int argc, char **argv)
{
  static const char *const see_commands[] = {
      "softpmu-decode",
      "softpmu-encode",
      "softpmu-cpuid",
      "softpmu-msrs",
      "softpmu-run",
      "softpmu-show",
      "softpmu-stat",
      "softpmu-record",
      "softpmu-report",
      "softpmu-list",
      NULL,
  };
  static const char *const see_top[] = {"softpmu", NULL};
  const struct cli_command *cmd;
  char page[64];

  if (argc < 2)
    return cli_man_write(stdout, "softpmu", write_manual, NULL, see_commands);
  cmd = find_command(argv[1]);
  if (!cmd)
    return unknown_command(argv[1]);
  snprintf(page, sizeof(page), "softpmu-%s", cmd->name);
  return cli_man_write(stdout, page, write_command_manual, cmd, see_top);
}

/* softpmu help [COMMAND] */
static int help(int argc, char **argv)
{
  const struct cli_command *cmd;

  if (argc >= 2 && strcmp(argv[1], "--roff") == 0)
    return help_roff(argc - 1, argv + 1);
  if (argc < 2) {
    print_manual(stdout);
    return CLI_EXIT_OK;
  }
  cmd = find_command(argv[1]);
  if (!cmd)
    return unknown_command(argv[1]);
  cli_command_manual(cmd);
  return CLI_EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
  const struct cli_command *cmd;

  if (argc < 2) {
    fputs(usage_line, stderr);
    return CLI_EXIT_USAGE;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    print_manual(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("softpmu %s\n", spmu_version_string());
    return CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "help") == 0)
    return help(argc - 1, argv + 1);
  cmd = find_command(argv[1]);
  if (!cmd)
    return unknown_command(argv[1]);
  if (cmd->main) /* it parses its own command line */
    return cmd->main(argc - 1, argv + 1);
  return cli_command_main(cmd, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
  int rc = dispatch(argc, argv);

  /* Output goes through stdio: a full disk or closed pipe shows up here. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    cli_error("cannot write the output: %s", strerror(errno));
    return CLI_EXIT_USAGE;
  }
  return rc;
}
