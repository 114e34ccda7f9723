/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints the 16 bytes a getrandom(2) call returns and the 16 bytes at
 * AT_RANDOM (the auxiliary vector's random bytes, System V x86-64 ABI
 * 3.4.3), in hex, one line each: "getrandom=..." and "at_random=...".
 * Freestanding (-nostdlib -static -ffreestanding): no libc draws random
 * bytes of its own before, so the getrandom call is the process's first. */
#define NR_WRITE 1
#define NR_EXIT 60
#define NR_GETRANDOM 318
#define AT_NULL_ 0
#define AT_RANDOM_ 25

static long sys3(long n, long a, long b, long c)
{
  long r;

  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c)
                   : "rcx", "r11", "memory");
  return r;
}

/* "name=" and n bytes in hex, a newline, into line: its length. */
static unsigned hex_line(char *line, const char *name, const unsigned char *b,
                         unsigned n)
{
  static const char digit[] = "0123456789abcdef";
  unsigned len = 0, i;

  while (*name)
    line[len++] = *name++;
  line[len++] = '=';
  for (i = 0; i < n; i++) {
    line[len++] = digit[b[i] >> 4];
    line[len++] = digit[b[i] & 15];
  }
  line[len++] = '\n';
  return len;
}

/* The auxiliary vector's AT_RANDOM: past argc, argv and envp. */
static const unsigned char *at_random(const unsigned long *sp)
{
  const unsigned long *p = sp + 1 + sp[0] + 1;

  while (*p)
    p++;
  for (p++; p[0] != AT_NULL_; p += 2)
    if (p[0] == AT_RANDOM_)
      return (const unsigned char *)p[1];
  return 0;
}

void start_c(const unsigned long *sp);
void start_c(const unsigned long *sp)
{
  unsigned char b[16];
  const unsigned char *r = at_random(sp);
  char line[64];
  int status = 1;

  if (r && sys3(NR_GETRANDOM, (long)b, sizeof(b), 0) == (long)sizeof(b)) {
    sys3(NR_WRITE, 1, (long)line, hex_line(line, "getrandom", b, 16));
    sys3(NR_WRITE, 1, (long)line, hex_line(line, "at_random", r, 16));
    status = 0;
  }
  sys3(NR_EXIT, status, 0, 0);
}

__asm__(".globl _start\n"
        "_start:\n"
        "  mov %rsp, %rdi\n"
        "  and $-16, %rsp\n"
        "  call start_c\n"
        "  hlt\n");
