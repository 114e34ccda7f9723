/* SPDX-License-Identifier: MIT */
/* softpmu command-line tool: what the subcommands share.
 *
 * Each subcommand is a `struct cli_command`: its manual (printed by
 * --help) and a run function. cli_command_main() does the common part:
 * options, --help, the argument count and the profile; the run function
 * only sees a parsed `struct cli_args`. The tool uses the public API only.
 */
#ifndef SOFTPMU_CLI_H
#define SOFTPMU_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <softpmu/error.h>
#include <softpmu/profile.h>
#include <softpmu/regs.h>

#include "nearest.h" /* util/: "did you mean" */
#include "text.h"    /* util/: numbers and words as typed */

#if defined(__GNUC__)
#define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CLI_PRINTF(fmt, args)
#endif

/* Exit status of every subcommand. */
enum cli_exit {
  CLI_EXIT_OK = 0,    /* done */
  CLI_EXIT_FAIL = 1,  /* a check asked for failed (decode --strict, an
                         expect of a run script) */
  CLI_EXIT_USAGE = 2, /* bad usage or input (nothing was done), or the
                         output could not be written */
};

/* The profile of every command when --cpu is not given, named in every
 * manual. (The library's SPMU_PROFILE_DEFAULT, the newest preset, is the
 * driver example's: it has every register layout softpmu models.) */
#define CLI_DEFAULT_PROFILE "skylake"

/* stat's and record's manual entry of --qemu PATH (perf/qemu_run.h). */
#define CLI_QEMU_OPTION_TEXT                                                   \
  "    --qemu PATH\n"                                                          \
  "        The qemu-x86_64 to run the program with (default:\n"                \
  "        $SOFTPMU_QEMU if set, else qemu-x86_64 found on PATH, unless\n"     \
  "        that is a static build, which cannot load plugins: then the\n"      \
  "        one softpmu's scripts/qemu-user built in\n"                         \
  "        ${XDG_CACHE_HOME:-$HOME/.cache}/softpmu/qemu-user-X.Y/build/,\n"    \
  "        10.0 before 7.2, or, with none, a refusal that names that\n"        \
  "        script, status 2). One given either way is asked first\n"           \
  "        whether it loads plugins (PATH -plugin PLUGIN --version); one\n"    \
  "        missing, not executable or refusing plugins (a static build)\n"     \
  "        is refused before the program runs, status 2.\n\n"                  \
  "    --vdso\n"                                                               \
  "        Start the program as QEMU 8.2 and later make it: with their\n"      \
  "        vDSO (glibc then calls clock_gettime, gettimeofday, time and\n"     \
  "        getcpu there, without a system call) and its environment in\n"      \
  "        order. By default softpmu's plugin withholds the vDSO and\n"        \
  "        gives the environment last variable first, as QEMU 7.2 does,\n"     \
  "        and, under QEMU 8.2 and later, starts its stack one page below\n"   \
  "        7.2's (two padding variables, taken out again), so that a\n"        \
  "        program retires the same instructions under each. No effect\n"      \
  "        under QEMU 7.2.\n\n"                                                \
  "    --seed N\n"                                                             \
  "        Give the program random bytes from N (0 to 2^64 - 1, decimal\n"     \
  "        or 0x hexadecimal), the same on every run and under every\n"        \
  "        QEMU: getrandom(2)'s (softpmu's plugin replaces the host's)\n"      \
  "        and AT_RANDOM's, RDRAND's and RDSEED's (QEMU's -seed N), in\n"      \
  "        every process, an execve'd program starting again from N.\n"        \
  "        A program that seeds itself from them then counts the same\n"       \
  "        every run (python3's hash seed); one that reads /dev/urandom\n"     \
  "        still gets the host's bytes there (perl's hash seed: set\n"         \
  "        PERL_HASH_SEED). Default: the host's randomness, as without\n"      \
  "        softpmu: a profiler does not make a program's keys\n"               \
  "        predictable unasked.\n\n"

/* -c PROFILE, the profile's former short spelling in every command but
 * record (whose -c is the period, as perf's): still taken, with this
 * warning on stderr. cmd is the command's name. */
void cli_warn_deprecated_c(const char *cmd);

/* Options beyond --cpu and --help that a subcommand may accept. */
enum cli_flag {
  CLI_FLAG_STRICT = 1u << 0, /* --strict */
  CLI_FLAG_FIELDS = 1u << 1, /* --fields */
  CLI_FLAG_JSON = 1u << 2,   /* --json */
  CLI_FLAG_SVG = 1u << 3,    /* --svg FILE */
  /* The command reads a CPU of this machine, named by -C N / --cpu-num N
   * (as perf stat -C): no profile is loaded, --cpu (a profile in every
   * command) is refused, and the manual describes -C in its options. */
  CLI_FLAG_CPU_NUMBER = 1u << 4,
  CLI_FLAG_FILES = 1u << 5, /* --msr-file PATH, --cpuid-file PATH */
  /* The command's own options text describes --cpu (what it takes
   * differs): the manual leaves the common text out. */
  CLI_FLAG_OWN_CPU_OPTION = 1u << 6,
  /* The command models no processor (report reads a file): its manual
   * has no --cpu. */
  CLI_FLAG_NO_PROFILE = 1u << 7,
  CLI_FLAG_ABSENT = 1u << 8, /* --absent */
};

struct cli_args {
  spmu_profile profile;   /* from --cpu, or CLI_DEFAULT_PROFILE (not loaded
                             with CLI_FLAG_CPU_NUMBER) */
  const char *cpu;        /* the --cpu argument; NULL if not given */
  const char *cpu_num;    /* the -C/--cpu-num argument; NULL if not given */
  unsigned flags;         /* enum cli_flag given */
  const char *svg;        /* the --svg argument; NULL if not given */
  const char *msr_file;   /* --msr-file; NULL if not given */
  const char *cpuid_file; /* --cpuid-file; NULL if not given */
  int argc;               /* the positional arguments */
  char **argv;
};

struct cli_command {
  const char *name;
  const char *summary;     /* NAME: one line */
  const char *synopsis;    /* what follows "softpmu NAME " */
  const char *description; /* DESCRIPTION, indented text */
  const char *options;     /* OPTIONS besides --cpu and --help, or NULL */
  const char *exit_status; /* EXIT STATUS */
  const char *examples;    /* EXAMPLES */
  unsigned flags;          /* enum cli_flag accepted */
  int min_args, max_args;  /* positional arguments; max_args < 0: any */
  int (*run)(const struct cli_args *a);
  /* A command that parses its own command line (stat, record, report:
   * their options end at the program's name or are their own), given
   * argv as typed, argv[0] its name, instead of cli_command_main and run.
   * Returns the exit status. */
  int (*main)(int argc, char **argv);
};

extern const struct cli_command cli_cmd_decode;
extern const struct cli_command cli_cmd_encode;
extern const struct cli_command cli_cmd_cpuid;
extern const struct cli_command cli_cmd_msrs;
extern const struct cli_command cli_cmd_run;
extern const struct cli_command cli_cmd_show;
extern const struct cli_command cli_cmd_stat;
extern const struct cli_command cli_cmd_record;
extern const struct cli_command cli_cmd_report;
extern const struct cli_command cli_cmd_list;

/* Parse options and arguments, handle --help, load the profile and run the
 * command. argv[0] is the command's name. Returns the exit status. */
int cli_command_main(const struct cli_command *cmd, int argc, char **argv);

/* The manual of a command, on stdout; cli_command_write_manual on out
 * (softpmu help --roff makes the man page of it). */
void cli_command_manual(const struct cli_command *cmd);
void cli_command_write_manual(FILE *out, const struct cli_command *cmd);

/* "softpmu: " + message + newline, on stderr. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* An error message, then the command's usage line; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
    CLI_PRINTF(2, 3);

/* A message of the profiler library (perf/session.h) for command cmd (a
 * const struct cli_command *): "softpmu: NAME: msg", then the command's
 * usage line when usage is true. */
void cli_say(const void *cmd, bool usage, const char *msg);

/* An option with its value attached, as perf (getopt) takes them: "-c1009"
 * (a short option and its value) or "--event=instructions" (a long one and
 * '='). When a is one and takes_value(option) says the option takes a
 * value, the option goes to opt (len bytes) and the value to *val. */
bool cli_attached_option(const char *a, bool (*takes_value)(const char *opt),
                         char *opt, size_t len, const char **val);

/* One command's view of the register catalogue: its profile and a handle
 * on it (regs.h), opened once per command invocation. */
struct cli_regs {
  const spmu_profile *p; /* kept by pointer: it must outlive the view */
  spmu_regview *view;
};

/* Open r on profile p: CLI_EXIT_OK, or the reason on stderr and
 * CLI_EXIT_USAGE. cli_regs_close frees it (also after a failure). */
int cli_regs_open(struct cli_regs *r, const spmu_profile *p);
void cli_regs_close(struct cli_regs *r);

/* The addresses of the profile's MSRs (spmu_msr_list, which works out
 * only which MSRs exist), ascending, in a malloc'ed array the caller
 * frees; NULL (after a message) if out of memory. */
uint32_t *cli_msr_addrs(const spmu_profile *p, size_t *n);

/* The set bits of mask as ranges, "21" or "8-31, 36-47" (truncated to
 * fit len). */
void cli_bits_text(uint64_t mask, char *buf, size_t len);

/* Find an MSR of the profile by name or number and describe it. On failure
 * the reason (with the nearest names for a misspelt one) is on stderr and
 * the result is CLI_EXIT_USAGE; else CLI_EXIT_OK. */
int cli_msr_resolve(const struct cli_regs *r, const char *arg,
                    spmu_msr_info *out);

/* The fields of m that are not zero in value, one line each: bit range,
 * name, value (1 for a single bit, else hex) and meaning, indented by
 * row_indent blanks ("no field is set" when none is and none_line is
 * true); then, indented by note_indent, a line for set bits reserved in
 * r's profile and one for set bits in no field. Returns true if reserved bits
 * are set. */
bool cli_print_fields(const struct cli_regs *r, const spmu_msr_info *m,
                      uint64_t value, int row_indent, int note_indent,
                      bool none_line);

/* "EVENT=0xc0, USR, EN": the non-zero fields of value (bits in no field are
 * not listed), truncated to fit len; "" if none. */
void cli_fields_text(const struct cli_regs *r, const spmu_msr_info *m,
                     uint64_t value, char *buf, size_t len);

/* s as a JSON string, quotes included, on stdout. */
void cli_json_string(const char *s);
/* "A, B, C" printed as a JSON array of strings. */
void cli_json_list(const char *text);
/* Field `name` (case-insensitive) of MSR m in profile p: true and *out. */
bool cli_field_by_name(const spmu_profile *p, const spmu_msr_info *m,
                       const char *name, spmu_field_info *out);

/* "core2, nehalem": the presets in which arg (an MSR name or number) names
 * a present MSR, truncated to fit len; "" if none. */
void cli_presets_with(const char *arg, char *buf, size_t len);
/* "core2, nehalem": the presets p for which has(p, ctx) holds. */
void cli_presets_where(bool (*has)(const spmu_profile *p, const void *ctx),
                       const void *ctx, char *buf, size_t len);

/* The architectural events, CPUID.0AH:EBX bit i = cli_arch_events[i]
 * (SDM Vol. 3B Table 18-1; arch_events.c). */
struct cli_arch_event {
  const char *sdm;  /* "UnHalted Core Cycles" */
  const char *name; /* "cycles": the name `softpmu run` scripts use */
  uint8_t event, umask;
  int fixed; /* the fixed counter that counts it (events.h), -1 if none */
};
extern const struct cli_arch_event cli_arch_events[];
extern const size_t cli_narch_events;

/* "softpmu: did you mean A, B or C?" on stderr (nearest.h); nothing if none
 * is near. */
void cli_nearest_report(const struct nearest *nb);

#endif
