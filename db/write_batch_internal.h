// Access to a WriteBatch's encoded form, which is also the payload of a WAL
// record:
//   fixed64 sequence   (of the first update; later ones follow in order)
//   fixed32 count      (number of records)
//   records: kTypeValue     varstring key  varstring value
//            kTypeDeletion  varstring key
// where varstring is a varint32 length followed by the bytes.
#ifndef DELSM_DB_WRITE_BATCH_INTERNAL_H_
#define DELSM_DB_WRITE_BATCH_INTERNAL_H_

#include <cstddef>

#include "db/dbformat.h"
#include "leveldb/write_batch.h"

namespace leveldb {

class MemTable;

class WriteBatchInternal {
 public:
  // Size of the sequence + count header.
  static constexpr size_t kHeader = 12;

  static int Count(const WriteBatch* batch);
  static void SetCount(WriteBatch* batch, int n);

  // Sequence number of the batch's first update.
  static SequenceNumber Sequence(const WriteBatch* batch);
  static void SetSequence(WriteBatch* batch, SequenceNumber seq);

  static Slice Contents(const WriteBatch* batch) { return Slice(batch->rep_); }
  static size_t ByteSize(const WriteBatch* batch) { return batch->rep_.size(); }

  // Replaces the batch's encoded form (e.g. with a WAL record). Contents are
  // validated only when the batch is iterated.
  // REQUIRES: contents.size() >= kHeader.
  static void SetContents(WriteBatch* batch, const Slice& contents);

  // Adds the batch's updates to `memtable`, numbered from Sequence(batch).
  // Returns Corruption if the batch is malformed; updates before the
  // malformed record have been applied.
  static Status InsertInto(const WriteBatch* batch, MemTable* memtable);

  // Appends src's updates to dst (dst keeps its sequence number).
  static void Append(WriteBatch* dst, const WriteBatch* src);
};

}  // namespace leveldb

#endif  // DELSM_DB_WRITE_BATCH_INTERNAL_H_
