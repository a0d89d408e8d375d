// A format-1 meta file, as older builds wrote it and readers still accept
// (table/meta_file.h): no code of the engine writes one any more, so tests
// that read one make it here, from the documented layout: "DLSMMETA",
// fixed32(1), the index body with each inline value's stored bytes right
// after its entry, the masked crc32c of everything before it, "DLSMEND!".
#ifndef DELSM_TESTS_META_FILE_V1_H_
#define DELSM_TESTS_META_FILE_V1_H_

#include <string>

#include "table/meta_file.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace delsm_test {

// An entry's record as formats 1 to 3 write it: its key, kind, value size,
// stored size, stored crc, and (format 3, home kinds) the home number.
inline void AppendOldEntryRecord(const leveldb::MetaEntry& e, std::string* f) {
  leveldb::PutLengthPrefixedSlice(f, e.internal_key);
  f->push_back(static_cast<char>(e.storage));
  leveldb::PutVarint64(f, e.value_size);
  leveldb::PutVarint64(f, e.stored_size);
  leveldb::PutFixed32(f, e.stored_crc);
  if (leveldb::StoredInHome(e.storage)) leveldb::PutVarint64(f, e.home);
}

// `contents` must hold no home kind (format 3 only), and every inline
// entry its inline_value.
inline std::string EncodeMetaFileVersion1(
    const leveldb::MetaFileContents& contents) {
  std::string f("DLSMMETA", 8);
  leveldb::PutFixed32(&f, 1);
  leveldb::PutLengthPrefixedSlice(&f, contents.comparator_name);
  leveldb::PutVarint64(&f, contents.entries.size());
  for (const leveldb::MetaEntry& e : contents.entries) {
    AppendOldEntryRecord(e, &f);
    if (leveldb::StoredInline(e.storage)) f.append(e.inline_value);
  }
  leveldb::PutLengthPrefixedSlice(&f, contents.filter);
  leveldb::PutLengthPrefixedSlice(&f, contents.smallest);
  leveldb::PutLengthPrefixedSlice(&f, contents.largest);
  leveldb::PutFixed32(
      &f, leveldb::crc32c::Mask(leveldb::crc32c::Value(f.data(), f.size())));
  f.append("DLSMEND!", 8);
  return f;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_META_FILE_V1_H_
