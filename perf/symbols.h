/* SPDX-License-Identifier: MIT */
/* softpmu report: an address of a mapped file to its symbol and source
 * line, through elfutils (libelf for the program headers, libdwfl for the
 * symbol tables and DWARF line tables, separate debug files included).
 *
 * An address in a mapping (start, pgoff, file) is first a file offset
 * (ip - start + pgoff), then the address the ELF file gives that offset
 * in the PT_LOAD segment holding it: the address its symbols use.
 * softpmu record reads a file's build id here too (libelf), for
 * perf.data's HEADER_BUILD_ID. */
#ifndef SOFTPMU_SYMBOLS_H
#define SOFTPMU_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;

struct sym_info {
  const char *name; /* the symbol, NULL if none covers the address */
  uint64_t offset;  /* from the symbol's start; else the ELF address */
  const char *file; /* source file, NULL if no line information */
  int line;
};

struct symbols *symbols_new(void);
void symbols_free(struct symbols *s);

/* Resolve ip, in the mapping of path at start with file offset pgoff:
 * true with *out filled (its strings live as long as s), false when path
 * cannot be read as ELF or no segment holds the address. */
bool symbols_resolve(struct symbols *s, const char *path, uint64_t start,
                     uint64_t pgoff, uint64_t ip, struct sym_info *out);

/* The build id of the ELF file at path (its NT_GNU_BUILD_ID note, in a
 * PT_NOTE segment, as the linker writes it): its length, at most cap
 * bytes copied to id; 0 when the file has none or cannot be read. */
size_t symbols_build_id(const char *path, unsigned char *id, size_t cap);

#endif
