// SstDir's iterator through the groups of a format-4 meta file, for an SST
// without a KV file (every entry inline or a tombstone) whose whole index is
// not loaded (SstDir::NewIterator). Contract: the same entries, keys,
// values and statuses as the index iterator (sst_dir_iterator.cc) over the
// same SST, for every sequence of SeekToFirst, SeekToLast, Seek, Next and
// Prev, without decoding the whole index: the iterator holds the one group
// it is in, decoded whole (16 entries on the stack of the iterator, not
// 56 bytes per entry of the SST in a vector that a scan of a large SST
// writes and reads again before its first entry), and decodes the next or
// the previous group when it moves past an end of it.
//
// Damage: a group is read through SstDir::ReadGroup, which checks it whole
// (crc and every entry) the first time any reader reads it and decodes it
// without the crc afterwards. A group that fails its check makes the
// iterator invalid with that Corruption where it reaches it (the entries of
// the groups before it are returned as they are, none of the damaged one's
// nor of any after it). The status stays: a later seek leaves the iterator
// invalid, as after a failed value read, so that no caller moves on past
// damage it did not look at.
//
// Values: an inline value of a mapped meta file is read in memory (an
// uncompressed one without a copy), checked against its crc on every read;
// an unmapped meta file's are read by offset, and once value() has been
// asked at two successive positions in one direction, in pieces of
// read_ahead_bytes (the value section holds them in key order), as the
// index iterator does. No entry has a KV file (decoding refuses one when the
// trailer counts none), so there is no KV-file read-ahead.
//
// Seeks: each one decodes a group (two at most) where the index iterator
// searches a loaded index; the SST counts them, and past
// kIndexAfterGroupSeeks its later iterators go through the whole index
// (SstDir::NewIterator). Iterators made before that stay group iterators.
//
// Not thread-safe (an Iterator); any number of them, and of lookups, may
// read one SstDir at once (group_checked_ and the seek count are atomic).
#include <atomic>
#include <cassert>
#include <cstdint>

#include "table/sst_dir.h"

namespace leveldb {

class SstDir::GroupIterator final : public Iterator {
 public:
  GroupIterator(const SstDir* dir, const ReadOptions& options)
      : dir_(dir),
        options_(options),
        groups_(dir->trailer_.groups.size()),
        entries_in_sst_(dir->trailer_.num_entries),
        group_(groups_) {}

  bool Valid() const override { return group_ < groups_ && status_.ok(); }
  void SeekToFirst() override {
    Reposition();
    if (groups_ > 0 && LoadGroup(0)) pos_ = 0;
  }
  void SeekToLast() override {
    Reposition();
    if (groups_ > 0 && LoadGroup(groups_ - 1)) pos_ = count_ - 1;
  }
  void Seek(const Slice& target) override {
    Reposition();
    if (!status_.ok()) return;
    std::atomic<uint32_t>& seeks = dir_->group_seeks_;
    if (seeks.load(std::memory_order_relaxed) < kIndexAfterGroupSeeks) {
      seeks.fetch_add(1, std::memory_order_relaxed);
    }
    const size_t lo = dir_->GroupLowerBound(target);
    if (lo > 0) {
      // Every entry of group lo - 1 is before the target but maybe its last
      // ones (its first is: the trailer says so).
      if (!LoadGroup(lo - 1)) return;
      const Comparator* cmp = dir_->options_.comparator;
      size_t a = 1, b = count_;
      while (a < b) {
        const size_t mid = a + (b - a) / 2;
        if (cmp->Compare(entries_[mid].internal_key, target) < 0) {
          a = mid + 1;
        } else {
          b = mid;
        }
      }
      if (a < count_) {
        pos_ = a;
        return;
      }
    }
    // Group lo's first entry, or none.
    group_ = groups_;
    if (lo < groups_ && LoadGroup(lo)) pos_ = 0;
  }
  void Next() override {
    assert(Valid());
    value_loaded_ = false;
    if (++pos_ < count_) return;
    const size_t next = group_ + 1;
    group_ = groups_;
    if (next < groups_ && LoadGroup(next)) pos_ = 0;
  }
  void Prev() override {
    assert(Valid());
    value_loaded_ = false;
    if (pos_ > 0) {
      pos_--;
      return;
    }
    const size_t previous = group_;
    group_ = groups_;
    if (previous > 0 && LoadGroup(previous - 1)) pos_ = count_ - 1;
  }
  Slice key() const override {
    assert(Valid());
    return entries_[pos_].internal_key;
  }
  Slice value() const override {
    assert(Valid());
    if (!value_loaded_) {
      Status s = Load();
      if (!s.ok()) {
        // The contract: a failed read invalidates the iterator.
        status_ = s;
        value_.clear();
        value_slice_ = Slice();
        return Slice();
      }
      value_loaded_ = true;
    }
    return value_slice_;
  }
  Status status() const override { return status_; }

 private:
  // A seek ends any scan in progress, and leaves the iterator unpositioned
  // until it finds its entry.
  void Reposition() {
    group_ = groups_;
    value_loaded_ = false;
    last_loaded_ = entries_in_sst_;
    direction_ = 0;
    run_ = 0;
  }

  // Makes group g the current one, decoded into entries_; false (the
  // iterator invalid with the group's status) if it is damaged.
  bool LoadGroup(size_t g) {
    group_ = groups_;
    if (!status_.ok()) return false;
    Status s = dir_->ReadGroup(g, entries_);
    if (!s.ok()) {
      status_ = s;
      return false;
    }
    group_ = g;
    count_ = dir_->trailer_.EntriesIn(g);
    return true;
  }

  // The current entry's number in the SST (for errors and scan detection).
  size_t Number() const { return group_ * kMetaGroupEntries + pos_; }

  // Reads the current entry's value into value_slice_.
  Status Load() const {
    const MetaIndexEntry& e = entries_[pos_];
    value_slice_ = Slice();
    if (e.storage == ValueStorage::kNone) return Status::OK();
    if (dir_->InlineInMemory(e.storage)) {
      // Read in memory, whatever the access pattern: no scan detection, no
      // buffer, no value cache. An uncompressed value is not even copied.
      Slice stored;
      Status s = dir_->ReadEntryInlineStored(Number(), e, 0, 0, &inline_buffer_,
                                             &inline_buffer_offset_, &stored);
      if (!s.ok()) return s;
      if (!StoredCompressed(e.storage) && stored.size() == e.value_size) {
        value_slice_ = stored;
        return Status::OK();
      }
      s = dir_->DecodeEntryInlineValue(Number(), e, stored, &value_);
      if (s.ok()) value_slice_ = value_;
      return s;
    }
    Status s = LoadFromFile(e);
    if (s.ok()) value_slice_ = value_;
    return s;
  }

  // Load() of a value read by system calls, noting whether the reads form
  // a scan; the same policy as the index iterator's (a scan neither looks
  // the value cache up nor fills it).
  Status LoadFromFile(const MetaIndexEntry& e) const {
    const size_t number = Number();
    const int direction =
        last_loaded_ == entries_in_sst_ ? 0 : (number > last_loaded_ ? 1 : -1);
    if (direction != 0 && (direction_ == 0 || direction == direction_)) {
      run_++;
    } else {
      run_ = 1;
    }
    direction_ = direction;
    last_loaded_ = number;
    const bool scan = run_ >= 2;

    if (!scan && dir_->LookupCachedEntry(e.internal_key, &value_)) {
      return Status::OK();
    }
    Status s;
    if (StoredInline(e.storage)) {
      const size_t ahead = scan ? dir_->options().read_ahead_bytes : 0;
      Slice stored;
      s = dir_->ReadEntryInlineStored(number, e, direction_, ahead,
                                      &inline_buffer_, &inline_buffer_offset_,
                                      &stored);
      if (s.ok()) s = dir_->DecodeEntryInlineValue(number, e, stored, &value_);
    } else {
      // No entry has a KV file here (see above); whatever the kind, the
      // reader that knows it answers.
      s = dir_->ReadEntryValueUncached(options_, number, e, &value_, nullptr);
    }
    if (s.ok() && options_.fill_cache && !scan) {
      dir_->CacheEntry(e.internal_key, value_);
    }
    return s;
  }

  const SstDir* const dir_;
  const ReadOptions options_;
  const size_t groups_;
  const size_t entries_in_sst_;
  // The current group (groups_ when not positioned), its entry count, the
  // position in it, and its entries, pointing into the SST's group bytes.
  size_t group_;
  size_t count_ = 0;
  size_t pos_ = 0;
  MetaIndexEntry entries_[kMetaGroupEntries];
  // Lazily loaded value of entries_[pos_]; mutable because value() is
  // const.
  mutable std::string value_;
  // What value() returns: value_, or the stored bytes of an uncompressed
  // inline value in a mapped meta file (valid while dir_ lives).
  mutable Slice value_slice_;
  mutable bool value_loaded_ = false;
  mutable Status status_;
  // Scan detection: the number of the last entry whose value was read
  // (entries_in_sst_: none), the direction from the one before, and how
  // many reads in a row went that way.
  mutable size_t last_loaded_ = entries_in_sst_;
  mutable int direction_ = 0;
  mutable int run_ = 0;
  // A piece of the meta file's value section, at inline_buffer_offset_.
  mutable std::string inline_buffer_;
  mutable uint64_t inline_buffer_offset_ = 0;
};

Iterator* SstDir::NewGroupIterator(const ReadOptions& options) const {
  return new GroupIterator(this, options);
}

}  // namespace leveldb
