/* SPDX-License-Identifier: MIT */
/* A call-heavy workload for bench/bench_stat.sh: naive recursion (calls
 * and returns dominate). Prints the result so it cannot be optimised
 * away. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long fib(unsigned n)
{
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 40;

  printf("%lu\n", fib(n));
  return 0;
}
