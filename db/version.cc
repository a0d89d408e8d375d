#include "db/version.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <set>

#include "db/table_cache.h"
#include "db/version_set.h"
#include "table/meta_file.h"
#include "table/two_level_iterator.h"
#include "util/coding.h"
#include "util/logging.h"

namespace leveldb {

int FindFile(const InternalKeyComparator& icmp,
             const std::vector<FileMetaData*>& files, const Slice& key) {
  // Invariant: every directory before `lo` ends before `key`; the one at
  // `hi` (if any) ends at or after it.
  size_t lo = 0;
  size_t hi = files.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (icmp.Compare(files[mid]->largest.Encode(), key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return static_cast<int>(hi);
}

namespace {

// True if user_key lies strictly after everything in f.
bool KeyAfterFile(const Comparator* ucmp, const Slice* user_key,
                  const FileMetaData* f) {
  return user_key != nullptr &&
         ucmp->Compare(*user_key, f->largest.user_key()) > 0;
}

// True if user_key lies strictly before everything in f.
bool KeyBeforeFile(const Comparator* ucmp, const Slice* user_key,
                   const FileMetaData* f) {
  return user_key != nullptr &&
         ucmp->Compare(*user_key, f->smallest.user_key()) < 0;
}

}  // namespace

bool SomeFileOverlapsRange(const InternalKeyComparator& icmp,
                           bool disjoint_sorted_files,
                           const std::vector<FileMetaData*>& files,
                           const Slice* smallest_user_key,
                           const Slice* largest_user_key) {
  const Comparator* ucmp = icmp.user_comparator();
  if (!disjoint_sorted_files) {
    for (const FileMetaData* f : files) {
      if (!KeyAfterFile(ucmp, smallest_user_key, f) &&
          !KeyBeforeFile(ucmp, largest_user_key, f)) {
        return true;
      }
    }
    return false;
  }
  size_t index = 0;
  if (smallest_user_key != nullptr) {
    // The earliest possible internal key of the smallest user key, so the
    // search lands on the first directory that may contain that user key.
    InternalKey probe(*smallest_user_key, kMaxSequenceNumber,
                      kValueTypeForSeek);
    index = FindFile(icmp, files, probe.Encode());
  }
  if (index >= files.size()) return false;
  return !KeyBeforeFile(ucmp, largest_user_key, files[index]);
}

namespace {

// The index of a level >= 1: one position per directory, keyed by the
// directory's largest key; the value names the directory (see
// EncodeDirRef) for the two-level iterator to open.
class LevelDirIterator : public Iterator {
 public:
  LevelDirIterator(const InternalKeyComparator& icmp,
                   const std::vector<FileMetaData*>* files, int level)
      : icmp_(icmp), files_(files), level_(level), index_(files->size()) {}

  bool Valid() const override { return index_ < files_->size(); }
  void Seek(const Slice& target) override {
    index_ = FindFile(icmp_, *files_, target);
  }
  void SeekToFirst() override { index_ = 0; }
  void SeekToLast() override {
    index_ = files_->empty() ? 0 : files_->size() - 1;
  }
  void Next() override {
    assert(Valid());
    index_++;
  }
  void Prev() override {
    assert(Valid());
    // Stepping before the first directory makes the iterator invalid.
    index_ = (index_ == 0) ? files_->size() : index_ - 1;
  }
  Slice key() const override {
    assert(Valid());
    return (*files_)[index_]->largest.Encode();
  }
  Slice value() const override {
    assert(Valid());
    EncodeFixed64(ref_, (*files_)[index_]->number);
    EncodeFixed64(ref_ + 8, (*files_)[index_]->dir);
    EncodeFixed32(ref_ + 16, static_cast<uint32_t>(level_));
    return Slice(ref_, sizeof(ref_));
  }
  Status status() const override { return Status::OK(); }

 private:
  const InternalKeyComparator icmp_;
  const std::vector<FileMetaData*>* const files_;
  const int level_;
  size_t index_;
  // value() is rebuilt on each call; mutable because value() is const.
  mutable char ref_[20];
};

// Opens the directory a LevelDirIterator value names.
Iterator* OpenDirForIndex(void* arg, const ReadOptions& options,
                          const Slice& dir_ref) {
  TableCache* cache = static_cast<TableCache*>(arg);
  if (dir_ref.size() != 20) {
    return NewErrorIterator(
        Status::Corruption("malformed SST directory reference in level index"));
  }
  uint64_t number = DecodeFixed64(dir_ref.data());
  uint64_t dir = DecodeFixed64(dir_ref.data() + 8);
  int level = static_cast<int>(DecodeFixed32(dir_ref.data() + 16));
  return cache->NewIterator(options, level, number, dir);
}

enum class LookupState { kNotFound, kFound, kDeleted, kCorrupt };

struct Lookup {
  const Comparator* ucmp;
  Slice user_key;
  std::string* value;
  LookupState state = LookupState::kNotFound;
};

// TableCache::Get callback: called with the first entry at or after the
// target. It is our answer only if it has the same user key.
void CollectLookupResult(void* arg, const Slice& entry_key,
                         const Slice& value) {
  Lookup* lookup = static_cast<Lookup*>(arg);
  ParsedInternalKey parsed;
  if (!ParseInternalKey(entry_key, &parsed)) {
    lookup->state = LookupState::kCorrupt;
    return;
  }
  if (lookup->ucmp->Compare(parsed.user_key, lookup->user_key) != 0) return;
  if (parsed.type == kTypeValue) {
    lookup->state = LookupState::kFound;
    lookup->value->assign(value.data(), value.size());
  } else {
    lookup->state = LookupState::kDeleted;
  }
}

bool NewestFirst(const FileMetaData* a, const FileMetaData* b) {
  return a->number > b->number;
}

// Orders overlapping L0 SSTs so the first one holding a user key holds its
// newest version. A higher number usually means newer writes, but not
// after Open replays a retained WAL: the replay's SST gets a new number
// while a later flush's intact SST keeps its own, so the replay's older
// puts would hide that SST's deletes. Every SST this version builds
// records its sequence range, which has no gaps but versions shadowed
// inside it: if X's largest sequence is at least Y's, any version of a key
// that Y holds and that is newer than X's newest version of it lies inside
// X's range, so X holds it or a newer one. An SST from an older manifest,
// without a recorded range, makes the whole set go by number, as before.
void SortNewestFirst(std::vector<FileMetaData*>* l0) {
  for (const FileMetaData* f : *l0) {
    if (!f->has_sequence_range) {
      std::sort(l0->begin(), l0->end(), NewestFirst);
      return;
    }
  }
  std::sort(l0->begin(), l0->end(),
            [](const FileMetaData* a, const FileMetaData* b) {
              if (a->largest_sequence != b->largest_sequence) {
                return a->largest_sequence > b->largest_sequence;
              }
              return a->number > b->number;
            });
}

}  // namespace

Version::Version(VersionSet* vset)
    : vset_(vset),
      next_(this),
      prev_(this),
      refs_(0),
      file_to_compact_(nullptr),
      file_to_compact_level_(-1),
      compaction_score_(-1),
      compaction_level_(-1) {}

Version::~Version() {
  assert(refs_ == 0);
  // Unlink from the VersionSet's list.
  prev_->next_ = next_;
  next_->prev_ = prev_;
  for (int level = 0; level < config::kNumLevels; level++) {
    for (FileMetaData* f : files_[level]) {
      assert(f->refs > 0);
      if (--f->refs <= 0) delete f;
    }
  }
}

void Version::Ref() { ++refs_; }

void Version::Unref() {
  assert(this != &vset_->dummy_versions_);
  assert(refs_ >= 1);
  if (--refs_ == 0) delete this;
}

Iterator* Version::NewConcatenatingIterator(const ReadOptions& options,
                                            int level) const {
  return NewTwoLevelIterator(
      new LevelDirIterator(*vset_->icmp_, &files_[level], level),
      &OpenDirForIndex, vset_->table_cache_, options);
}

void Version::AddIterators(const ReadOptions& options,
                           std::vector<Iterator*>* iters) {
  for (const FileMetaData* f : files_[0]) {
    iters->push_back(
        vset_->table_cache_->NewIterator(options, 0, f->number, f->dir));
  }
  // Deeper levels are disjoint, so one lazily-opening iterator per level
  // suffices and keeps untouched directories closed.
  for (int level = 1; level < config::kNumLevels; level++) {
    if (!files_[level].empty()) {
      iters->push_back(NewConcatenatingIterator(options, level));
    }
  }
}

void Version::ForEachOverlapping(const Slice& user_key,
                                 const Slice& internal_key, void* arg,
                                 bool (*fn)(void*, int, FileMetaData*)) {
  const Comparator* ucmp = vset_->icmp_->user_comparator();

  std::vector<FileMetaData*> l0;
  l0.reserve(files_[0].size());
  for (FileMetaData* f : files_[0]) {
    if (!KeyBeforeFile(ucmp, &user_key, f) &&
        !KeyAfterFile(ucmp, &user_key, f)) {
      l0.push_back(f);
    }
  }
  SortNewestFirst(&l0);
  for (FileMetaData* f : l0) {
    if (!(*fn)(arg, 0, f)) return;
  }

  for (int level = 1; level < config::kNumLevels; level++) {
    const std::vector<FileMetaData*>& files = files_[level];
    if (files.empty()) continue;
    int index = FindFile(*vset_->icmp_, files, internal_key);
    if (index < static_cast<int>(files.size())) {
      FileMetaData* f = files[index];
      if (!KeyBeforeFile(ucmp, &user_key, f)) {
        if (!(*fn)(arg, level, f)) return;
      }
    }
  }
}

namespace {

struct GetState {
  const ReadOptions* options;
  Slice internal_key;
  TableCache* cache;
  Version::GetStats* stats;
  Lookup lookup;
  Status status;
  // The directory probed just before the current one, for seek stats.
  FileMetaData* last_probed = nullptr;
  int last_probed_level = -1;
  bool done = false;
};

// Probes one directory; returns false to stop the walk.
bool ProbeDirectory(void* arg, int level, FileMetaData* f) {
  GetState* st = static_cast<GetState*>(arg);
  if (st->stats->seek_file == nullptr && st->last_probed != nullptr) {
    // A second directory is needed, so the first was probed in vain.
    st->stats->seek_file = st->last_probed;
    st->stats->seek_file_level = st->last_probed_level;
  }
  st->last_probed = f;
  st->last_probed_level = level;

  st->status =
      st->cache->Get(*st->options, level, f->number, f->dir, st->internal_key,
                     &st->lookup, &CollectLookupResult);
  if (!st->status.ok()) {
    if (st->status.IsNotFound()) {
      // A directory the version lists is gone: that is damage, and must
      // not read as "no such key".
      std::string what = "SST directory ";
      AppendNumberTo(&what, f->number);
      what.append(" of level ");
      AppendNumberTo(&what, level);
      what.append(" is missing");
      st->status = Status::Corruption(what, st->status.ToString());
    }
    st->done = true;
    return false;
  }
  if (st->lookup.state == LookupState::kNotFound) return true;
  st->done = true;
  return false;
}

}  // namespace

Status Version::Get(const ReadOptions& options, const LookupKey& key,
                    std::string* val, GetStats* stats) {
  stats->seek_file = nullptr;
  stats->seek_file_level = -1;

  GetState st;
  st.options = &options;
  st.internal_key = key.internal_key();
  st.cache = vset_->table_cache_;
  st.stats = stats;
  st.lookup.ucmp = vset_->icmp_->user_comparator();
  st.lookup.user_key = key.user_key();
  st.lookup.value = val;

  ForEachOverlapping(st.lookup.user_key, st.internal_key, &st, &ProbeDirectory);

  if (!st.status.ok()) return st.status;
  switch (st.lookup.state) {
    case LookupState::kFound:
      return Status::OK();
    case LookupState::kCorrupt:
      return Status::Corruption("corrupted internal key in SST directory for",
                                st.lookup.user_key);
    case LookupState::kDeleted:
    case LookupState::kNotFound:
      break;
  }
  return Status::NotFound(Slice());
}

bool Version::UpdateStats(const GetStats& stats) {
  FileMetaData* f = stats.seek_file;
  if (f == nullptr) return false;
  f->allowed_seeks--;
  // A directory at the last level has nowhere to be compacted to.
  if (f->allowed_seeks <= 0 && file_to_compact_ == nullptr &&
      stats.seek_file_level + 1 < config::kNumLevels) {
    file_to_compact_ = f;
    file_to_compact_level_ = stats.seek_file_level;
    return true;
  }
  return false;
}

bool Version::RecordReadSample(const Slice& internal_key) {
  ParsedInternalKey parsed;
  if (!ParseInternalKey(internal_key, &parsed)) return false;

  struct Counter {
    GetStats first;
    int matches = 0;
  } counter;
  auto count = [](void* arg, int level, FileMetaData* f) -> bool {
    Counter* c = static_cast<Counter*>(arg);
    if (++c->matches == 1) {
      c->first.seek_file = f;
      c->first.seek_file_level = level;
    }
    return c->matches < 2;  // two are enough to decide
  };
  ForEachOverlapping(parsed.user_key, internal_key, &counter, count);
  // One directory holding the key is the normal case; a second one means
  // reads of this key pay for an extra probe that compaction would remove.
  return counter.matches >= 2 && UpdateStats(counter.first);
}

bool Version::OverlapInLevel(int level, const Slice* smallest_user_key,
                             const Slice* largest_user_key) {
  return SomeFileOverlapsRange(*vset_->icmp_, level > 0, files_[level],
                               smallest_user_key, largest_user_key);
}

int Version::PickLevelForMemTableOutput(const Slice& smallest_user_key,
                                        const Slice& largest_user_key) {
  return 0;
}

void Version::GetOverlappingInputs(int level, const InternalKey* begin,
                                   const InternalKey* end,
                                   std::vector<FileMetaData*>* inputs) {
  assert(level >= 0 && level < config::kNumLevels);
  inputs->clear();
  const Comparator* ucmp = vset_->icmp_->user_comparator();
  // Bounds in user keys; the strings own the bytes when level 0 widens them.
  std::string lo_storage, hi_storage;
  bool has_lo = begin != nullptr, has_hi = end != nullptr;
  if (has_lo) lo_storage = begin->user_key().ToString();
  if (has_hi) hi_storage = end->user_key().ToString();

  const std::vector<FileMetaData*>& files = files_[level];
  size_t i = 0;
  while (i < files.size()) {
    FileMetaData* f = files[i++];
    Slice lo(lo_storage), hi(hi_storage);
    if (has_lo && ucmp->Compare(f->largest.user_key(), lo) < 0) continue;
    if (has_hi && ucmp->Compare(f->smallest.user_key(), hi) > 0) continue;
    inputs->push_back(f);
    if (level != 0) continue;
    // Level-0 directories overlap each other: if this one reaches outside
    // the range, widen the range and start over so every directory holding
    // a version of a key in it is included.
    bool widened = false;
    if (has_lo && ucmp->Compare(f->smallest.user_key(), lo) < 0) {
      lo_storage = f->smallest.user_key().ToString();
      widened = true;
    }
    if (has_hi && ucmp->Compare(f->largest.user_key(), hi) > 0) {
      hi_storage = f->largest.user_key().ToString();
      widened = true;
    }
    if (widened) {
      inputs->clear();
      i = 0;
    }
  }
}

uint64_t Version::LevelEntries(int level) const {
  uint64_t sum = 0;
  for (const FileMetaData* f : files_[level]) sum += f->entries;
  return sum;
}

double Version::LevelCapacityEntries(int level,
                                     uint64_t kv_file_entries_per_entry) const {
  const double share = 1.0 / static_cast<double>(std::max<uint64_t>(
                                 kv_file_entries_per_entry, 1));
  double sum = 0;
  for (const FileMetaData* f : files_[level]) {
    const uint64_t kv_files =
        f->dir_entries > 1 ? std::min(f->entries, f->dir_entries - 1) : 0;
    sum += static_cast<double>(f->entries - kv_files) +
           static_cast<double>(kv_files) * share;
  }
  return sum;
}

uint64_t Version::LevelValueBytes(int level) const {
  uint64_t sum = 0;
  for (const FileMetaData* f : files_[level]) sum += f->value_bytes;
  return sum;
}

uint64_t Version::LevelMetaBytes(int level) const {
  uint64_t sum = 0;
  for (const FileMetaData* f : files_[level]) {
    // About what the meta entry of a value in a KV file takes with 16-byte
    // keys (about 31 bytes at 100k x 4 KiB), so a level of SSTs from an
    // older manifest is scored about as its entry count scored it.
    sum += f->meta_bytes != 0 ? f->meta_bytes
                              : f->entries * kUnrecordedMetaBytesPerEntry;
  }
  return sum;
}

uint64_t Version::LevelInodes(int level) const {
  uint64_t sum = 0;
  std::set<uint64_t> dirs;
  for (const FileMetaData* f : files_[level]) {
    // Manifests from before dir_entries was recorded: a KV file per entry
    // (an upper bound) and the meta file.
    sum += f->dir_entries != 0 ? f->dir_entries : f->entries + 1;
    dirs.insert(f->dir);
  }
  return sum + dirs.size();
}

std::string Version::DebugString() const {
  std::string r;
  for (int level = 0; level < config::kNumLevels; level++) {
    r.append("--- level ");
    AppendNumberTo(&r, level);
    r.append(" ---\n");
    for (const FileMetaData* f : files_[level]) {
      // The directory first: " <dir>.sst/<meta file>: ...".
      char dir[32];
      std::snprintf(dir, sizeof(dir), " %06llu.sst/",
                    static_cast<unsigned long long>(f->dir));
      r.append(dir);
      r.append(MetaFileName(f->number, f->dir));
      r.append(": ");
      AppendNumberTo(&r, f->entries);
      r.append(" entries, ");
      AppendNumberTo(&r, f->value_bytes);
      r.append(" value bytes [");
      r.append(f->smallest.DebugString());
      r.append(" .. ");
      r.append(f->largest.DebugString());
      r.append("]\n");
    }
  }
  return r;
}

}  // namespace leveldb
