// Snapshots handed out by DB::GetSnapshot(), kept in a list ordered by
// sequence number so the DB can find the oldest one still alive (which
// bounds what compaction may drop).
//
// Not thread-safe: the DB mutex guards the list and every SnapshotImpl in it.
#ifndef DELSM_DB_SNAPSHOT_H_
#define DELSM_DB_SNAPSHOT_H_

#include <cassert>

#include "db/dbformat.h"
#include "leveldb/db.h"

namespace leveldb {

class SnapshotList;

// A snapshot: reads through it see exactly the writes with sequence numbers
// <= sequence_number().
class SnapshotImpl : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber sequence_number)
      : sequence_number_(sequence_number) {}

  SequenceNumber sequence_number() const { return sequence_number_; }

 private:
  friend class SnapshotList;

  // Neighbours in the owning list (circular, through the list's sentinel).
  // Changed only by SnapshotList.
  SnapshotImpl* prev_ = nullptr;
  SnapshotImpl* next_ = nullptr;

  const SequenceNumber sequence_number_;
#ifndef NDEBUG
  SnapshotList* list_ = nullptr;  // Catches deletion through another list.
#endif
};

class SnapshotList {
 public:
  SnapshotList() : head_(0) {
    head_.prev_ = &head_;
    head_.next_ = &head_;
  }
  SnapshotList(const SnapshotList&) = delete;
  SnapshotList& operator=(const SnapshotList&) = delete;
  // REQUIRES: empty(); snapshots are owned by clients until released.
  ~SnapshotList() { assert(empty()); }

  bool empty() const { return head_.next_ == &head_; }
  // REQUIRES: !empty()
  SnapshotImpl* oldest() const {
    assert(!empty());
    return head_.next_;
  }
  // REQUIRES: !empty()
  SnapshotImpl* newest() const {
    assert(!empty());
    return head_.prev_;
  }

  // Creates a snapshot at `sequence_number` and appends it.
  // REQUIRES: sequence_number >= newest()->sequence_number() when not empty,
  // so the list stays ordered.
  SnapshotImpl* New(SequenceNumber sequence_number) {
    assert(empty() || newest()->sequence_number_ <= sequence_number);
    SnapshotImpl* s = new SnapshotImpl(sequence_number);
#ifndef NDEBUG
    s->list_ = this;
#endif
    s->next_ = &head_;
    s->prev_ = head_.prev_;
    s->prev_->next_ = s;
    s->next_->prev_ = s;
    return s;
  }

  // Unlinks and deletes `snapshot`, which New() of this list returned.
  void Delete(const SnapshotImpl* snapshot) {
#ifndef NDEBUG
    assert(snapshot->list_ == this);
#endif
    snapshot->prev_->next_ = snapshot->next_;
    snapshot->next_->prev_ = snapshot->prev_;
    delete snapshot;
  }

 private:
  // Sentinel: head_.next_ is the oldest snapshot, head_.prev_ the newest.
  SnapshotImpl head_;
};

}  // namespace leveldb

#endif  // DELSM_DB_SNAPSHOT_H_
