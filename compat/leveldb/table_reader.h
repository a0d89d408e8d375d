// Reads a table file written by LevelDB 1.23 (NNNNNN.ldb, or the older
// NNNNNN.sst name), so that an existing LevelDB database can be converted
// into SST directories. Written from LevelDB's published table format:
//
//   data blocks, meta blocks (a filter block), the metaindex block, the
//   index block, and a 48-byte footer holding the metaindex and index block
//   handles and the magic number 0xdb4775248b80fb57.
//
// Every block is followed by a 1-byte compression type (none or snappy) and
// the masked crc32c of the block and that byte. A block is a run of
// prefix-compressed entries followed by an array of restart offsets (entries
// that store their whole key) and the number of restarts.
//
// The reader checks everything it reads: the footer's magic number, every
// block's checksum, the restart array, the metaindex and the filter block's
// layout. Any damage is a Corruption naming the file; a block compressed
// with a method this build cannot decode (zstd) is NotSupported. It reads
// entries only front to back; it never needs the comparator.
#ifndef DELSM_COMPAT_LEVELDB_TABLE_READER_H_
#define DELSM_COMPAT_LEVELDB_TABLE_READER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

class RandomAccessFile;

class LevelDbTableReader {
 public:
  // Opens the table in `file` (not owned; must outlive the reader), which
  // holds `file_size` bytes: reads the footer, the index block and the
  // metaindex block (and the filter block it names). `name` is used in
  // error messages.
  static Status Open(RandomAccessFile* file, uint64_t file_size,
                     const std::string& name,
                     std::unique_ptr<LevelDbTableReader>* result);

  ~LevelDbTableReader();
  LevelDbTableReader(const LevelDbTableReader&) = delete;
  LevelDbTableReader& operator=(const LevelDbTableReader&) = delete;

  // Forward scan over every entry of the table, in the table's order. The
  // keys are LevelDB internal keys (user key + 8-byte tag). key() and
  // value() stay valid until the next call to Next() or SeekToFirst().
  void SeekToFirst();
  bool Valid() const { return valid_; }
  void Next();
  Slice key() const;
  Slice value() const;
  // The first error met by the scan (the scan stops there), else OK.
  Status status() const { return status_; }

  // For a repair, which keeps every block it can read, as LevelDB's
  // RepairDB does: from now on a data block that is damaged (Corruption:
  // its checksum, its compression, an entry or its restart array) is not
  // an error of the scan; the scan goes on with the next data block. The
  // entries of that block before an entry that does not decode have been
  // returned (they decoded whole); the rest of the block is skipped. Any
  // other error (an I/O error, a block this build cannot decode) still
  // ends the scan. Damage to the index block or the footer fails Open, as
  // before. Off by default: a conversion refuses a damaged table.
  void SkipDamagedBlocks() { skip_damaged_blocks_ = true; }
  // Data blocks skipped so far, and the first one's Corruption (OK if none).
  uint64_t damaged_blocks() const { return damaged_blocks_; }
  const Status& first_damage() const { return first_damage_; }

  // The name of the filter policy whose filter block the table holds
  // (empty if none), e.g. "leveldb.BuiltinBloomFilter2".
  const std::string& filter_policy_name() const { return filter_name_; }
  // Number of data blocks (entries of the index block).
  uint64_t num_data_blocks() const { return num_data_blocks_; }
  // Data blocks that were snappy-compressed on disk, read so far.
  uint64_t snappy_blocks_read() const { return snappy_blocks_read_; }

 private:
  class Block;

  LevelDbTableReader(RandomAccessFile* file, uint64_t file_size,
                     const std::string& name);
  Status ReadBlockAt(const Slice& encoded_handle, std::string* contents,
                     bool* was_snappy);
  Status Init();
  // Moves to the first entry of the next non-empty data block.
  void AdvanceToNextDataBlock();
  // True if `s`, an error of the current data block, is damage skipped
  // under SkipDamagedBlocks (counted); false if it ends the scan.
  bool SkipDamage(const Status& s);

  RandomAccessFile* const file_;
  const uint64_t file_size_;
  const std::string name_;
  std::string index_contents_;  // the uncompressed index block
  std::unique_ptr<Block> index_;
  std::unique_ptr<Block> data_;  // the data block being scanned
  std::string data_contents_;
  std::string filter_name_;
  uint64_t num_data_blocks_ = 0;
  uint64_t snappy_blocks_read_ = 0;
  bool valid_ = false;
  Status status_;
  bool skip_damaged_blocks_ = false;
  uint64_t damaged_blocks_ = 0;
  Status first_damage_;
};

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_TABLE_READER_H_
