// Writers for the LevelDB 1.23 file formats that `delsm export` produces, so
// that real LevelDB opens the result. Written from LevelDB's published
// formats (doc/log_format.md, doc/impl.md and the WriteBatch layout of
// db/write_batch.cc); none of DeLSM's own WAL or manifest code is used, so a
// change to DeLSM's formats cannot change what export writes. The manifest's
// one record is encoded by EncodeLevelDbVersionEdit
// (compat/leveldb/manifest.h), beside the decoder of LevelDB's edits.
//
//   log file  ("NNNNNN.log", and the MANIFEST uses the same framing): 32 KiB
//             blocks of records, each record a 7-byte header (masked crc32c
//             of type byte and payload, fixed32; payload length, 2 bytes
//             little-endian; type FULL=1 FIRST=2 MIDDLE=3 LAST=4) and its
//             payload; a record that does not fit the block is split into
//             FIRST/MIDDLE.../LAST fragments; a block tail shorter than a
//             header is zero-filled.
//   WriteBatch (one WAL record): fixed64 sequence of its first entry,
//             fixed32 entry count, then per Put the byte 1, the key and the
//             value as varint32-length-prefixed strings.
#ifndef DELSM_COMPAT_LEVELDB_FILE_WRITERS_H_
#define DELSM_COMPAT_LEVELDB_FILE_WRITERS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

// A file that did not exist, written front to back through a buffer.
// Create never replaces an existing file (O_EXCL: AlreadyExists-like
// IOError instead). Nothing is durable before SyncAndClose returns OK; a
// NewFile destroyed without it is closed, unsynced, and left where it is
// (the caller removes it).
class NewFile {
 public:
  static leveldb::Status Create(const std::string& path,
                                std::unique_ptr<NewFile>* file);
  ~NewFile();
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;

  leveldb::Status Append(const leveldb::Slice& data);
  // Writes the buffer, fsyncs and closes. No Append after it.
  leveldb::Status SyncAndClose();
  // Bytes appended so far.
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  NewFile(const std::string& path, int fd);
  leveldb::Status WriteBuffer();

  const std::string path_;
  int fd_;  // -1 once closed
  std::string buffer_;
  uint64_t size_ = 0;
};

// Appends records in LevelDB's log framing to a NewFile that starts empty.
class LevelDbLogWriter {
 public:
  explicit LevelDbLogWriter(NewFile* file) : file_(file) {}
  leveldb::Status AddRecord(const leveldb::Slice& payload);

 private:
  NewFile* const file_;
  size_t block_offset_ = 0;  // bytes of the current block already written
};

// One LevelDB WriteBatch of Puts, built in memory.
class LevelDbBatch {
 public:
  LevelDbBatch();
  void Put(const leveldb::Slice& key, const leveldb::Slice& value);
  uint32_t count() const { return count_; }
  // Encoded size so far, header included.
  size_t size() const { return rep_.size(); }
  // The encoded batch whose first entry has sequence number `sequence`
  // (the next ones follow it); valid until the next Put or Clear.
  leveldb::Slice Encode(uint64_t sequence);
  void Clear();

 private:
  std::string rep_;
  uint32_t count_ = 0;
};

// LevelDB's file names in `dir` ("000002.log", "MANIFEST-000001").
std::string LevelDbLogName(const std::string& dir, uint64_t number);
std::string LevelDbManifestName(const std::string& dir, uint64_t number);

// fsync of the directory `dir`, so the names created in it are durable.
leveldb::Status SyncDirectory(const std::string& dir);

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_FILE_WRITERS_H_
