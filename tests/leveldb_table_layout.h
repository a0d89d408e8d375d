// LevelDB 1.23's table layout, read by tests that damage one data block of
// a table Debian's LevelDB wrote (tests/leveldb_oracle): where each data
// block lies and which user keys it holds. Written from LevelDB's
// published table format (doc/table_format.md); tables written without
// compression only.
#ifndef DELSM_TESTS_LEVELDB_TABLE_LAYOUT_H_
#define DELSM_TESTS_LEVELDB_TABLE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "leveldb/slice.h"
#include "util/coding.h"

namespace delsm_test {

// The data blocks of LevelDB table `data` (an .ldb file written without
// compression), in order, as (offset, size) of each block's contents, by
// LevelDB's published format: a 48-byte footer whose second block handle
// is the index block's, an index block whose values are the data blocks'
// handles. Empty if it does not parse.
inline std::vector<std::pair<uint64_t, uint64_t>> LevelDbDataBlocks(
    const std::string& data) {
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
  if (data.size() < 48) return blocks;
  leveldb::Slice footer(data.data() + data.size() - 48, 48);
  uint64_t meta_offset, meta_size, index_offset, index_size;
  if (!leveldb::GetVarint64(&footer, &meta_offset) ||
      !leveldb::GetVarint64(&footer, &meta_size) ||
      !leveldb::GetVarint64(&footer, &index_offset) ||
      !leveldb::GetVarint64(&footer, &index_size) ||
      index_offset + index_size > data.size() || index_size < 4) {
    return blocks;
  }
  const char* index = data.data() + index_offset;
  const uint32_t restarts = leveldb::DecodeFixed32(index + index_size - 4);
  if (4 + 4 * static_cast<uint64_t>(restarts) > index_size) return {};
  leveldb::Slice in(index, index_size - 4 - 4 * restarts);
  while (!in.empty()) {
    uint32_t shared, non_shared, value_size;
    if (!leveldb::GetVarint32(&in, &shared) ||
        !leveldb::GetVarint32(&in, &non_shared) ||
        !leveldb::GetVarint32(&in, &value_size) ||
        in.size() < non_shared + value_size) {
      return {};
    }
    leveldb::Slice value(in.data() + non_shared, value_size);
    in.remove_prefix(non_shared + value_size);
    uint64_t offset, size;
    if (!leveldb::GetVarint64(&value, &offset) ||
        !leveldb::GetVarint64(&value, &size))
      return {};
    blocks.push_back({offset, size});
  }
  return blocks;
}

// The user keys of LevelDB data block `block` (its contents, uncompressed).
inline std::vector<std::string> LevelDbBlockUserKeys(
    const leveldb::Slice& block) {
  std::vector<std::string> keys;
  const uint32_t restarts =
      leveldb::DecodeFixed32(block.data() + block.size() - 4);
  leveldb::Slice in(block.data(), block.size() - 4 - 4 * restarts);
  std::string key;
  while (!in.empty()) {
    uint32_t shared, non_shared, value_size;
    if (!leveldb::GetVarint32(&in, &shared) ||
        !leveldb::GetVarint32(&in, &non_shared) ||
        !leveldb::GetVarint32(&in, &value_size) ||
        in.size() < non_shared + value_size || shared > key.size()) {
      return {};
    }
    key.resize(shared);
    key.append(in.data(), non_shared);
    in.remove_prefix(non_shared + value_size);
    if (key.size() >= 8) keys.push_back(key.substr(0, key.size() - 8));
  }
  return keys;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_LEVELDB_TABLE_LAYOUT_H_
