/* LD_PRELOAD helper for wa_study.py: holds a process at exit() until the
 * runner says go, so a sampling tool (iotop) can take its last samples of
 * the process while all its counters are still there.
 *
 * Contract: if WA_EXIT_HOLD_FD names an inherited socket, an atexit handler
 * (registered before main, so it runs after the program's own handlers and
 * static destructors registered later) writes one byte to it and blocks
 * until it reads one byte back (or the socket closes). Without the variable
 * the library does nothing. _exit() and fatal signals are not held. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static int hold_fd = -1;

static void hold_at_exit(void) {
  char c = 'x';
  ssize_t n;
  do {
    n = write(hold_fd, &c, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) return; /* runner gone: nothing to wait for */
  do {
    n = read(hold_fd, &c, 1);
  } while (n < 0 && errno == EINTR);
}

__attribute__((constructor)) static void exit_hold_init(void) {
  const char* s = getenv("WA_EXIT_HOLD_FD");
  if (s == NULL || *s == '\0') return;
  char* end;
  long fd = strtol(s, &end, 10);
  if (*end != '\0' || fd < 0 || fd > 65535) return;
  hold_fd = (int)fd;
  atexit(hold_at_exit);
}
