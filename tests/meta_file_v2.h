// Format-2 and format-3 meta files, as older builds wrote them and readers
// still accept (table/meta_file.h): the engine writes format 4 only, so
// tests that read an older file make it here, from the documented layout:
// "DLSMMETA", fixed32(version), the inline values in entry order, the index
// (comparator name, entry count, every entry's record, filter, key range),
// then the footer: fixed64 offset of the index, its masked crc32c,
// fixed32(version), "DLSMEND2". The version is 3 when some entry is of a
// home kind (the only records that carry a home number), else 2.
#ifndef DELSM_TESTS_META_FILE_V2_H_
#define DELSM_TESTS_META_FILE_V2_H_

#include <string>

#include "table/meta_file.h"
#include "tests/meta_file_v1.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace delsm_test {

// Every inline entry of `contents` must hold its inline_value.
inline std::string EncodeMetaFileVersion2(
    const leveldb::MetaFileContents& contents) {
  uint32_t version = 2;
  for (const leveldb::MetaEntry& e : contents.entries) {
    if (leveldb::StoredInHome(e.storage)) version = 3;
  }
  std::string f("DLSMMETA", 8);
  leveldb::PutFixed32(&f, version);
  for (const leveldb::MetaEntry& e : contents.entries) {
    if (leveldb::StoredInline(e.storage)) f.append(e.inline_value);
  }
  const uint64_t index_offset = f.size();
  leveldb::PutLengthPrefixedSlice(&f, contents.comparator_name);
  leveldb::PutVarint64(&f, contents.entries.size());
  for (const leveldb::MetaEntry& e : contents.entries) {
    AppendOldEntryRecord(e, &f);
  }
  leveldb::PutLengthPrefixedSlice(&f, contents.filter);
  leveldb::PutLengthPrefixedSlice(&f, contents.smallest);
  leveldb::PutLengthPrefixedSlice(&f, contents.largest);
  const uint32_t crc =
      leveldb::crc32c::Value(f.data() + index_offset, f.size() - index_offset);
  leveldb::PutFixed64(&f, index_offset);
  leveldb::PutFixed32(&f, leveldb::crc32c::Mask(crc));
  leveldb::PutFixed32(&f, version);
  f.append("DLSMEND2", 8);
  return f;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_META_FILE_V2_H_
