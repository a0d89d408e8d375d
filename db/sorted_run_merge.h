// SortedRunMerge walks the entries of a compaction's input SSTs in the
// order DentryCompaction takes them: ascending internal key; of two entries
// with the same internal key, the one of a resident input first (see
// DentryCompaction::Run), then the one of the input earlier in the list.
// Every entry of every input is visited exactly once.
//
// Inputs whose key ranges do not overlap (the SSTs of one level below L0,
// or L0 SSTs of a sequential load) are chained into one sorted run, and
// the merge keeps taking entries from the run that holds the smallest one
// until another run's head comes first: merging an L0 SST into the SSTs of
// its level below costs one comparison per entry, not a heap operation over
// every input. Which inputs are chained does not change the order, which
// is a total order on the entries (an SST's keys are strictly increasing).
//
// The MetaIndexes must outlive the merge and not change. Not thread-safe.
#ifndef DELSM_DB_SORTED_RUN_MERGE_H_
#define DELSM_DB_SORTED_RUN_MERGE_H_

#include <cstddef>
#include <vector>

#include "leveldb/comparator.h"

namespace leveldb {

struct MetaIndex;
struct MetaIndexEntry;

class SortedRunMerge {
 public:
  struct Input {
    const MetaIndex* index;  // its entries in strictly increasing order
    bool resident;           // wins ties with an input that is not
  };

  // `icmp` compares internal keys. Positioned at the first entry (invalid
  // if every input is empty).
  SortedRunMerge(const Comparator* icmp, std::vector<Input> inputs);
  SortedRunMerge(const SortedRunMerge&) = delete;
  SortedRunMerge& operator=(const SortedRunMerge&) = delete;

  bool Valid() const { return current_ != kNone; }
  // The current entry: inputs[input()].index->entries[index()]. Valid()
  // required.
  size_t input() const { return runs_[current_].input(); }
  size_t index() const { return runs_[current_].entry; }
  const MetaIndexEntry& entry() const;
  // Moves to the next entry. Valid() required.
  void Next();

  // The number of sorted runs the inputs were chained into.
  size_t runs() const { return runs_.size(); }

 private:
  // Inputs in key order whose ranges do not overlap; its head is entry
  // `entry` of inputs[members[member]].
  struct Run {
    std::vector<size_t> members;
    size_t member = 0;
    size_t entry = 0;
    size_t input() const { return members[member]; }
  };
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // True if run a's head comes before run b's.
  bool Before(size_t a, size_t b) const;
  // Heap order of waiting_: the run whose head comes first on top.
  struct After {
    const SortedRunMerge* merge;
    bool operator()(size_t a, size_t b) const { return merge->Before(b, a); }
  };

  const Comparator* const icmp_;
  const std::vector<Input> inputs_;
  std::vector<Run> runs_;
  size_t current_ = kNone;       // the run holding the current entry
  std::vector<size_t> waiting_;  // the other runs not yet exhausted (heap)
};

}  // namespace leveldb

#endif  // DELSM_DB_SORTED_RUN_MERGE_H_
