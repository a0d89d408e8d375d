// The C binding of delsm/c.h: delsm::Tuning behind an opaque handle, fields
// set and read through the same name table as DELSM_OPTIONS (db/tuning.cc).
#include <cstdlib>
#include <cstring>
#include <string>

#include "c/c_handles.h"
#include "delsm/c.h"
#include "delsm/delsm.h"

struct delsm_tuning_t {
  delsm::Tuning rep;
};

namespace {

char* CopyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

// leveldb/c.h's error convention: replace *errptr on error.
bool SaveError(char** errptr, const leveldb::Status& s) {
  if (s.ok()) return false;
  std::free(*errptr);
  *errptr = CopyString(s.ToString());
  return true;
}

}  // namespace

extern "C" {

delsm_tuning_t* delsm_tuning_create(void) { return new delsm_tuning_t; }

void delsm_tuning_destroy(delsm_tuning_t* tuning) { delete tuning; }

void delsm_tuning_set(delsm_tuning_t* tuning, const char* name,
                      const char* value, char** errptr) {
  SaveError(errptr, delsm::SetTuningField(name, value, &tuning->rep));
}

void delsm_tuning_parse(delsm_tuning_t* tuning, const char* spec,
                        char** errptr) {
  SaveError(errptr, delsm::ParseTuning(spec, &tuning->rep));
}

char* delsm_tuning_get(const delsm_tuning_t* tuning, const char* name) {
  std::string value;
  if (!delsm::GetTuningField(tuning->rep, name, &value)) return nullptr;
  return CopyString(value);
}

char* delsm_tuning_to_string(const delsm_tuning_t* tuning) {
  return CopyString(delsm::TuningToString(tuning->rep));
}

void delsm_tuning_set_durability(delsm_tuning_t* tuning, int durability) {
  switch (durability) {
    case delsm_durability_syncfs:
      tuning->rep.durability = delsm::Durability::kSyncfs;
      break;
    case delsm_durability_fsync:
      tuning->rep.durability = delsm::Durability::kFsync;
      break;
    case delsm_durability_deferred:
      tuning->rep.durability = delsm::Durability::kDeferred;
      break;
    default:
      break;  // not a durability: unchanged, as documented
  }
}

void delsm_tuning_set_inline_threshold(delsm_tuning_t* tuning, size_t bytes) {
  tuning->rep.inline_threshold = bytes;
}

leveldb_t* delsm_open(const leveldb_options_t* options,
                      const delsm_tuning_t* tuning, const char* name,
                      char** errptr) {
  leveldb::DB* db = nullptr;
  if (SaveError(errptr, delsm::Open(options->rep, tuning->rep, name, &db))) {
    return nullptr;
  }
  leveldb_t* result = new leveldb_t;
  result->rep = db;
  return result;
}

}  // extern "C"
