// WriteBatch and WriteBatchInternal; the encoding is described in
// db/write_batch_internal.h.
#include "leveldb/write_batch.h"

#include <cassert>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "db/write_batch_internal.h"
#include "util/coding.h"

namespace leveldb {

WriteBatch::Handler::~Handler() = default;

WriteBatch::WriteBatch() { Clear(); }

WriteBatch::~WriteBatch() = default;

void WriteBatch::Clear() {
  rep_.clear();
  rep_.resize(WriteBatchInternal::kHeader);
}

size_t WriteBatch::ApproximateSize() const { return rep_.size(); }

void WriteBatch::Put(const Slice& key, const Slice& value) {
  WriteBatchInternal::SetCount(this, WriteBatchInternal::Count(this) + 1);
  rep_.push_back(static_cast<char>(kTypeValue));
  PutLengthPrefixedSlice(&rep_, key);
  PutLengthPrefixedSlice(&rep_, value);
}

void WriteBatch::Delete(const Slice& key) {
  WriteBatchInternal::SetCount(this, WriteBatchInternal::Count(this) + 1);
  rep_.push_back(static_cast<char>(kTypeDeletion));
  PutLengthPrefixedSlice(&rep_, key);
}

void WriteBatch::Append(const WriteBatch& source) {
  WriteBatchInternal::Append(this, &source);
}

Status WriteBatch::Iterate(Handler* handler) const {
  Slice input(rep_);
  if (input.size() < WriteBatchInternal::kHeader) {
    return Status::Corruption("malformed WriteBatch (too small)");
  }
  input.remove_prefix(WriteBatchInternal::kHeader);
  const int expected = WriteBatchInternal::Count(this);
  int found = 0;
  Slice key;
  Slice value;
  while (!input.empty()) {
    const char tag = input[0];
    input.remove_prefix(1);
    switch (static_cast<uint8_t>(tag)) {
      case kTypeValue:
        if (!GetLengthPrefixedSlice(&input, &key) ||
            !GetLengthPrefixedSlice(&input, &value)) {
          return Status::Corruption("bad WriteBatch Put");
        }
        handler->Put(key, value);
        break;
      case kTypeDeletion:
        if (!GetLengthPrefixedSlice(&input, &key)) {
          return Status::Corruption("bad WriteBatch Delete");
        }
        handler->Delete(key);
        break;
      default:
        return Status::Corruption("unknown WriteBatch tag");
    }
    found++;
  }
  if (found != expected) {
    return Status::Corruption("WriteBatch has wrong count");
  }
  return Status::OK();
}

int WriteBatchInternal::Count(const WriteBatch* batch) {
  if (batch->rep_.size() < kHeader) return 0;
  return static_cast<int>(DecodeFixed32(batch->rep_.data() + 8));
}

void WriteBatchInternal::SetCount(WriteBatch* batch, int n) {
  EncodeFixed32(&batch->rep_[8], static_cast<uint32_t>(n));
}

SequenceNumber WriteBatchInternal::Sequence(const WriteBatch* batch) {
  if (batch->rep_.size() < kHeader) return 0;
  return DecodeFixed64(batch->rep_.data());
}

void WriteBatchInternal::SetSequence(WriteBatch* batch, SequenceNumber seq) {
  EncodeFixed64(&batch->rep_[0], seq);
}

void WriteBatchInternal::SetContents(WriteBatch* batch, const Slice& contents) {
  assert(contents.size() >= kHeader);
  batch->rep_.assign(contents.data(), contents.size());
  // Keep the invariant that rep_ always has a header, even if a caller
  // ignored the requirement, so Count()/SetCount() stay in bounds.
  if (batch->rep_.size() < kHeader) batch->rep_.resize(kHeader);
}

namespace {

// Applies a batch's updates to a memtable with consecutive sequence numbers.
class MemTableInserter : public WriteBatch::Handler {
 public:
  MemTableInserter(SequenceNumber first, MemTable* mem)
      : sequence_(first), mem_(mem) {}

  void Put(const Slice& key, const Slice& value) override {
    mem_->Add(sequence_, kTypeValue, key, value);
    sequence_++;
  }
  void Delete(const Slice& key) override {
    mem_->Add(sequence_, kTypeDeletion, key, Slice());
    sequence_++;
  }

 private:
  SequenceNumber sequence_;
  MemTable* const mem_;
};

}  // namespace

Status WriteBatchInternal::InsertInto(const WriteBatch* batch,
                                      MemTable* memtable) {
  MemTableInserter inserter(Sequence(batch), memtable);
  return batch->Iterate(&inserter);
}

void WriteBatchInternal::Append(WriteBatch* dst, const WriteBatch* src) {
  SetCount(dst, Count(dst) + Count(src));
  assert(src->rep_.size() >= kHeader);
  dst->rep_.append(src->rep_.data() + kHeader, src->rep_.size() - kHeader);
}

}  // namespace leveldb
