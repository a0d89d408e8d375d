#include "table/value_prefetcher.h"

#include <condition_variable>
#include <mutex>

#include "table/sst_dir.h"
#include "util/thread_pool.h"

namespace leveldb {

namespace {
// How far past the cursor to look for KV files in one Advance(): inline
// values and tombstones in between need no read ahead.
constexpr int64_t kMaxLookahead = 512;
}  // namespace

// One read ahead. Fields are guarded by Shared::mu.
struct ValuePrefetcher::Slot {
  size_t index = 0;
  uint64_t bytes = 0;
  bool started = false;
  bool cancelled = false;  // never start it
  bool done = false;
  bool from_cache = false;  // the read did not wait for the device
  std::string value;
  Status status;
};

struct ValuePrefetcher::Shared {
  std::mutex mu;
  std::condition_variable cv;  // signalled when a read finishes
  int running = 0;             // reads started and not finished
};

ValuePrefetcher::ValuePrefetcher(const SstDir* dir, const ReadOptions& options)
    : dir_(dir), options_(options), shared_(std::make_shared<Shared>()) {}

ValuePrefetcher::~ValuePrefetcher() {
  std::unique_lock<std::mutex> l(shared_->mu);
  for (auto& slot : window_) slot->cancelled = true;
  shared_->cv.wait(l, [this] { return shared_->running == 0; });
}

void ValuePrefetcher::Clear() {
  std::lock_guard<std::mutex> l(shared_->mu);
  for (auto& slot : window_) slot->cancelled = true;
  window_.clear();
  window_bytes_ = 0;
  direction_ = 0;
}

bool ValuePrefetcher::Take(size_t index, int direction, std::string* value,
                           Status* status, bool* from_cache) {
  std::unique_lock<std::mutex> l(shared_->mu);
  if (direction != direction_) return false;
  // Drop the reads of entries the scan went past (shadowed versions).
  while (!window_.empty() && (direction > 0 ? window_.front()->index < index
                                            : window_.front()->index > index)) {
    window_.front()->cancelled = true;
    window_bytes_ -= window_.front()->bytes;
    window_.pop_front();
  }
  if (window_.empty() || window_.front()->index != index) return false;
  std::shared_ptr<Slot> slot = window_.front();
  window_.pop_front();
  window_bytes_ -= slot->bytes;
  if (!slot->started) {
    slot->cancelled = true;  // read it here rather than queue behind others
    l.unlock();
    *status =
        dir_->ReadValueUncached(options_, index, value, nullptr, from_cache);
    return true;
  }
  shared_->cv.wait(l, [&slot] { return slot->done; });
  *value = std::move(slot->value);
  *status = slot->status;
  *from_cache = slot->from_cache;
  return true;
}

void ValuePrefetcher::Schedule(size_t index) {
  auto slot = std::make_shared<Slot>();
  slot->index = index;
  slot->bytes = dir_->contents().entries[index].stored_size;
  window_.push_back(slot);
  window_bytes_ += slot->bytes;
  std::shared_ptr<Shared> shared = shared_;
  const SstDir* dir = dir_;
  const ReadOptions options = options_;
  dir_->options().read_ahead_pool->Submit([shared, slot, dir, options] {
    {
      std::lock_guard<std::mutex> l(shared->mu);
      if (slot->cancelled) return;
      slot->started = true;
      shared->running++;
    }
    // The prefetcher waits for running reads before it (and so its
    // iterator, which pins `dir`) goes away.
    std::string value;
    bool from_cache = false;
    Status s = dir->ReadValueUncached(options, slot->index, &value, nullptr,
                                      &from_cache);
    std::lock_guard<std::mutex> l(shared->mu);
    slot->from_cache = from_cache;
    slot->value = std::move(value);
    slot->status = s;
    slot->done = true;
    shared->running--;
    shared->cv.notify_all();
  });
}

void ValuePrefetcher::Advance(size_t index, int direction) {
  const SstDirOptions& o = dir_->options();
  const auto& entries = dir_->contents().entries;
  const int64_t n = static_cast<int64_t>(entries.size());
  if (direction != direction_) {
    Clear();
    direction_ = direction;
  }
  const int64_t at = static_cast<int64_t>(index);
  if (window_.empty() || (direction > 0 ? next_ <= at : next_ >= at)) {
    next_ = at + direction;
  }
  std::lock_guard<std::mutex> l(shared_->mu);
  for (int64_t looked = 0;
       looked < kMaxLookahead && next_ >= 0 && next_ < n &&
       static_cast<int>(window_.size()) < o.read_ahead_files &&
       window_bytes_ < o.read_ahead_bytes;
       looked++, next_ += direction) {
    const size_t i = static_cast<size_t>(next_);
    if (!HasKvFile(entries[i].storage)) continue;
    Schedule(i);
  }
}

}  // namespace leveldb
