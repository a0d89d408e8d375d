// SstDir's iterator through the groups of a format-4 meta file, for an SST
// without a KV file (every entry inline or a tombstone) whose whole index is
// not loaded (SstDir::NewIterator). Contract: the same entries, keys,
// values and statuses as the index iterator (sst_dir_iterator.cc) over the
// same SST, for every sequence of SeekToFirst, SeekToLast, Seek, Next and
// Prev, without decoding the whole index: the iterator holds the one group
// it is in (16 entries on the stack of the iterator, not 56 bytes per entry
// of the SST in a vector that a scan of a large SST writes and reads again
// before its first entry), decoded as far as it has moved in it, and
// decodes the next or the previous group when it moves past an end of it.
//
// Damage: a group is read through SstDir's group readers, which check it
// whole (crc and every entry) the first time any reader reads it, and
// afterwards decode only the entries asked for, without the crc. A group
// that fails its check makes the iterator invalid with that Corruption
// where it reaches it (the entries of the groups before it are returned
// as they are, none of the damaged one's nor of any after it). The status
// stays: a later seek leaves the iterator invalid, as after a failed value
// read, so that no caller moves on past damage it did not look at.
//
// Values: read as the index iterator reads them (SstDir::ValueReader,
// sst_dir_value_reader.h). No entry has a KV file (decoding refuses one
// when the trailer counts none), so there is no KV-file read-ahead.
//
// Seeks: each one decodes a group up to its target (the next group's first
// entry at most besides) where the index iterator searches a loaded index;
// the SST counts them, and past SstDir::IndexAfterGroupSeeks() its later
// iterators go through the whole index (SstDir::NewIterator). Iterators
// made before that stay group iterators. A short scan of a group checked
// before (a Seek and a few Nexts) decodes only the entries it passes.
//
// Not thread-safe (an Iterator); any number of them, and of lookups, may
// read one SstDir at once (group_checked_ and the seek count are atomic).
#include <atomic>
#include <cassert>
#include <cstdint>

#include "table/sst_dir.h"
#include "table/sst_dir_value_reader.h"

namespace leveldb {

class SstDir::GroupIterator final : public Iterator {
 public:
  GroupIterator(const SstDir* dir, const ReadOptions& options)
      : dir_(dir),
        groups_(dir->trailer_.groups.size()),
        group_(groups_),
        reader_(dir, options, dir->trailer_.num_entries,
                /*whole_index=*/false) {}

  bool Valid() const override { return group_ < groups_ && status_.ok(); }
  void SeekToFirst() override {
    Reposition();
    if (groups_ > 0 && StartGroup(0, 1)) pos_ = 0;
  }
  void SeekToLast() override {
    Reposition();
    if (groups_ > 0 && StartGroup(groups_ - 1, AllOf(groups_ - 1))) {
      pos_ = count_ - 1;
    }
  }
  void Seek(const Slice& target) override {
    Reposition();
    if (!status_.ok()) return;
    std::atomic<uint32_t>& seeks = dir_->group_seeks_;
    if (seeks.load(std::memory_order_relaxed) <
        dir_->index_after_group_seeks_) {
      seeks.fetch_add(1, std::memory_order_relaxed);
    }
    const size_t lo = dir_->GroupLowerBound(target);
    if (lo > 0) {
      // Every entry of group lo - 1 is before the target but maybe its last
      // ones (its first is: the trailer says so).
      size_t a;
      Status s = dir_->SeekInGroup(lo - 1, target, 1, entries_, &a, &cursor_);
      if (!s.ok()) {
        status_ = s;
        return;
      }
      if (a < dir_->trailer_.EntriesIn(lo - 1)) {
        Positioned(lo - 1, a);
        return;
      }
    }
    // Group lo's first entry, or none.
    if (lo < groups_ && StartGroup(lo, 1)) pos_ = 0;
  }
  void Next() override {
    assert(Valid());
    reader_.Moved();
    if (++pos_ < count_) {
      if (pos_ >= cursor_.decoded) Decode(pos_ + 1);
      return;
    }
    const size_t next = group_ + 1;
    group_ = groups_;
    if (next < groups_ && StartGroup(next, 1)) pos_ = 0;
  }
  void Prev() override {
    assert(Valid());
    reader_.Moved();
    if (pos_ > 0) {
      pos_--;  // decoded: every entry before a decoded one is
      return;
    }
    const size_t previous = group_;
    group_ = groups_;
    if (previous > 0 && StartGroup(previous - 1, AllOf(previous - 1))) {
      pos_ = count_ - 1;
    }
  }
  Slice key() const override {
    assert(Valid());
    return entries_[pos_].internal_key;
  }
  Slice value() const override {
    assert(Valid());
    // A failed read invalidates the iterator (the Iterator contract).
    return reader_.Value(Number(), entries_[pos_], &status_);
  }
  Status status() const override { return status_; }

 private:
  // A seek ends any scan in progress, and leaves the iterator unpositioned
  // until it finds its entry.
  void Reposition() {
    group_ = groups_;
    reader_.Repositioned();
  }

  size_t AllOf(size_t g) const { return dir_->trailer_.EntriesIn(g); }

  // Makes group g the current one, positioned at entry `pos`, which
  // cursor_ has decoded.
  void Positioned(size_t g, size_t pos) {
    group_ = g;
    count_ = AllOf(g);
    pos_ = pos;
  }

  // Makes group g the current one with at least its first `until` entries
  // decoded into entries_; false (the iterator invalid with the group's
  // status) if it is damaged.
  bool StartGroup(size_t g, size_t until) {
    group_ = groups_;
    if (!status_.ok()) return false;
    Status s = dir_->StartGroup(g, until, entries_, &cursor_);
    if (!s.ok()) {
      status_ = s;
      return false;
    }
    group_ = g;
    count_ = AllOf(g);
    return true;
  }

  // The current group's entries up to `until` decoded; the iterator
  // invalid with the group's status if that fails.
  void Decode(size_t until) {
    Status s = dir_->ContinueGroup(group_, until, entries_, &cursor_);
    if (!s.ok()) {
      status_ = s;
      group_ = groups_;
    }
  }

  // The current entry's number in the SST (for errors and scan detection).
  size_t Number() const { return group_ * kMetaGroupEntries + pos_; }

  const SstDir* const dir_;
  const size_t groups_;
  // The current group (groups_ when not positioned), its entry count, the
  // position in it, and its entries, pointing into the SST's group bytes:
  // entries_[0 .. cursor_.decoded) are decoded, pos_ among them.
  size_t group_;
  size_t count_ = 0;
  size_t pos_ = 0;
  MetaGroupCursor cursor_;
  MetaIndexEntry entries_[kMetaGroupEntries];
  // value() is const; reading a value changes only what is read.
  mutable SstDir::ValueReader reader_;
  mutable Status status_;
};

Iterator* SstDir::NewGroupIterator(const ReadOptions& options) const {
  return new GroupIterator(this, options);
}

}  // namespace leveldb
