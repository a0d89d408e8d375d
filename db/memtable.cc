// MemTable entry layout in the arena, right after the skiplist node that
// links it (one allocation per Add, see SkipList::AllocateKey):
//   varint32 internal_key_size | user key | tag (fixed64)
//   varint32 value_size | value bytes
#include "db/memtable.h"

#include <cstring>

#include "util/coding.h"

namespace leveldb {

namespace {

// Reads the varint32-prefixed slice that starts at p. Entries in the arena
// were written by Add(), so the prefix is known to be well formed.
Slice GetLengthPrefixed(const char* p) {
  uint32_t len = 0;
  const char* data = GetVarint32Ptr(p, p + 5, &len);
  return Slice(data, len);
}

}  // namespace

MemTable::MemTable(const InternalKeyComparator& comparator)
    : comparator_(comparator),
      refs_(0),
      num_entries_(0),
      table_(comparator_, &arena_) {}

MemTable::~MemTable() { assert(refs_ == 0); }

size_t MemTable::ApproximateMemoryUsage() { return arena_.MemoryUsage(); }

int MemTable::KeyComparator::operator()(const char* a, const char* b) const {
  return comparator.Compare(GetLengthPrefixed(a), GetLengthPrefixed(b));
}

// Iterates the skiplist; key() is the internal key.
class MemTableIterator : public Iterator {
 public:
  explicit MemTableIterator(MemTable::Table* table) : iter_(table) {}
  MemTableIterator(const MemTableIterator&) = delete;
  MemTableIterator& operator=(const MemTableIterator&) = delete;
  ~MemTableIterator() override = default;

  bool Valid() const override { return iter_.Valid(); }
  void Seek(const Slice& k) override {
    // The skiplist compares length-prefixed keys, so build one.
    scratch_.clear();
    PutVarint32(&scratch_, static_cast<uint32_t>(k.size()));
    scratch_.append(k.data(), k.size());
    iter_.Seek(scratch_.data());
  }
  void SeekToFirst() override { iter_.SeekToFirst(); }
  void SeekToLast() override { iter_.SeekToLast(); }
  void Next() override { iter_.Next(); }
  void Prev() override { iter_.Prev(); }
  Slice key() const override { return GetLengthPrefixed(iter_.key()); }
  Slice value() const override {
    const Slice k = GetLengthPrefixed(iter_.key());
    return GetLengthPrefixed(k.data() + k.size());
  }
  Status status() const override { return Status::OK(); }

 private:
  MemTable::Table::Iterator iter_;
  std::string scratch_;  // Backing store of the last Seek target.
};

Iterator* MemTable::NewIterator() { return new MemTableIterator(&table_); }

void MemTable::Add(SequenceNumber seq, ValueType type, const Slice& key,
                   const Slice& value) {
  const size_t internal_size = key.size() + 8;
  const Slice stored_value = (type == kTypeValue) ? value : Slice();
  const size_t total = VarintLength(internal_size) + internal_size +
                       VarintLength(stored_value.size()) + stored_value.size();
  char* buf = table_.AllocateKey(total);
  char* p = EncodeVarint32(buf, static_cast<uint32_t>(internal_size));
  if (!key.empty()) std::memcpy(p, key.data(), key.size());
  p += key.size();
  EncodeFixed64(p, PackSequenceAndType(seq, type));
  p += 8;
  p = EncodeVarint32(p, static_cast<uint32_t>(stored_value.size()));
  if (!stored_value.empty()) {
    std::memcpy(p, stored_value.data(), stored_value.size());
  }
  assert(p + stored_value.size() == buf + total);
  table_.InsertAllocated(buf);
  num_entries_.fetch_add(1, std::memory_order_relaxed);
  if (stored_value.size() > LargestValueSize()) {
    largest_value_size_.store(stored_value.size(), std::memory_order_relaxed);
  }
}

bool MemTable::Get(const LookupKey& key, std::string* value, Status* s) {
  Table::Iterator iter(&table_);
  // The lookup key sorts before every entry of its user key with a sequence
  // <= its own, so the first entry at or after it is the newest visible one
  // if it has the same user key.
  iter.Seek(key.memtable_key().data());
  if (!iter.Valid()) return false;
  const Slice internal_key = GetLengthPrefixed(iter.key());
  if (comparator_.comparator.user_comparator()->Compare(
          ExtractUserKey(internal_key), key.user_key()) != 0) {
    return false;
  }
  const uint64_t tag = ExtractTag(internal_key);
  switch (static_cast<ValueType>(tag & 0xff)) {
    case kTypeValue: {
      const Slice v =
          GetLengthPrefixed(internal_key.data() + internal_key.size());
      value->assign(v.data(), v.size());
      return true;
    }
    case kTypeDeletion:
      *s = Status::NotFound(Slice());
      return true;
  }
  return false;
}

}  // namespace leveldb
