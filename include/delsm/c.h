/* DeLSM's C API beyond LevelDB's leveldb/c.h: delsm::Tuning for C programs
   and bindings. A tuning handle starts with DeLSM's defaults; fields are set
   by name with the text forms of delsm::ParseTuning (delsm/delsm.h), so every
   field delsm::Tuning has is reachable here. Errors follow leveldb/c.h: an
   `errptr` receives a malloc()ed message (freeing what it held before);
   strings returned are malloc()ed and released with leveldb_free(). */
#ifndef DELSM_INCLUDE_DELSM_C_H_
#define DELSM_INCLUDE_DELSM_C_H_

#include <stddef.h>

#include "leveldb/c.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DELSM_C_EXPORT __attribute__((visibility("default")))

typedef struct delsm_tuning_t delsm_tuning_t;

/* Values of the "durability" field (delsm::Durability). */
enum {
  delsm_durability_syncfs = 0,
  delsm_durability_fsync = 1,
  delsm_durability_deferred = 2
};

DELSM_C_EXPORT delsm_tuning_t* delsm_tuning_create(void);
DELSM_C_EXPORT void delsm_tuning_destroy(delsm_tuning_t* tuning);

/* Sets one field by name, e.g. ("inline_threshold", "512"). On an unknown
   name or a bad value the tuning is unchanged and *errptr says why. */
DELSM_C_EXPORT void delsm_tuning_set(delsm_tuning_t* tuning, const char* name,
                                     const char* value, char** errptr);
/* Sets the fields of a "name=value;name=value" list, all or none. */
DELSM_C_EXPORT void delsm_tuning_parse(delsm_tuning_t* tuning, const char* spec,
                                       char** errptr);
/* The text form of one field, or NULL if there is no field of that name. */
DELSM_C_EXPORT char* delsm_tuning_get(const delsm_tuning_t* tuning,
                                      const char* name);
/* Every field, in delsm_tuning_parse's syntax. */
DELSM_C_EXPORT char* delsm_tuning_to_string(const delsm_tuning_t* tuning);

/* Typed setters for the fields most programs set. A durability that is not
   one of the constants above leaves the tuning unchanged. */
DELSM_C_EXPORT void delsm_tuning_set_durability(delsm_tuning_t* tuning,
                                                int durability);
DELSM_C_EXPORT void delsm_tuning_set_inline_threshold(delsm_tuning_t* tuning,
                                                      size_t bytes);

/* leveldb_open with a tuning (delsm::Open): the DELSM_OPTIONS environment
   variable still overrides the fields it names. */
DELSM_C_EXPORT leveldb_t* delsm_open(const leveldb_options_t* options,
                                     const delsm_tuning_t* tuning,
                                     const char* name, char** errptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DELSM_INCLUDE_DELSM_C_H_ */
