/* The tuning functions of delsm/c.h, compiled as C and linked with the
   shared libdelsm (so it also proves they are exported): setting fields by
   name and by type, reading them back, rejecting unknown names and bad
   values, and opening a database whose LOG shows the tuning in effect,
   with and without DELSM_OPTIONS. Exits 0 when every check passes and
   prints each failure otherwise. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delsm/c.h"

static int failures = 0;

#define CHECK(cond)                                            \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #cond); \
      failures++;                                              \
    }                                                          \
  } while (0)

/* True if `field` (e.g. "durability") reads back as `want`. */
static int FieldIs(const delsm_tuning_t* t, const char* field,
                   const char* want) {
  char* got = delsm_tuning_get(t, field);
  int same = got != NULL && strcmp(got, want) == 0;
  if (!same) {
    fprintf(stderr, "  %s is '%s', want '%s'\n", field, got ? got : "(null)",
            want);
  }
  leveldb_free(got);
  return same;
}

/* The whole LOG file of database `db` (malloc()ed), or NULL. */
static char* ReadLog(const char* db) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/LOG", db);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, len = 0, n;
  char* buf = malloc(cap + 1);
  while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      cap *= 2;
      buf = realloc(buf, cap + 1);
    }
  }
  fclose(f);
  if (buf != NULL) buf[len] = '\0';
  return buf;
}

static void FieldFunctions(void) {
  delsm_tuning_t* t = delsm_tuning_create();
  char* err = NULL;
  CHECK(FieldIs(t, "durability", "syncfs")); /* DeLSM's defaults */
  CHECK(FieldIs(t, "inline_threshold", "2048"));

  delsm_tuning_set(t, "durability", "fsync", &err);
  CHECK(err == NULL);
  CHECK(FieldIs(t, "durability", "fsync"));
  delsm_tuning_set_durability(t, delsm_durability_deferred);
  CHECK(FieldIs(t, "durability", "deferred"));
  delsm_tuning_set_durability(t, 42); /* not a durability: unchanged */
  CHECK(FieldIs(t, "durability", "deferred"));
  delsm_tuning_set_inline_threshold(t, 300);
  CHECK(FieldIs(t, "inline_threshold", "300"));

  delsm_tuning_set(t, "no_such_field", "1", &err);
  CHECK(err != NULL && strstr(err, "no_such_field") != NULL);
  leveldb_free(err);
  err = NULL;
  delsm_tuning_set(t, "sst_entries", "-5", &err);
  CHECK(err != NULL && strstr(err, "sst_entries") != NULL);
  leveldb_free(err);
  err = NULL;
  delsm_tuning_set(t, "durability", "sometimes", &err);
  CHECK(err != NULL && strstr(err, "sometimes") != NULL);
  leveldb_free(err);
  err = NULL;
  CHECK(FieldIs(t, "durability", "deferred")); /* failed sets change nothing */
  CHECK(delsm_tuning_get(t, "no_such_field") == NULL);

  /* A list applies all of its fields, or none when one is bad. */
  delsm_tuning_parse(t, " durability = fsync ; l1_entries=5000;;", &err);
  CHECK(err == NULL);
  CHECK(FieldIs(t, "durability", "fsync"));
  CHECK(FieldIs(t, "l1_entries", "5000"));
  delsm_tuning_parse(t, "sst_entries=77;l0_stop_dirs=x", &err);
  CHECK(err != NULL && strstr(err, "l0_stop_dirs") != NULL);
  leveldb_free(err);
  err = NULL;
  CHECK(FieldIs(t, "sst_entries", "4096"));

  /* The read-ahead fields are set by name like every other field. */
  CHECK(FieldIs(t, "read_ahead_files", "16"));
  CHECK(FieldIs(t, "read_ahead_bytes", "1048576"));
  CHECK(FieldIs(t, "read_ahead_threads", "4"));
  delsm_tuning_parse(
      t, "read_ahead_files=0;read_ahead_bytes=65536;read_ahead_threads=2",
      &err);
  CHECK(err == NULL);
  CHECK(FieldIs(t, "read_ahead_files", "0"));
  CHECK(FieldIs(t, "read_ahead_bytes", "65536"));
  CHECK(FieldIs(t, "read_ahead_threads", "2"));
  delsm_tuning_set(t, "read_ahead_bytes", "-1", &err);
  CHECK(err != NULL && strstr(err, "read_ahead_bytes") != NULL);
  leveldb_free(err);
  err = NULL;

  char* all = delsm_tuning_to_string(t);
  CHECK(all != NULL && strstr(all, "durability=fsync;") == all);
  CHECK(all != NULL && strstr(all, ";inline_threshold=300;") != NULL);
  CHECK(all != NULL && strstr(all, ";l1_entries=5000") != NULL);
  CHECK(all != NULL && strstr(all, ";read_ahead_files=0;read_ahead_bytes=65536;"
                                   "read_ahead_threads=2;") != NULL);
  /* Its own output parses back to the same tuning. */
  delsm_tuning_t* copy = delsm_tuning_create();
  delsm_tuning_parse(copy, all, &err);
  CHECK(err == NULL);
  char* again = delsm_tuning_to_string(copy);
  CHECK(all != NULL && again != NULL && strcmp(all, again) == 0);
  leveldb_free(all);
  leveldb_free(again);
  delsm_tuning_destroy(copy);
  delsm_tuning_destroy(t);
}

/* Opens `db` with the given tuning, writes and reads a key, closes, and
   returns the LOG (malloc()ed) or NULL; *err receives an open error. */
static char* OpenAndLog(const char* db, const delsm_tuning_t* t, char** err) {
  leveldb_options_t* o = leveldb_options_create();
  leveldb_options_set_create_if_missing(o, 1);
  leveldb_t* handle = delsm_open(o, t, db, err);
  char* log = NULL;
  if (handle != NULL) {
    leveldb_writeoptions_t* wo = leveldb_writeoptions_create();
    leveldb_readoptions_t* ro = leveldb_readoptions_create();
    char* e = NULL;
    leveldb_put(handle, wo, "k", 1, "v", 1, &e);
    CHECK(e == NULL);
    size_t len = 0;
    char* v = leveldb_get(handle, ro, "k", 1, &len, &e);
    CHECK(e == NULL && v != NULL && len == 1 && v[0] == 'v');
    leveldb_free(v);
    leveldb_writeoptions_destroy(wo);
    leveldb_readoptions_destroy(ro);
    leveldb_close(handle);
    log = ReadLog(db);
  }
  char* e = NULL;
  leveldb_destroy_db(o, db, &e);
  leveldb_free(e);
  leveldb_options_destroy(o);
  return log;
}

static void OpenWithTuning(const char* scratch) {
  char db[4096];
  snprintf(db, sizeof(db), "%s/db", scratch);
  delsm_tuning_t* t = delsm_tuning_create();
  delsm_tuning_set_durability(t, delsm_durability_fsync);
  char* err = NULL;

  unsetenv("DELSM_OPTIONS");
  char* log = OpenAndLog(db, t, &err);
  CHECK(err == NULL);
  CHECK(log != NULL && strstr(log, "DeLSM tuning: durability=fsync;") != NULL);
  leveldb_free(log);

  /* The environment overrides the fields it names, keeps the others. */
  setenv("DELSM_OPTIONS", "inline_threshold=7", 1);
  log = OpenAndLog(db, t, &err);
  CHECK(err == NULL);
  CHECK(log != NULL && strstr(log, "durability=fsync;") != NULL);
  CHECK(log != NULL && strstr(log, ";inline_threshold=7;") != NULL);
  CHECK(log != NULL && strstr(log, "DELSM_OPTIONS=\"inline_threshold=7\"") != NULL);
  leveldb_free(log);

  /* An invalid DELSM_OPTIONS fails the open with InvalidArgument. */
  setenv("DELSM_OPTIONS", "durability=never", 1);
  log = OpenAndLog(db, t, &err);
  CHECK(log == NULL);
  CHECK(err != NULL && strstr(err, "Invalid argument") != NULL &&
        strstr(err, "DELSM_OPTIONS") != NULL);
  if (err != NULL) fprintf(stderr, "invalid DELSM_OPTIONS -> %s\n", err);
  leveldb_free(err);
  unsetenv("DELSM_OPTIONS");
  delsm_tuning_destroy(t);
}

int main(void) {
  /* Under $DELSM_TEST_DIR, else $TMPDIR, else /tmp, as the C++ tests. */
  const char* tmp = getenv("DELSM_TEST_DIR");
  if (tmp == NULL || tmp[0] == '\0') tmp = getenv("TMPDIR");
  char scratch[4096];
  snprintf(scratch, sizeof(scratch), "%s/c_tuning_test.XXXXXX",
           tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
  if (mkdtemp(scratch) == NULL) {
    perror("mkdtemp");
    return 2;
  }
  FieldFunctions();
  OpenWithTuning(scratch);
  if (rmdir(scratch) != 0) {
    perror("rmdir scratch");
    failures++;
  }
  printf("c_tuning_test: %d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
