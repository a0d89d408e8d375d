/*
 * Bytes the kernel charges a process (/proc/self/io write_bytes) per file
 * create, hard link and unlink: the three directory-entry operations a
 * DeLSM flush and compaction are made of. On ext4 with a journal, metadata
 * blocks are dirtied through the journal and are not charged to the
 * process; on ext4 without one, every inode-table and directory block a
 * call dirties is.
 *
 *   cc -O2 -o dentry_op_bytes benchmarks/wa/dentry_op_bytes.c
 *   ./dentry_op_bytes <empty dir> [files=50000] [value bytes=1024]
 *
 * Creates <files> files of <value bytes> in <dir>/A, links each into
 * <dir>/B, then unlinks the A names, with a syncfs after each phase (so
 * each phase's dirty pages are charged to it), and prints bytes per call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char* what, const char* path) {
  fprintf(stderr, "dentry_op_bytes: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static long long write_bytes(void) {
  FILE* f = fopen("/proc/self/io", "r");
  if (f == NULL) die("open", "/proc/self/io");
  char line[256];
  long long v = -1;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, "write_bytes:", 12) == 0) v = atoll(line + 12);
  }
  fclose(f);
  if (v < 0) die("parse", "/proc/self/io");
  return v;
}

static void sync_fs(int fd, const char* root) {
  if (syncfs(fd) != 0) die("syncfs", root);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <empty dir> [files] [value bytes]\n", argv[0]);
    return 2;
  }
  const char* root = argv[1];
  const int n = argc > 2 ? atoi(argv[2]) : 50000;
  const int value_size = argc > 3 ? atoi(argv[3]) : 1024;
  if (n <= 0 || value_size < 0) {
    fprintf(stderr, "dentry_op_bytes: files must be > 0, value bytes >= 0\n");
    return 2;
  }
  char a[4096], b[4096], p[4200], q[4200];
  snprintf(a, sizeof(a), "%s/A", root);
  snprintf(b, sizeof(b), "%s/B", root);
  if (mkdir(a, 0755) != 0) die("mkdir", a);
  if (mkdir(b, 0755) != 0) die("mkdir", b);
  char* value = malloc(value_size > 0 ? value_size : 1);
  if (value == NULL) die("malloc", "value");
  memset(value, 'x', value_size);
  const int root_fd = open(root, O_RDONLY | O_DIRECTORY);
  if (root_fd < 0) die("open", root);

  sync_fs(root_fd, root);
  const long long t0 = write_bytes();
  for (int i = 0; i < n; i++) {
    snprintf(p, sizeof(p), "%s/%08d", a, i);
    const int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) die("create", p);
    if (write(fd, value, value_size) != value_size) die("write", p);
    if (close(fd) != 0) die("close", p);
  }
  sync_fs(root_fd, root);
  const long long t1 = write_bytes();
  for (int i = 0; i < n; i++) {
    snprintf(p, sizeof(p), "%s/%08d", a, i);
    snprintf(q, sizeof(q), "%s/%08d", b, i);
    if (link(p, q) != 0) die("link", q);
  }
  sync_fs(root_fd, root);
  const long long t2 = write_bytes();
  for (int i = 0; i < n; i++) {
    snprintf(p, sizeof(p), "%s/%08d", a, i);
    if (unlink(p) != 0) die("unlink", p);
  }
  sync_fs(root_fd, root);
  const long long t3 = write_bytes();
  printf("files=%d value=%d B: create %.0f B/file, link %.0f B/call, "
         "unlink %.0f B/call\n",
         n, value_size, (double)(t1 - t0) / n, (double)(t2 - t1) / n,
         (double)(t3 - t2) / n);
  close(root_fd);
  free(value);
  return 0;
}
