// MemTable: the in-memory, sorted buffer of recent writes, keyed by internal
// key (user key, sequence, type) and backed by an Arena.
//
// Thread safety: Add() requires external synchronisation (one writer at a
// time). Get(), NewIterator() and the size getters may run concurrently with
// each other and with Add(). Ref()/Unref() must be serialised by the caller
// (the DB mutex); the table deletes itself when the count reaches zero, and
// every iterator must be destroyed before that.
#ifndef DELSM_DB_MEMTABLE_H_
#define DELSM_DB_MEMTABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "db/dbformat.h"
#include "db/skiplist.h"
#include "leveldb/iterator.h"
#include "leveldb/status.h"
#include "util/arena.h"

namespace leveldb {

class MemTableIterator;

class MemTable {
 public:
  // Starts with a reference count of zero: the creator must Ref() it.
  explicit MemTable(const InternalKeyComparator& comparator);
  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  void Ref() { ++refs_; }
  void Unref() {
    --refs_;
    assert(refs_ >= 0);
    if (refs_ <= 0) delete this;
  }

  // Bytes of memory held by the table (its arena), including overhead.
  size_t ApproximateMemoryUsage();

  // Number of entries added (values and deletions).
  uint64_t NumEntries() const {
    return num_entries_.load(std::memory_order_relaxed);
  }

  // Bytes of the largest value added (0 if none; deletions count as 0).
  size_t LargestValueSize() const {
    return largest_value_size_.load(std::memory_order_relaxed);
  }

  // An iterator over the table's entries in internal-key order: key() is the
  // internal key, value() the value (empty for deletions). The table must
  // stay referenced while the iterator is alive.
  Iterator* NewIterator();

  // Records `key` -> `value` at `seq` (value is ignored for deletions).
  // REQUIRES: no entry with the same user key and sequence was added.
  void Add(SequenceNumber seq, ValueType type, const Slice& key,
           const Slice& value);

  // Looks up the newest entry for key.user_key() with a sequence <= the
  // lookup sequence. If it is a value, stores it in *value and returns true;
  // if it is a deletion, sets *s to NotFound and returns true. Returns false
  // when the table holds no such entry.
  bool Get(const LookupKey& key, std::string* value, Status* s);

 private:
  friend class MemTableIterator;

  // Orders the arena entries, each starting with a length-prefixed internal
  // key, by the internal key comparator.
  struct KeyComparator {
    const InternalKeyComparator comparator;
    explicit KeyComparator(const InternalKeyComparator& c) : comparator(c) {}
    int operator()(const char* a, const char* b) const;
  };
  typedef SkipList<const char*, KeyComparator> Table;

  ~MemTable();  // Only Unref() deletes.

  KeyComparator comparator_;
  int refs_;  // Guarded by the owner's lock (see class comment).
  std::atomic<uint64_t> num_entries_;          // Changed only by Add().
  std::atomic<size_t> largest_value_size_{0};  // Changed only by Add().
  Arena arena_;
  Table table_;
};

}  // namespace leveldb

#endif  // DELSM_DB_MEMTABLE_H_
