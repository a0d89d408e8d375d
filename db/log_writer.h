// log::Writer appends logical records to a file in the log format
// (db/log_format.h). Not thread-safe: callers serialise AddRecord().
#ifndef DELSM_DB_LOG_WRITER_H_
#define DELSM_DB_LOG_WRITER_H_

#include <cstdint>

#include "db/log_format.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

class WritableFile;

namespace log {

class Writer {
 public:
  // Writes to `dest`, which must be empty. `dest` is not owned and must
  // outlive the Writer.
  explicit Writer(WritableFile* dest);
  // Appends to `dest`, which already holds `dest_length` bytes of log.
  Writer(WritableFile* dest, uint64_t dest_length);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() = default;

  // Appends one record and flushes it to the file (not synced). On error
  // the file may hold part of the record; a Reader treats a partial record
  // at the end of a log as a torn write, not as corruption.
  Status AddRecord(const Slice& record);

 private:
  Status EmitPhysicalRecord(RecordType type, const char* data, size_t length);

  WritableFile* const dest_;
  int block_offset_;  // Bytes already used in the current block.
  // crc32c of each record type byte, so the checksum of a fragment only
  // needs to be extended over its payload.
  uint32_t type_crc_[kMaxRecordType + 1];
};

}  // namespace log
}  // namespace leveldb

#endif  // DELSM_DB_LOG_WRITER_H_
