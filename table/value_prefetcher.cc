#include "table/value_prefetcher.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "table/sst_dir.h"
#include "table/sst_dir_options.h"
#include "util/thread_pool.h"

namespace leveldb {

namespace {
// How far past the cursor to look for KV files in one Advance(): inline
// values and tombstones in between need no read ahead.
constexpr int64_t kMaxLookahead = 512;
}  // namespace

// The window: positions [head, tail) of the scan's plan (its KV-file
// entries in scan order), position p in slots[p % slots.size()];
// positions [head, claim) are claimed (being read, or read). Positions
// only grow (Clear moves head and claim up to tail), so a read that
// finishes after its position left the window finds the slot holding
// another position (or a dropped one) and its result goes nowhere a scan
// takes values from.
struct ValuePrefetcher::Shared {
  enum State { kQueued, kRunning, kDone };
  struct Slot {
    uint64_t pos = 0;
    size_t index = 0;
    uint64_t bytes = 0;
    State state = kQueued;
    std::string value;
    Status status;
  };

  Shared(const SstDir* d, const ReadOptions& o, int files)
      : dir(d), options(o), slots(static_cast<size_t>(std::max(files, 1))) {}

  Slot& At(uint64_t pos) { return slots[pos % slots.size()]; }

  // Reads position `pos`, which the caller just claimed, with mu released
  // (`l` holds it on entry and on return); stores the outcome in its slot
  // if the slot still holds `pos`.
  void ReadClaimed(uint64_t pos, std::unique_lock<std::mutex>* l) {
    Slot& slot = At(pos);
    slot.state = kRunning;
    const size_t index = slot.index;
    l->unlock();
    std::string value;
    bool from_cache = false;
    Status s = dir->ReadValueUncached(options, index, &value, &from_cache);
    l->lock();
    Note(s, from_cache);
    if (slot.pos == pos) {
      slot.value = std::move(value);
      slot.status = s;
      slot.state = kDone;
    }
    if (scan_waiting) cv.notify_all();
  }

  void Note(const Status& s, bool from_cache) {
    if (!s.ok()) return;
    if (!from_cache) {
      reads_from_memory = 0;
    } else if (reads_from_memory < kReadsFromMemoryToStopReadAhead) {
      reads_from_memory++;
    }
  }

  const SstDir* const dir;
  const ReadOptions options;
  std::mutex mu;
  // Signalled when a read finishes while the scan waits, and when a helper
  // ends while the prefetcher is being destroyed.
  std::condition_variable cv;
  std::vector<Slot> slots;
  uint64_t head = 0, claim = 0, tail = 0;
  uint64_t bytes = 0;  // stored bytes of positions [head, tail)
  int helpers = 0;     // helper tasks submitted and not finished
  int running = 0;     // reads under way on helpers
  // Reads in a row that found their file in memory (capped).
  int reads_from_memory = kReadsFromMemoryToStopReadAhead;
  bool scan_waiting = false;
  bool stopping = false;  // the prefetcher is being destroyed
};

ValuePrefetcher::ValuePrefetcher(const SstDir* dir, const ReadOptions& options)
    : dir_(dir),
      options_(options),
      shared_(std::make_shared<Shared>(dir, options,
                                       dir->options().read_ahead_files)) {}

ValuePrefetcher::~ValuePrefetcher() {
  std::unique_lock<std::mutex> l(shared_->mu);
  shared_->stopping = true;
  shared_->cv.wait(l, [this] { return shared_->running == 0; });
}

void ValuePrefetcher::Clear() {
  std::lock_guard<std::mutex> l(shared_->mu);
  shared_->head = shared_->claim = shared_->tail;
  shared_->bytes = 0;
  direction_ = 0;
}

Status ValuePrefetcher::Read(size_t index, int direction, std::string* value) {
  if (direction != direction_) {
    Clear();
    direction_ = direction;
    next_ = static_cast<int64_t>(index) + direction;
  }
  Shared* const sh = shared_.get();
  Status s;
  bool taken = false;
  {
    std::unique_lock<std::mutex> l(sh->mu);
    // Drop the positions of entries the scan went past.
    while (sh->head < sh->tail) {
      Shared::Slot& h = sh->At(sh->head);
      if (direction > 0 ? h.index >= index : h.index <= index) break;
      if (sh->claim == sh->head) sh->claim++;
      sh->bytes -= h.bytes;
      sh->head++;
    }
    if (sh->head < sh->tail && sh->At(sh->head).index == index) {
      const uint64_t pos = sh->head;
      if (sh->claim == pos) {
        sh->claim++;
        sh->ReadClaimed(pos, &l);
      }
      // The slot stays pos's: only Advance, on this thread, refills.
      while (sh->At(pos).state != Shared::kDone) {
        if (sh->claim < sh->tail) {
          // Read the next file rather than wait.
          sh->ReadClaimed(sh->claim++, &l);
          continue;
        }
        sh->scan_waiting = true;
        sh->cv.wait(l);
        sh->scan_waiting = false;
      }
      Shared::Slot& slot = sh->At(pos);
      *value = std::move(slot.value);
      slot.value.clear();
      s = slot.status;
      sh->bytes -= slot.bytes;
      sh->head++;
      taken = true;
    }
  }
  if (!taken) {
    bool from_cache = false;
    s = dir_->ReadValueUncached(options_, index, value, &from_cache);
    std::lock_guard<std::mutex> l(sh->mu);
    sh->Note(s, from_cache);
  }
  Advance(index, direction);
  return s;
}

void ValuePrefetcher::Advance(size_t index, int direction) {
  const SstDirOptions& o = dir_->options();
  const auto& entries = dir_->index().entries;
  const int64_t n = static_cast<int64_t>(entries.size());
  const int64_t at = static_cast<int64_t>(index);
  if (direction > 0 ? next_ <= at : next_ >= at) next_ = at + direction;
  Shared* const sh = shared_.get();
  const uint64_t window = sh->slots.size();
  int start = 0;
  {
    std::lock_guard<std::mutex> l(sh->mu);
    for (int64_t looked = 0;
         looked < kMaxLookahead && next_ >= 0 && next_ < n &&
         sh->tail - sh->head < window && sh->bytes < o.read_ahead_bytes;
         looked++, next_ += direction) {
      const MetaIndexEntry& e = entries[static_cast<size_t>(next_)];
      if (!HasKvFile(e.storage)) continue;
      Shared::Slot& slot = sh->At(sh->tail);
      slot.pos = sh->tail;
      slot.index = static_cast<size_t>(next_);
      slot.bytes = e.stored_size;
      slot.state = Shared::kQueued;
      slot.value.clear();
      slot.status = Status::OK();
      sh->bytes += e.stored_size;
      sh->tail++;
    }
    // In memory, one helper beside the scan, woken once per half window
    // (or for the last files of the SST); waiting for the device, as many
    // as the pool has, at once.
    const bool in_memory =
        sh->reads_from_memory >= kReadsFromMemoryToStopReadAhead;
    const int want = in_memory ? 1 : o.read_ahead_pool->threads();
    const uint64_t queued = sh->tail - sh->claim;
    const bool plan_done = next_ < 0 || next_ >= n;
    if (queued > 0 && (!in_memory || plan_done ||
                       queued >= std::max<uint64_t>(1, window / 2))) {
      start = static_cast<int>(std::min<uint64_t>(
          queued, static_cast<uint64_t>(std::max(want - sh->helpers, 0))));
    }
    sh->helpers += start;
  }
  for (int i = 0; i < start; i++) {
    std::shared_ptr<Shared> shared = shared_;
    o.read_ahead_pool->Submit([shared] { RunHelper(shared); });
  }
}

void ValuePrefetcher::RunHelper(const std::shared_ptr<Shared>& sh) {
  std::unique_lock<std::mutex> l(sh->mu);
  // The prefetcher waits for `running` reads before it (and so its
  // iterator, which pins the SstDir) goes away; a helper that starts after
  // that reads nothing.
  while (!sh->stopping && sh->claim < sh->tail) {
    sh->running++;
    sh->ReadClaimed(sh->claim++, &l);
    sh->running--;
  }
  sh->helpers--;
  if (sh->stopping) sh->cv.notify_all();
}

}  // namespace leveldb
