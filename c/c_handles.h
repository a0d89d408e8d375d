// The C API's handle types that more than one file of the C binding opens:
// c/c.cc (leveldb/c.h) and c/c_tuning.cc (delsm/c.h). Each owns what `rep`
// points to (leveldb_t's DB is deleted by leveldb_close).
#ifndef DELSM_C_C_HANDLES_H_
#define DELSM_C_C_HANDLES_H_

#include "leveldb/db.h"
#include "leveldb/options.h"

struct leveldb_t {
  leveldb::DB* rep;
};
struct leveldb_options_t {
  leveldb::Options rep;
};

#endif  // DELSM_C_C_HANDLES_H_
