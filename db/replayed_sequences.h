// The sequence numbers a recovery replayed from its WALs, as disjoint
// ranges. Sequence numbers are handed out without gaps, one per entry of a
// batch, so a gap between two replayed batches means a record the WAL no
// longer holds (damage that the reader skipped). Recovery uses this set as
// the evidence that the replay holds every write of an L0 SST before it
// lets the replay replace that SST (DBImpl::DropLevel0CoveredByWal).
// Not thread-safe.
#ifndef DELSM_DB_REPLAYED_SEQUENCES_H_
#define DELSM_DB_REPLAYED_SEQUENCES_H_

#include <iterator>
#include <map>

#include "db/dbformat.h"

namespace leveldb {

class ReplayedSequences {
 public:
  // Records that sequences first..last (inclusive, first <= last) were
  // replayed.
  void Add(SequenceNumber first, SequenceNumber last) {
    // The range starting at or before `first` may overlap or touch it.
    auto it = ranges_.upper_bound(first);
    if (it != ranges_.begin()) {
      auto prev = std::prev(it);
      if (prev->second + 1 >= first) {
        first = prev->first;
        if (prev->second > last) last = prev->second;
        ranges_.erase(prev);
      }
    }
    // Ranges starting inside or right after the new one join it.
    it = ranges_.lower_bound(first);
    while (it != ranges_.end() && it->first <= last + 1) {
      if (it->second > last) last = it->second;
      it = ranges_.erase(it);
    }
    ranges_[first] = last;
  }

  bool empty() const { return ranges_.empty(); }
  // The largest sequence replayed (0 if none).
  SequenceNumber largest() const {
    return ranges_.empty() ? 0 : ranges_.rbegin()->second;
  }
  // True if every sequence in first..last (first <= last) was replayed.
  bool Holds(SequenceNumber first, SequenceNumber last) const {
    auto it = ranges_.upper_bound(first);
    if (it == ranges_.begin()) return false;
    --it;
    return it->first <= first && last <= it->second;
  }

 private:
  // First sequence of a range -> its last; ranges neither overlap nor
  // touch (touching ranges are merged).
  std::map<SequenceNumber, SequenceNumber> ranges_;
};

}  // namespace leveldb

#endif  // DELSM_DB_REPLAYED_SEQUENCES_H_
