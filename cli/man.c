/* SPDX-License-Identifier: MIT */
/* softpmu help --roff: a manual's text, as --help prints it, as a man page.
 *
 * The text's layout (cli_command_write_manual and main.c's manual) is
 * what the conversion reads:
 *   - a line at column 0 is a section heading (NAME, SYNOPSIS, ...);
 *   - the text is indented by 4 (BASE); blank lines end paragraphs;
 *   - lines at BASE followed by deeper lines are tags and their body (an
 *     option and what it does): .TP, with .TQ for each further tag line
 *     and for deeper lines before the body's own indentation;
 *   - a line at BASE of the form "TAG   text" (two or more blanks) is a
 *     tag with its text on the same line (exit statuses, commands);
 *   - a body whose lines share one indentation and hold no run of blanks
 *     is filled; any other (a table, a nested list) is kept as laid out
 *     (.nf);
 *   - SYNOPSIS is kept as laid out; in EXAMPLES each line at BASE is a
 *     command, kept, and deeper lines are its explanation, filled.
 * Backslashes, hyphens (as \-, so options copy as typed) and a leading
 * '.' or '\'' are escaped. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "man.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <softpmu/version.h>

#include "cli.h"
#include "cli_dirs.h"

enum { BASE = 4 };

struct man_line {
  int indent;       /* leading blanks; -1 for a blank line */
  const char *text; /* after the blanks, NUL-terminated */
};

/* ---- escaping ------------------------------------------------------------ */

static void put_escaped(FILE *out, const char *s, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++) {
    if (s[i] == '\\')
      fputs("\\e", out);
    else if (s[i] == '-')
      fputs("\\-", out);
    else
      fputc(s[i], out);
  }
}

/* A text line: s escaped, guarded against reading as a request. */
static void put_line(FILE *out, const char *s, size_t len)
{
  if (len > 0 && (s[0] == '.' || s[0] == '\''))
    fputs("\\&", out);
  put_escaped(out, s, len);
  fputc('\n', out);
}

/* A tag of .TP or .TQ, in bold when bold. */
static void put_tag(FILE *out, const char *macro, const char *s, size_t len,
                    bool bold)
{
  fprintf(out, "%s\n", macro);
  if (bold)
    fputs("\\fB", out);
  else if (len > 0 && (s[0] == '.' || s[0] == '\''))
    fputs("\\&", out);
  put_escaped(out, s, len);
  fputs(bold ? "\\fR\n" : "\n", out);
}

/* ---- reading the text -------------------------------------------------- */

/* The lines of text (changed in place: each '\n' becomes NUL), in a
 * malloc'ed array; NULL if out of memory. */
static struct man_line *split_lines(char *text, size_t *n)
{
  size_t cap = 1, i = 0;
  struct man_line *l;
  char *p;

  for (p = text; *p; p++)
    cap += *p == '\n';
  l = calloc(cap, sizeof(*l));
  if (!l)
    return NULL;
  for (p = text; *p; i++) {
    char *end = strchr(p, '\n');
    int k = 0;

    if (end)
      *end = '\0';
    while (p[k] == ' ')
      k++;
    l[i].indent = p[k] ? k : -1;
    l[i].text = p + k;
    p = end ? end + 1 : p + strlen(p);
  }
  *n = i;
  return l;
}

/* "TAG   text": true, with the tag's length and where the text starts. */
static bool hanging(const char *s, size_t *tag_len, const char **rest)
{
  size_t t = strcspn(s, " ");
  size_t gap = strspn(s + t, " ");

  if (t == 0 || gap < 2 || s[t + gap] == '\0')
    return false;
  *tag_len = t;
  *rest = s + t + gap;
  return true;
}

/* The number of lines from l[0] on (up to n) that are not blank and whose
 * indentation is base (deeper false) or more than base (deeper true). */
static size_t run(const struct man_line *l, size_t n, int base, bool deeper)
{
  size_t i = 0;

  while (i < n && l[i].indent >= 0 &&
         (deeper ? l[i].indent > base : l[i].indent == base))
    i++;
  return i;
}

/* ---- writing the sections ---------------------------------------------- */

/* Lines kept as laid out, indented relative to the least indented. */
static void put_nofill(FILE *out, const struct man_line *l, size_t n)
{
  int least = l[0].indent;
  size_t i;

  for (i = 1; i < n; i++)
    if (l[i].indent < least)
      least = l[i].indent;
  fputs(".nf\n", out);
  for (i = 0; i < n; i++) {
    fprintf(out, "%*s", l[i].indent - least, "");
    put_line(out, l[i].text, strlen(l[i].text));
  }
  fputs(".fi\n", out);
}

/* A body: filled when every line has the same indentation and no run of
 * blanks (which would be a column of a table), else kept as laid out. */
static void put_body(FILE *out, const struct man_line *l, size_t n)
{
  bool fill = true;
  size_t i;

  for (i = 0; i < n && fill; i++)
    fill = l[i].indent == l[0].indent && !strstr(l[i].text, "  ");
  if (!fill) {
    put_nofill(out, l, n);
    return;
  }
  for (i = 0; i < n; i++)
    put_line(out, l[i].text, strlen(l[i].text));
}

/* Tag lines l[0..tags-1] (at BASE) and the deeper lines after them. */
static size_t put_tagged(FILE *out, const struct man_line *l, size_t n,
                         size_t tags, bool bold)
{
  size_t deep = run(l + tags, n - tags, BASE, true), i, cont = 0;
  int least = 0;

  for (i = 0; i < tags; i++)
    put_tag(out, i ? ".TQ" : ".TP", l[i].text, strlen(l[i].text), bold);
  /* Deeper lines before the body's indentation continue the tag. */
  for (i = 0; i < deep; i++)
    if (i == 0 || l[tags + i].indent < least)
      least = l[tags + i].indent;
  while (cont < deep && l[tags + cont].indent > least) {
    const char *s = l[tags + cont].text;
    put_tag(out, ".TQ", s, strlen(s), bold);
    cont++;
  }
  if (deep > cont)
    put_body(out, l + tags + cont, deep - cont);
  return tags + deep;
}

/* A list of "TAG   text" lines, each with its deeper lines, from l[0]
 * (hanging): one item each, without space between them, the text in a
 * column past the longest tag. Returns the number of lines taken. */
static size_t put_hanging(FILE *out, const struct man_line *l, size_t n,
                          bool bold)
{
  size_t i, widest = 0, tag_len;
  const char *rest;

  for (i = 0; i < n && l[i].indent >= BASE; i++)
    if (l[i].indent == BASE && hanging(l[i].text, &tag_len, &rest) &&
        tag_len > widest)
      widest = tag_len;
  fputs(".PD 0\n", out);
  i = 0;
  while (i < n && l[i].indent == BASE && hanging(l[i].text, &tag_len, &rest)) {
    size_t deep;

    fprintf(out, ".TP %zu\n", widest + 3);
    if (bold)
      fputs("\\fB", out);
    put_escaped(out, l[i].text, tag_len);
    fputs(bold ? "\\fR\n" : "\n", out);
    put_line(out, rest, strlen(rest));
    i++;
    deep = run(l + i, n - i, BASE, true);
    if (deep)
      put_body(out, l + i, deep);
    i += deep;
  }
  fputs(".PD\n", out);
  return i;
}

/* The lines of a section that is text, options or a list. */
static void put_text_section(FILE *out, const struct man_line *l, size_t n,
                             bool bold_tags)
{
  size_t i = 0;

  while (i < n) {
    size_t tag_len, base, deep;
    const char *rest;

    if (l[i].indent < 0) {
      i++;
      continue;
    }
    if (l[i].indent > BASE) { /* deeper text under no tag */
      deep = run(l + i, n - i, BASE, true);
      fputs(".RS\n", out);
      put_body(out, l + i, deep);
      fputs(".RE\n", out);
      i += deep;
      continue;
    }
    if (hanging(l[i].text, &tag_len, &rest)) {
      i += put_hanging(out, l + i, n - i, bold_tags);
      continue;
    }
    for (base = 0; i + base < n && l[i + base].indent == BASE; base++)
      if (hanging(l[i + base].text, &tag_len, &rest))
        break;
    if (i + base < n && l[i + base].indent > BASE) {
      i += put_tagged(out, l + i, n - i, base, bold_tags);
      continue;
    }
    fputs(".PP\n", out);
    put_body(out, l + i, base);
    i += base;
  }
}

/* EXAMPLES: each line at BASE a command, kept; deeper lines explain it. */
static void put_examples(FILE *out, const struct man_line *l, size_t n)
{
  size_t i = 0;

  while (i < n) {
    size_t k;

    if (l[i].indent < 0) {
      i++;
      continue;
    }
    k = run(l + i, n - i, BASE, l[i].indent > BASE);
    if (l[i].indent > BASE) {
      fputs(".RS 4\n", out);
      put_body(out, l + i, k);
      fputs(".RE\n", out);
    } else {
      fputs(".PP\n", out);
      put_nofill(out, l + i, k);
    }
    i += k;
  }
}

/* NAME: "softpmu stat - what it does" becomes "softpmu-stat \- ...". */
static void put_name(FILE *out, const char *page, const struct man_line *l,
                     size_t n)
{
  const char *what = NULL;
  size_t i;

  for (i = 0; i < n && !what; i++)
    if (l[i].indent >= 0 && (what = strstr(l[i].text, " - ")) != NULL)
      what += 3;
  put_escaped(out, page, strlen(page));
  fputs(" \\- ", out);
  if (what)
    put_escaped(out, what, strlen(what));
  fputc('\n', out);
}

static void put_section(FILE *out, const char *page, const char *title,
                        const struct man_line *l, size_t n)
{
  fprintf(out, strchr(title, ' ') ? ".SH \"%s\"\n" : ".SH %s\n", title);
  if (strcmp(title, "NAME") == 0)
    put_name(out, page, l, n);
  else if (strcmp(title, "SYNOPSIS") == 0)
    put_nofill(out, l, run(l, n, 0, true));
  else if (strcmp(title, "EXAMPLES") == 0)
    put_examples(out, l, n);
  else
    put_text_section(out, l, n,
                     strcmp(title, "OPTIONS") == 0 ||
                         strcmp(title, "COMMANDS") == 0);
}

static void put_see_also(FILE *out, const char *const *see_also)
{
  size_t i;

  fputs(".SH \"SEE ALSO\"\n", out);
  for (i = 0; see_also[i]; i++) {
    fputs(".BR ", out);
    put_escaped(out, see_also[i], strlen(see_also[i]));
    fputs(see_also[i + 1] ? " (1),\n" : " (1)\n", out);
  }
  fputs(".PP\nThe documentation in\n", out);
  put_line(out, CLI_DOCDIR, strlen(CLI_DOCDIR));
  fputs("(README.md first).\n", out);
}

static void put_page(FILE *out, const char *page, const struct man_line *l,
                     size_t n, const char *const *see_also)
{
  size_t i = 0;
  const char *p;

  fputs(".\\\" The text of softpmu --help, by softpmu help --roff.\n", out);
  fputs(".TH ", out);
  for (p = page; *p; p++)
    if (*p == '-')
      fputs("\\-", out);
    else
      fputc(toupper((unsigned char)*p), out);
  fprintf(out, " 1 \"\" \"softpmu %s\" \"softpmu manual\"\n",
          spmu_version_string());
  fputs(".ad l\n.nh\n", out);
  while (i < n) {
    size_t start;

    if (l[i].indent != 0) {
      i++;
      continue;
    }
    start = ++i;
    while (i < n && l[i].indent != 0)
      i++;
    put_section(out, page, l[start - 1].text, l + start, i - start);
  }
  put_see_also(out, see_also);
}

int cli_man_write(FILE *out, const char *page, cli_man_print_fn *print,
                  const void *arg, const char *const *see_also)
{
  char *text = NULL;
  size_t len = 0, n = 0;
  struct man_line *l = NULL;
  FILE *m = open_memstream(&text, &len);

  if (m) {
    print(m, arg);
    if (fclose(m) == 0)
      l = split_lines(text, &n);
  }
  if (!l) {
    free(text);
    cli_error("help --roff: out of memory");
    return CLI_EXIT_USAGE;
  }
  put_page(out, page, l, n, see_also);
  free(l);
  free(text);
  return CLI_EXIT_OK;
}
