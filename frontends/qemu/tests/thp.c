/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A libc program with mappings the host kernel would put at a 2 MiB
 * boundary for transparent huge pages (test_qemu10.sh): the file argv[1]
 * (2 MiB or more, of digits and newlines) mapped whole, then a 4 MiB
 * anonymous block and a 1 MiB one, the latter moved to 8 MiB (mremap),
 * and a System V shared memory segment of 4 MiB (shmat; 0 where System V
 * IPC is not available); copies from the file into the blocks and
 * between them, strlen of each copy (memmove picks its direction by
 * comparing the two addresses, glibc's strlen checks its address's page
 * offset), and the addresses printed. Under QEMU 10 the plugin places
 * each where QEMU 7.2 does, after the last (frontends/qemu/layout.c): the
 * same counts and output under both. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIG (4 << 20)
#define SMALL (1 << 20)
#define MOVED (8 << 20)
#define ROUNDS 200

static void *map(size_t len, int fd)
{
  return mmap(NULL, len, fd < 0 ? PROT_READ | PROT_WRITE : PROT_READ,
              fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_PRIVATE, fd, 0);
}

/* Strings copied from file (len bytes) into big and small, measured. */
static size_t copy_and_measure(const char *file, size_t len, char *big,
                               char *small)
{
  size_t i, total = 0, from, to, end;

  for (i = 0; i < ROUNDS; i++) {
    from = (i * 40961) % (len - 4096);
    to = (i * 8191) % (BIG - 4096);
    end = 1000 + i % 500;
    memmove(big + to, file + from, 2000);
    big[to + end] = '\0';
    total += strlen(big + to + i % 7);
    memmove(small + i % 3000, big + to, 1500);
    total += strlen(small + i % 3000 + i % 5);
    memmove(big + to + 1, small + i % 64, 700);
  }
  return total;
}

/* A System V segment of BIG bytes attached where the system chooses,
 * marked for removal, or NULL. */
static char *shared(void)
{
  int id = shmget(IPC_PRIVATE, BIG, IPC_CREAT | 0600);
  void *at = id >= 0 ? shmat(id, NULL, 0) : (void *)-1;

  if (id >= 0)
    shmctl(id, IPC_RMID, NULL);
  return at == (void *)-1 ? NULL : at;
}

int main(int argc, char **argv)
{
  struct stat st;
  int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
  char *file, *big, *small, *moved, *shm;
  size_t total;

  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (2 << 20))
    return 1;
  file = map((size_t)st.st_size, fd);
  big = map(BIG, -1);
  small = map(SMALL, -1);
  close(fd);
  if (file == MAP_FAILED || big == MAP_FAILED || small == MAP_FAILED)
    return 1;
  total = copy_and_measure(file, (size_t)st.st_size, big, small);
  moved = mremap(small, SMALL, MOVED, MREMAP_MAYMOVE);
  shm = shared();
  if (moved == MAP_FAILED)
    return 1;
  total += copy_and_measure(file, (size_t)st.st_size, big, moved);
  if (shm)
    total += copy_and_measure(file, (size_t)st.st_size, big, shm);
  printf("total=%zu file=%#lx big=%#lx small=%#lx moved=%#lx shm=%#lx "
         "file%%2M=%#lx big%%2M=%#lx\n",
         total, (unsigned long)file, (unsigned long)big, (unsigned long)small,
         (unsigned long)moved, (unsigned long)shm,
         (unsigned long)file % (2 << 20), (unsigned long)big % (2 << 20));
  return 0;
}
