/* SPDX-License-Identifier: MIT */
/* softpmu report: addresses to symbols and source lines (symbols.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "symbols.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One ELF file, opened once. */
struct sym_file {
  char *path;
  Dwfl *dwfl;
  Dwfl_Module *mod;
  GElf_Addr bias;
  GElf_Phdr *load; /* its PT_LOAD segments */
  size_t nload;
};

/* The callbacks every file's Dwfl keeps a pointer to (so they live here,
 * as long as the files), with elfutils' default debuginfo search path
 * (NULL). */
struct symbols {
  Dwfl_Callbacks callbacks;
  char *debuginfo_path;
  struct sym_file *files;
  size_t n, cap;
};

struct symbols *symbols_new(void)
{
  struct symbols *s;

  elf_version(EV_CURRENT);
  s = calloc(1, sizeof(*s));
  if (!s)
    return NULL;
  s->callbacks = (Dwfl_Callbacks){
      .find_elf = dwfl_build_id_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = dwfl_offline_section_address,
      .debuginfo_path = &s->debuginfo_path,
  };
  return s;
}

void symbols_free(struct symbols *s)
{
  size_t i;

  if (!s)
    return;
  for (i = 0; i < s->n; i++) {
    if (s->files[i].dwfl)
      dwfl_end(s->files[i].dwfl);
    free(s->files[i].load);
    free(s->files[i].path);
  }
  free(s->files);
  free(s);
}

/* The PT_LOAD program headers of the module's ELF file. */
static bool sym_read_loads(struct sym_file *f)
{
  Elf *elf = dwfl_module_getelf(f->mod, &f->bias);
  size_t n, i;

  if (!elf || elf_getphdrnum(elf, &n) != 0)
    return false;
  f->load = calloc(n ? n : 1, sizeof(*f->load));
  if (!f->load)
    return false;
  for (i = 0; i < n; i++) {
    GElf_Phdr ph;

    if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
      f->load[f->nload++] = ph;
  }
  return f->nload > 0;
}

static void sym_open(const struct symbols *s, struct sym_file *f)
{
  int fd = open(f->path, O_RDONLY);

  if (fd < 0)
    return;
  f->dwfl = dwfl_begin(&s->callbacks);
  if (!f->dwfl) {
    close(fd);
    return;
  }
  /* dwfl takes the descriptor (and closes it) on success. */
  f->mod = dwfl_report_offline(f->dwfl, f->path, f->path, fd);
  if (!f->mod)
    close(fd);
  dwfl_report_end(f->dwfl, NULL, NULL);
  if (f->mod && !sym_read_loads(f))
    f->mod = NULL;
}

static struct sym_file *sym_file(struct symbols *s, const char *path)
{
  struct sym_file *f;
  size_t i;

  for (i = 0; i < s->n; i++)
    if (strcmp(s->files[i].path, path) == 0)
      return &s->files[i];
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 8;
    struct sym_file *nf = realloc(s->files, cap * sizeof(*nf));

    if (!nf)
      return NULL;
    s->files = nf;
    s->cap = cap;
  }
  f = &s->files[s->n];
  memset(f, 0, sizeof(*f));
  if (!(f->path = strdup(path)))
    return NULL;
  s->n++;
  sym_open(s, f);
  return f;
}

/* The ELF address of file offset off: in the PT_LOAD holding it. */
static bool sym_vaddr(const struct sym_file *f, uint64_t off, uint64_t *va)
{
  size_t i;

  for (i = 0; i < f->nload; i++) {
    const GElf_Phdr *ph = &f->load[i];

    if (off >= ph->p_offset && off - ph->p_offset < ph->p_memsz) {
      *va = off - ph->p_offset + ph->p_vaddr;
      return true;
    }
  }
  return false;
}

bool symbols_resolve(struct symbols *s, const char *path, uint64_t start,
                     uint64_t pgoff, uint64_t ip, struct sym_info *out)
{
  struct sym_file *f = sym_file(s, path);
  GElf_Off off = 0;
  GElf_Sym sym;
  Dwfl_Line *line;
  uint64_t va;

  memset(out, 0, sizeof(*out));
  if (!f || !f->mod || ip < start || !sym_vaddr(f, ip - start + pgoff, &va))
    return false;
  out->offset = va;
  out->name =
      dwfl_module_addrinfo(f->mod, va + f->bias, &off, &sym, NULL, NULL, NULL);
  if (out->name)
    out->offset = off;
  line = dwfl_module_getsrc(f->mod, va + f->bias);
  if (line)
    out->file = dwfl_lineinfo(line, NULL, &out->line, NULL, NULL, NULL);
  return true;
}

/* NT_GNU_BUILD_ID in the notes of the segment ph. */
static size_t symbols_note_build_id(Elf *elf, const GElf_Phdr *ph,
                                    unsigned char *id, size_t cap)
{
  Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
                                     ELF_T_NHDR);
  GElf_Nhdr nh;
  size_t off = 0, next, name, desc;

  while (d && (next = gelf_getnote(d, off, &nh, &name, &desc)) > 0) {
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
        memcmp((const char *)d->d_buf + name, ELF_NOTE_GNU,
               sizeof(ELF_NOTE_GNU)) == 0) {
      size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;

      memcpy(id, (const char *)d->d_buf + desc, n);
      return nh.n_descsz <= cap ? nh.n_descsz : 0;
    }
    off = next;
  }
  return 0;
}

size_t symbols_build_id(const char *path, unsigned char *id, size_t cap)
{
  int fd;
  Elf *elf;
  size_t n = 0, nph = 0, i;

  elf_version(EV_CURRENT);
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return 0;
  elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (elf && elf_getphdrnum(elf, &nph) == 0)
    for (i = 0; i < nph && n == 0; i++) {
      GElf_Phdr ph;

      if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE)
        n = symbols_note_build_id(elf, &ph, id, cap);
    }
  if (elf)
    elf_end(elf);
  close(fd);
  return n;
}
