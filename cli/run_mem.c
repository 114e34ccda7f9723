/* SPDX-License-Identifier: MIT */
/* softpmu run: guest memory. The script's memory windows (`memory`,
 * `poke`, `expect mem`) and the machine state of each logical processor
 * (`state`), which the model reaches through the host's read_mem,
 * write_mem and machine_state. The bottom layer of run.h: it calls only
 * the public API.
 */
#include <stdlib.h>
#include <string.h>

#include <softpmu/events.h>

#include "run.h"

bool run_mem_init(struct guest *g, const struct script *s)
{
  size_t i;

  if (!s->nwindows)
    return true;
  g->win = calloc(s->nwindows, sizeof(*g->win));
  if (!g->win)
    return false;
  for (i = 0; i < s->nwindows; i++) {
    g->win[i].base = s->windows[i].base;
    g->win[i].size = s->windows[i].size;
    g->win[i].data = calloc(1, (size_t)s->windows[i].size);
    if (!g->win[i].data)
      return false;
    g->nwin++;
  }
  return true;
}

void run_mem_free(struct guest *g)
{
  size_t i;

  for (i = 0; i < g->nwin; i++)
    free(g->win[i].data);
  free(g->win);
  g->win = NULL;
  g->nwin = 0;
}

void run_mem_map(struct guest *g, uint64_t base)
{
  size_t i;

  for (i = 0; i < g->nwin; i++)
    if (g->win[i].base == base)
      g->win[i].mapped = true;
}

struct window *run_mem_window(const struct guest *g, uint64_t la, size_t len)
{
  size_t i;

  for (i = 0; i < g->nwin; i++) {
    struct window *w = &g->win[i];
    if (w->mapped && la >= w->base && len <= w->size &&
        la - w->base <= w->size - len)
      return w;
  }
  return NULL;
}

bool run_mem_peek(const struct guest *g, uint64_t la, unsigned len, uint64_t *v)
{
  const struct window *w = run_mem_window(g, la, len);
  unsigned i;

  *v = 0;
  if (!w)
    return false;
  for (i = 0; i < len; i++)
    *v |= (uint64_t)w->data[la - w->base + i] << (8 * i);
  return true;
}

int run_mem_read(const struct guest *g, uint64_t la, void *buf, size_t len)
{
  const struct window *w = run_mem_window(g, la, len);

  if (!w)
    return -1;
  memcpy(buf, w->data + (la - w->base), len);
  return 0;
}

int run_mem_write(struct guest *g, uint64_t la, const void *buf, size_t len)
{
  struct window *w = run_mem_window(g, la, len);

  if (!w)
    return -1;
  memcpy(w->data + (la - w->base), buf, len);
  return 0;
}

void run_mem_host_state(void *opaque, spmu_lp *lp, spmu_machine_state *m)
{
  const struct run *r = opaque;
  const struct script_state *s = &r->mem.state[spmu_lp_index(lp)];

  m->ip = s->ip;
  m->next_ip = s->next_ip;
  m->rflags = s->rflags;
  m->tsc = s->tsc;
  memcpy(m->gpr, s->gpr, sizeof m->gpr);
}

int run_mem_host_read(void *opaque, spmu_lp *lp, uint64_t la, void *buf,
                      size_t len)
{
  const struct run *r = opaque;

  (void)lp;
  return run_mem_read(&r->mem, la, buf, len);
}

int run_mem_host_write(void *opaque, spmu_lp *lp, uint64_t la, const void *buf,
                       size_t len)
{
  struct run *r = opaque;

  (void)lp;
  return run_mem_write(&r->mem, la, buf, len);
}
