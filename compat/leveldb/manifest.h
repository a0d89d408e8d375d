// LevelDB 1.23's manifest: a log (db/log_format.h, the same record format
// DeLSM uses) of version edits in LevelDB's own field encoding, which
// differs from DeLSM's (db/version_edit.h). Read to convert a LevelDB
// database; written to export one (the only encoder of LevelDB's edits).
//
// LevelDB's edit fields, each a varint32 tag and a payload:
//   1 comparator name (length-prefixed)    2 log number (varint64)
//   3 next file number (varint64)          4 last sequence (varint64)
//   5 compaction pointer (varint32 level, length-prefixed internal key)
//   6 deleted table (varint32 level, varint64 number)
//   7 new table (varint32 level, varint64 number, varint64 file size,
//     length-prefixed smallest and largest internal keys)
//   9 previous log number (varint64)       (8 is retired in LevelDB)
#ifndef DELSM_COMPAT_LEVELDB_MANIFEST_H_
#define DELSM_COMPAT_LEVELDB_MANIFEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

class Env;

// One live table of a LevelDB database.
struct LevelDbTableInfo {
  int level = 0;
  uint64_t number = 0;
  uint64_t file_size = 0;
  std::string smallest;  // internal keys
  std::string largest;
};

// The state a LevelDB manifest describes once every edit is applied.
struct LevelDbState {
  std::string comparator;  // empty if no edit named one
  uint64_t log_number = 0;
  uint64_t prev_log_number = 0;
  uint64_t next_file = 0;
  uint64_t last_sequence = 0;
  std::vector<LevelDbTableInfo> tables;  // by level, then by number
};

// The one edit a new LevelDB database's manifest needs when all its data is
// in WALs (what `delsm export` writes): the comparator's name, the log
// number, the next file number and the last sequence; no tables. LevelDB
// replays every log numbered `log_number` or above on open.
std::string EncodeLevelDbVersionEdit(const std::string& comparator_name,
                                     uint64_t log_number,
                                     uint64_t next_file_number,
                                     uint64_t last_sequence);

// True if `record` is a well-formed LevelDB edit (every field a known tag
// with a complete payload, levels below 7). Applies it to *state when
// `state` is non-null.
bool DecodeLevelDbEdit(const Slice& record, LevelDbState* state);

// True if `record` is a LevelDB edit DecodeLevelDbEdit accepts and not
// empty; sets *names_comparator if it names a comparator. For telling
// LevelDB's manifest from others.
bool IsLevelDbEdit(const Slice& record, bool* names_comparator);

// Reads the manifest at `path` with `env` and applies every edit. A damaged
// log record or a record that is not a LevelDB edit is a Corruption naming
// the file; so is a manifest without log number, next file number or last
// sequence (LevelDB would refuse it too). An error opening or reading it
// that is not damage (EIO, EMFILE, NotFound) is returned as it is.
Status ReadLevelDbManifest(Env* env, const std::string& path,
                           LevelDbState* state);

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_MANIFEST_H_
