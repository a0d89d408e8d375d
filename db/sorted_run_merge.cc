#include "db/sorted_run_merge.h"

#include <algorithm>

#include "table/meta_file.h"

namespace leveldb {

SortedRunMerge::SortedRunMerge(const Comparator* icmp,
                               std::vector<Input> inputs)
    : icmp_(icmp), inputs_(std::move(inputs)) {
  // The non-empty inputs by smallest key, each chained to the first run
  // whose last key is strictly below its first (first fit), else the start
  // of a new run. A run's members are then in key order and disjoint.
  std::vector<size_t> order;
  for (size_t i = 0; i < inputs_.size(); i++) {
    if (!inputs_[i].index->entries.empty()) order.push_back(i);
  }
  auto first_key = [this](size_t i) {
    return inputs_[i].index->entries.front().internal_key;
  };
  auto last_key = [this](size_t i) {
    return inputs_[i].index->entries.back().internal_key;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return icmp_->Compare(first_key(a), first_key(b)) < 0;
  });
  for (size_t i : order) {
    Run* into = nullptr;
    for (Run& run : runs_) {
      if (icmp_->Compare(last_key(run.members.back()), first_key(i)) < 0) {
        into = &run;
        break;
      }
    }
    if (into == nullptr) {
      runs_.emplace_back();
      into = &runs_.back();
    }
    into->members.push_back(i);
  }
  for (size_t r = 0; r < runs_.size(); r++) waiting_.push_back(r);
  std::make_heap(waiting_.begin(), waiting_.end(), After{this});
  if (!waiting_.empty()) {
    std::pop_heap(waiting_.begin(), waiting_.end(), After{this});
    current_ = waiting_.back();
    waiting_.pop_back();
  }
}

const MetaIndexEntry& SortedRunMerge::entry() const {
  const Run& run = runs_[current_];
  return inputs_[run.input()].index->entries[run.entry];
}

bool SortedRunMerge::Before(size_t a, size_t b) const {
  const Run& ra = runs_[a];
  const Run& rb = runs_[b];
  const size_t ia = ra.input(), ib = rb.input();
  const int c =
      icmp_->Compare(inputs_[ia].index->entries[ra.entry].internal_key,
                     inputs_[ib].index->entries[rb.entry].internal_key);
  if (c != 0) return c < 0;
  if (inputs_[ia].resident != inputs_[ib].resident) {
    return inputs_[ia].resident;
  }
  return ia < ib;
}

void SortedRunMerge::Next() {
  Run& run = runs_[current_];
  if (++run.entry == inputs_[run.input()].index->entries.size()) {
    run.entry = 0;
    if (++run.member == run.members.size()) {
      // Exhausted: the first of the waiting runs goes on.
      if (waiting_.empty()) {
        current_ = kNone;
        return;
      }
      std::pop_heap(waiting_.begin(), waiting_.end(), After{this});
      current_ = waiting_.back();
      waiting_.pop_back();
      return;
    }
  }
  // One comparison while the current run still holds the smallest entry.
  if (!waiting_.empty() && Before(waiting_.front(), current_)) {
    const size_t next = waiting_.front();
    std::pop_heap(waiting_.begin(), waiting_.end(), After{this});
    waiting_.back() = current_;
    std::push_heap(waiting_.begin(), waiting_.end(), After{this});
    current_ = next;
  }
}

}  // namespace leveldb
