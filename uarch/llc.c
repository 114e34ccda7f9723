/* SPDX-License-Identifier: MIT */
/* The part configurations' last-level cache: how a miss chooses the line
 * it evicts and where it puts the new one. Only an L2 miss reaches it;
 * the cachegrind configuration never (its LL is cache.c's true LRU).
 *
 * Rules (stated model choices: Intel does not document its LLC policies):
 *   - a hit moves the line to the most-recently-used (MRU) position, as in
 *     cache.c;
 *   - adaptive insertion (llc_adaptive; Qureshi et al., "Adaptive
 *     Insertion Policies for High Performance Caching", ISCA 2007): a
 *     miss inserts its line at MRU (the LRU policy) or at the LRU position
 *     (the bimodal policy, BIP: the first and every 64th of a set's BIP
 *     insertions go to MRU instead, counted per set, no random numbers;
 *     the paper's 1 in 32 keeps nothing of a walk repeated over more than
 *     about 32 x ways lines a set, as kvm-unit-tests `pmu`'s 64 MB over
 *     Sapphire Rapids' 1.875 MB slice, where each MRU-inserted line is
 *     pushed out before the walk returns to it; 1 in 64 keeps some). Set
 * dueling picks the policy: of each run of sets / 32 consecutive sets the first
 *     always uses LRU, the last always BIP (leader sets); a 10-bit
 *     saturating selector, 512 at the start, goes up on a miss in an LRU
 *     leader and down on a miss in a BIP leader; the other sets follow
 *     BIP while it is 512 or more, else LRU. A line that fills an empty
 *     way goes to MRU under either policy (nothing is evicted). So a
 *     stream larger than the LLC replaces mostly one way of each set and
 *     leaves the lines in the other ways, and a walk repeated over more
 *     lines than the LLC holds hits on the lines kept; a walk over new
 *     lines still misses on every line;
 *   - an inclusive LLC does not evict a line that L1I, L1D or L2 holds
 *     while another can go (query-based selection, Jaleel et al.,
 *     "Achieving Non-Inclusive Cache Performance with Inclusive Caches",
 *     MICRO 2010): the LRU candidate held above is moved to MRU and the
 *     next is asked, at most ways - 1 times; the last one asked goes even
 *     if held, and is back-invalidated (hier.c). Lines in constant use in
 *     L1 (a loop's code, which never reaches the LLC while it hits L1I)
 *     stay, and so does inclusion. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* BIP's MRU insertions: one in this many. */
#define LLC_BIP_EVERY 64u
/* The selector: 10 bits, its middle the start and the threshold. */
#define LLC_PSEL_MAX 1023u
#define LLC_PSEL_MID 512u
/* Leader sets of each policy (fewer when the cache has under 64 sets). */
#define LLC_LEADERS 32u

int spmu_llc_init(spmu_llc *l, const spmu_cache *c, int adaptive)
{
  uint32_t leaders = c->sets >= 2 * LLC_LEADERS ? LLC_LEADERS : c->sets / 2;

  l->adaptive = adaptive && leaders > 0;
  l->run = l->adaptive ? c->sets / leaders : 1;
  l->sets = c->sets;
  l->bip = NULL;
  if (l->adaptive) {
    l->bip = malloc(l->sets);
    if (!l->bip)
      return -1;
  }
  spmu_llc_clear(l);
  return 0;
}

void spmu_llc_fini(spmu_llc *l)
{
  free(l->bip);
  l->bip = NULL;
}

void spmu_llc_clear(spmu_llc *l)
{
  l->psel = LLC_PSEL_MID;
  if (l->bip)
    memset(l->bip, 0, l->sets);
}

/* Does a cache above the LLC hold block? (No change of order.) */
static int held_above(const spmu_hier *h, uint64_t block)
{
  return spmu_cache_holds(&h->l1i, block) || spmu_cache_holds(&h->l1d, block) ||
         (h->has_l2 && spmu_cache_holds(&h->l2, block));
}

/* The inclusive LLC's choice of victim: the LRU way of set ends up
 * holding the line to evict (query-based selection above). */
static void choose_victim(const spmu_hier *h, uint64_t *set, uint32_t ways)
{
  for (uint32_t tries = 1; tries < ways; tries++) {
    uint64_t cand = set[ways - 1];

    if (cand == h->llc.empty || !held_above(h, cand))
      return;
    for (uint32_t i = ways - 1; i > 0; i--)
      set[i] = set[i - 1];
    set[0] = cand;
  }
}

/* The policy of a miss in set s: 1 for BIP, 0 for LRU. Set dueling; a
 * leader's miss trains the selector. */
static int policy_bip(spmu_llc *l, uint64_t s)
{
  uint64_t pos = s % l->run;

  if (!l->adaptive)
    return 0;
  if (pos == 0) {
    if (l->psel < LLC_PSEL_MAX)
      l->psel++;
    return 0;
  }
  if (pos == l->run - 1) {
    if (l->psel > 0)
      l->psel--;
    return 1;
  }
  return l->psel >= LLC_PSEL_MID;
}

/* A BIP insertion into set s: 1 at the LRU position, 0 at MRU (the set's
 * first and every 64th). */
static int bip_at_lru(spmu_llc *l, uint64_t s)
{
  uint8_t k = l->bip[s];

  l->bip[s] = (uint8_t)((k + 1u) % LLC_BIP_EVERY);
  return k != 0;
}

int spmu_llc_ref(spmu_hier *h, uint64_t block, uint64_t *victim)
{
  spmu_cache *c = &h->llc;
  uint64_t s = block & (c->sets - 1);
  uint64_t *set = c->tags + (size_t)s * c->ways;
  uint32_t last = c->ways - 1;
  int bip;

  if (!h->llc_policy.adaptive && !h->inclusive)
    return spmu_cache_ref(c, block, victim);
  if (spmu_cache_hit(c, block))
    return 0;
  bip = policy_bip(&h->llc_policy, s);
  if (set[last] != c->empty) {
    if (h->inclusive)
      choose_victim(h, set, c->ways);
    /* BIP: at the LRU position, in the victim's way, but the set's first
     * and every 64th. */
    if (bip && bip_at_lru(&h->llc_policy, s)) {
      *victim = set[last];
      set[last] = block;
      return 1;
    }
  }
  *victim = set[last];
  for (uint32_t i = last; i > 0; i--)
    set[i] = set[i - 1];
  set[0] = block;
  return 1;
}
