// log::Reader reads back the logical records written by log::Writer
// (db/log_format.h). Not thread-safe.
//
// Damage handling: a fragment with a bad checksum or impossible length, or a
// fragment sequence that does not form a record, is dropped and reported to
// the Reporter (if any) with the number of bytes lost; reading continues with
// the next intact record. A record cut short at the end of the file (a torn
// write after a crash) is not reported: the log simply ends before it.
#ifndef DELSM_DB_LOG_READER_H_
#define DELSM_DB_LOG_READER_H_

#include <cstdint>
#include <string>

#include "db/log_format.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

class SequentialFile;

namespace log {

class Reader {
 public:
  // Receives notice of damaged data.
  class Reporter {
   public:
    virtual ~Reporter();
    // `bytes` bytes of the log were skipped because of `status`.
    virtual void Corruption(size_t bytes, const Status& status) = 0;
  };

  // Reads from `file` (not owned; must outlive the Reader), starting with
  // the first record that begins at or after byte `initial_offset`.
  // `reporter` may be null. If `checksum` is true, fragments are verified.
  Reader(SequentialFile* file, Reporter* reporter, bool checksum,
         uint64_t initial_offset);
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader();

  // Reads the next record into *record and returns true, or returns false at
  // the end of the log. *record points into *scratch or into the Reader's
  // buffer and is valid until the next call or until *scratch changes.
  bool ReadRecord(Slice* record, std::string* scratch);

  // File offset of the start of the record last returned by ReadRecord.
  uint64_t LastRecordOffset() const { return last_record_offset_; }

 private:
  // Results of ReadPhysicalRecord beyond the RecordType values.
  enum {
    kEof = kMaxRecordType + 1,
    // A fragment was dropped (reported already, or silently skipped because
    // it lies before initial_offset or is zero padding).
    kBadRecord = kMaxRecordType + 2,
  };

  // Positions the file at the block holding initial_offset_.
  bool SkipToInitialBlock();
  // Returns the type of the next fragment and its payload, kEof or
  // kBadRecord.
  unsigned int ReadPhysicalRecord(Slice* result);
  void ReportCorruption(uint64_t bytes, const char* reason);
  void ReportDrop(uint64_t bytes, const Status& reason);

  SequentialFile* const file_;
  Reporter* const reporter_;
  const bool checksum_;
  char* const backing_store_;  // kBlockSize bytes.
  Slice buffer_;               // Unread part of the current block.
  bool eof_;  // The last file read returned less than a whole block.
  // Offsets in the file of the last record returned, and of the end of
  // buffer_ (the next byte the file will give).
  uint64_t last_record_offset_;
  uint64_t end_of_buffer_offset_;
  const uint64_t initial_offset_;
  // Set while skipping MIDDLE/LAST fragments of a record that began before
  // initial_offset_.
  bool resyncing_;
};

}  // namespace log
}  // namespace leveldb

#endif  // DELSM_DB_LOG_READER_H_
