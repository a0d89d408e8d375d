/* An installed-DeLSM consumer in C, built with pkg-config's flags for delsm:
   opens a database with a tuning through delsm/c.h, writes and reads a key
   and prints "consumer_c: ok" on success. */
#include <stdio.h>
#include <string.h>

#include "delsm/c.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <new database folder>\n", argv[0]);
    return 2;
  }
  char* err = NULL;
  delsm_tuning_t* tuning = delsm_tuning_create();
  delsm_tuning_parse(tuning, "durability=fsync;inline_threshold=16", &err);
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_t* db = err == NULL ? delsm_open(options, tuning, argv[1], &err) : NULL;
  int ok = 0;
  if (db != NULL) {
    leveldb_writeoptions_t* wo = leveldb_writeoptions_create();
    leveldb_readoptions_t* ro = leveldb_readoptions_create();
    leveldb_put(db, wo, "hello", 5, "world", 5, &err);
    size_t len = 0;
    char* v = err == NULL ? leveldb_get(db, ro, "hello", 5, &len, &err) : NULL;
    ok = v != NULL && len == 5 && memcmp(v, "world", 5) == 0;
    leveldb_free(v);
    leveldb_writeoptions_destroy(wo);
    leveldb_readoptions_destroy(ro);
    leveldb_close(db);
    leveldb_destroy_db(options, argv[1], &err);
  }
  leveldb_options_destroy(options);
  delsm_tuning_destroy(tuning);
  if (err != NULL || !ok) {
    fprintf(stderr, "consumer_c: %s\n", err != NULL ? err : "wrong value");
    leveldb_free(err);
    return 1;
  }
  printf("consumer_c: ok\n");
  return 0;
}
