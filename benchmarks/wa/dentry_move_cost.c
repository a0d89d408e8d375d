/*
 * What it costs to move a value file one level down, two ways: a hard link
 * into the new directory and, later, an unlink of the old name (what a
 * DeLSM compaction and the removal of its retired inputs do), or one
 * rename() (the alternative). Measured per value: CPU time of the calling
 * process (user + system, CLOCK_PROCESS_CPUTIME_ID), wall time, and, given
 * the file system's block device, the bytes written to it (sectors from
 * /sys/block/<dev>/stat after a syncfs, so the journal and the metadata
 * written home are in it).
 *
 *   cc -O2 -o dentry_move_cost benchmarks/wa/dentry_move_cost.c
 *   ./dentry_move_cost <empty dir> [values=200000] [value bytes=4096]
 *                      [block device, e.g. loop3] [rounds=3]
 *
 * Like a flush, values are written into source directories of 1,000 files
 * each, in random key order; like a compaction, they are then moved in key
 * order into target directories of 5,000 files each. Each round does both
 * methods on fresh files in fresh directories, link + unlink first, then
 * rename; the move is timed from the first call to the syncfs that makes
 * it durable (for link + unlink, both syncfs calls).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { kSourceFiles = 1000, kTargetFiles = 5000 };

static void die(const char* what, const char* path) {
  fprintf(stderr, "dentry_move_cost: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static double seconds(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) die("clock_gettime", "");
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Bytes written to the block device so far; -1 without a device. */
static long long device_bytes(const char* dev) {
  if (dev == NULL) return -1;
  char path[256];
  snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
  FILE* f = fopen(path, "r");
  if (f == NULL) die("open", path);
  unsigned long long v[7];
  const int got = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                         &v[2], &v[3], &v[4], &v[5], &v[6]);
  fclose(f);
  if (got != 7) die("parse", path);
  return (long long)v[6] * 512;
}

static void sync_fs(int fd, const char* root) {
  if (syncfs(fd) != 0) die("syncfs", root);
}

static uint64_t next_random(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

struct Move {
  double cpu_s, wall_s;
  long long dev_bytes;
};

/* Writes n values into fresh source directories under root/r<round>, in
 * random key order (keys are a permutation of 0..n-1). */
static void write_values(const char* root, int round, int n, const char* value,
                         int value_size, int** keys_out) {
  int* keys = malloc(sizeof(int) * n);
  if (keys == NULL) die("malloc", "keys");
  for (int i = 0; i < n; i++) keys[i] = i;
  uint64_t state = 0x9e3779b97f4a7c15ULL + round;
  for (int i = n - 1; i > 0; i--) {
    const int j = (int)(next_random(&state) % (uint64_t)(i + 1));
    const int t = keys[i];
    keys[i] = keys[j];
    keys[j] = t;
  }
  char p[4200];
  snprintf(p, sizeof(p), "%s/r%d", root, round);
  if (mkdir(p, 0755) != 0) die("mkdir", p);
  for (int i = 0; i < n; i++) {
    if (i % kSourceFiles == 0) {
      snprintf(p, sizeof(p), "%s/r%d/s%05d", root, round, i / kSourceFiles);
      if (mkdir(p, 0755) != 0) die("mkdir", p);
    }
    snprintf(p, sizeof(p), "%s/r%d/s%05d/key%012d@00000000000001", root, round,
             i / kSourceFiles, keys[i]);
    const int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) die("create", p);
    if (write(fd, value, value_size) != value_size) die("write", p);
    if (close(fd) != 0) die("close", p);
  }
  for (int t = 0; t * kTargetFiles < n; t++) {
    snprintf(p, sizeof(p), "%s/r%d/t%05d", root, round, t);
    if (mkdir(p, 0755) != 0) die("mkdir", p);
  }
  /* where[key] = the source directory holding it */
  int* where = malloc(sizeof(int) * n);
  if (where == NULL) die("malloc", "where");
  for (int i = 0; i < n; i++) where[keys[i]] = i / kSourceFiles;
  free(keys);
  *keys_out = where;
}

static void names(const char* root, int round, int key, int source, char* from,
                  char* to) {
  snprintf(from, 4200, "%s/r%d/s%05d/key%012d@00000000000001", root, round,
           source, key);
  snprintf(to, 4200, "%s/r%d/t%05d/key%012d@00000000000001", root, round,
           key / kTargetFiles, key);
}

static struct Move move_values(const char* root, int root_fd, const char* dev,
                               int round, int n, const int* where,
                               int use_rename) {
  char from[4200], to[4200];
  sync_fs(root_fd, root);
  const long long d0 = device_bytes(dev);
  const double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double w0 = seconds(CLOCK_MONOTONIC);
  for (int key = 0; key < n; key++) {
    names(root, round, key, where[key], from, to);
    if (use_rename) {
      if (rename(from, to) != 0) die("rename", to);
    } else if (link(from, to) != 0) {
      die("link", to);
    }
  }
  sync_fs(root_fd, root);
  if (!use_rename) {
    for (int key = 0; key < n; key++) {
      names(root, round, key, where[key], from, to);
      if (unlink(from) != 0) die("unlink", from);
    }
    sync_fs(root_fd, root);
  }
  struct Move m;
  m.cpu_s = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  m.wall_s = seconds(CLOCK_MONOTONIC) - w0;
  m.dev_bytes = dev == NULL ? -1 : device_bytes(dev) - d0;
  return m;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: %s <empty dir> [values] [value bytes] [block device] "
            "[rounds]\n",
            argv[0]);
    return 2;
  }
  const char* root = argv[1];
  const int n = argc > 2 ? atoi(argv[2]) : 200000;
  const int value_size = argc > 3 ? atoi(argv[3]) : 4096;
  const char* dev = argc > 4 && argv[4][0] != '\0' ? argv[4] : NULL;
  const int rounds = argc > 5 ? atoi(argv[5]) : 3;
  if (n <= 0 || n > 100000000 || value_size < 0 || value_size > (1 << 24) ||
      rounds <= 0 || rounds > 100) {
    fprintf(stderr,
            "dentry_move_cost: values 1..1e8, value bytes 0..16M, rounds "
            "1..100\n");
    return 2;
  }
  char* value = malloc(value_size > 0 ? value_size : 1);
  if (value == NULL) die("malloc", "value");
  memset(value, 'x', value_size);
  const int root_fd = open(root, O_RDONLY | O_DIRECTORY);
  if (root_fd < 0) die("open", root);

  printf("values=%d value=%d B, per value moved:\n", n, value_size);
  for (int r = 0; r < rounds; r++) {
    for (int use_rename = 0; use_rename <= 1; use_rename++) {
      const int round = 2 * r + use_rename;
      int* where = NULL;
      write_values(root, round, n, value, value_size, &where);
      const struct Move m =
          move_values(root, root_fd, dev, round, n, where, use_rename);
      free(where);
      printf("round %d %-13s cpu %6.2f us  wall %6.2f us  device %7.0f B\n",
             r + 1, use_rename ? "rename" : "link+unlink", m.cpu_s * 1e6 / n,
             m.wall_s * 1e6 / n,
             m.dev_bytes < 0 ? 0.0 : (double)m.dev_bytes / n);
      fflush(stdout);
    }
  }
  close(root_fd);
  free(value);
  return 0;
}
