// TableCache: an LRU cache of open SstDir objects keyed by SST number.
#include "db/table_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "db/dbformat.h"
#include "db/filename.h"
#include "util/coding.h"

namespace leveldb {

namespace {

// What the cache holds per SST. A recharged SST (TableCache::Recharge) is
// held by two entries for as long as a handle on the older one lives.
struct OpenSst {
  std::shared_ptr<SstDir> dir;
  std::atomic<size_t>* memory;  // the owning TableCache's total
  size_t charged;               // dir's ApproximateMemoryUsage when inserted
  uint64_t number;              // the SST's, its key
};

void DeleteOpenSst(const Slice& key, void* value) {
  auto* sst = reinterpret_cast<OpenSst*>(value);
  sst->memory->fetch_sub(sst->charged, std::memory_order_relaxed);
  delete sst;
}

void DeleteFilter(const Slice& key, void* value) {
  delete reinterpret_cast<std::string*>(value);
}

void ReleaseHandle(void* cache, void* handle) {
  reinterpret_cast<Cache*>(cache)->Release(
      reinterpret_cast<Cache::Handle*>(handle));
}

}  // namespace

// The cache's capacity in charge units: each bound is this many units,
// fine enough for 50,000 descriptors or bytes down to one.
constexpr size_t kCapacityUnits = size_t{1} << 30;

TableCache::TableCache(const std::string& dbname, const SstDirOptions& options,
                       int descriptors, uint64_t bytes, uint64_t filter_bytes)
    : dbname_(dbname),
      options_(options),
      max_descriptors_(descriptors > 0 ? descriptors : 1),
      max_bytes_(bytes > 0 ? bytes : 1),
      cache_(NewLRUCache(kCapacityUnits)),
      filters_(filter_bytes > 0 && options.filter_policy != nullptr
                   ? NewLRUCache(static_cast<size_t>(std::min<uint64_t>(
                         filter_bytes, std::numeric_limits<size_t>::max())))
                   : nullptr) {}

size_t TableCache::Charge(int descriptors, size_t memory) const {
  // An SST charged by the larger share makes every sum of charges within
  // capacity keep both sums within their bounds.
  const double share =
      std::max(static_cast<double>(descriptors) / max_descriptors_,
               static_cast<double>(memory) / static_cast<double>(max_bytes_));
  const double units = std::ceil(share * kCapacityUnits);
  // An SST larger than a bound is still cached while in use.
  if (units >= static_cast<double>(std::numeric_limits<size_t>::max() / 2)) {
    return std::numeric_limits<size_t>::max() / 2;
  }
  return std::max<size_t>(1, static_cast<size_t>(units));
}

TableCache::~TableCache() {
  delete cache_;
  delete filters_;
}

Status TableCache::FindWhole(int level, uint64_t number, uint64_t dir,
                             Cache::Handle** handle) {
  Status s = Find(level, number, dir, handle);
  if (!s.ok()) return s;
  s = Value(*handle)->LoadIndex();
  if (!s.ok()) {
    Release(*handle);
    *handle = nullptr;
  }
  return s;
}

Status TableCache::Find(int level, uint64_t number, uint64_t dir_number,
                        Cache::Handle** handle) {
  char buf[8];
  EncodeFixed64(buf, number);
  const Slice key(buf, sizeof(buf));
  *handle = cache_->Lookup(key);
  if (*handle != nullptr) return Status::OK();
  return Open(level, number, dir_number, key, handle);
}

Status TableCache::Open(int level, uint64_t number, uint64_t dir_number,
                        const Slice& key, Cache::Handle** handle) {
  const std::string meta_name = MetaFileName(number, dir_number);
  // A trivial move may have renamed the directory to another level since
  // the caller's version was made, or may rename it while it is cached.
  std::vector<std::string> paths;
  paths.push_back(SstDirName(dbname_, level, dir_number));
  for (int other = 0; other < config::kNumLevels; other++) {
    if (other != level) paths.push_back(SstDirName(dbname_, other, dir_number));
  }
  std::unique_ptr<SstDir> dir;
  Status s = Status::NotFound(paths[0]);
  for (size_t i = 0; s.IsNotFound() && i < paths.size(); i++) {
    std::vector<std::string> moved_to = paths;
    moved_to.erase(moved_to.begin() + i);
    Status t = SstDir::Open(options_, paths[i], moved_to, meta_name, &dir);
    if (i == 0 || !t.IsNotFound()) s = t;
  }
  if (!s.ok()) return s;
  KeepFilter(key, *dir);
  // Two threads may open the same directory at once; the later Insert just
  // replaces the earlier entry, which is freed when its last handle goes.
  const size_t memory = dir->ApproximateMemoryUsage();
  const size_t charge = Charge(dir->OpenDescriptors(), memory);
  memory_.fetch_add(memory, std::memory_order_relaxed);
  *handle =
      cache_->Insert(key,
                     new OpenSst{std::shared_ptr<SstDir>(std::move(dir)),
                                 &memory_, memory, DecodeFixed64(key.data())},
                     charge, &DeleteOpenSst);
  return Status::OK();
}

void TableCache::Recharge(Cache::Handle* handle) {
  auto* sst = reinterpret_cast<OpenSst*>(cache_->Value(handle));
  const size_t memory = sst->dir->ApproximateMemoryUsage();
  if (memory == sst->charged) return;  // the common case: one load
  // The cache cannot change an entry's charge: the SST is inserted again
  // under its key, with its new charge, and the older entry goes when its
  // last handle does. Only while the SST is still the key's entry (not
  // evicted, not replaced): under recharge_mu_, which Evict holds too, so
  // an evicted SST never comes back.
  std::lock_guard<std::mutex> l(recharge_mu_);
  char buf[8];
  EncodeFixed64(buf, sst->number);
  const Slice key(buf, sizeof(buf));
  Cache::Handle* current = cache_->Lookup(key);
  if (current == nullptr) return;
  if (cache_->Value(current) == sst) {
    memory_.fetch_add(memory, std::memory_order_relaxed);
    cache_->Release(cache_->Insert(
        key, new OpenSst{sst->dir, &memory_, memory, sst->number},
        Charge(sst->dir->OpenDescriptors(), memory), &DeleteOpenSst));
  }
  cache_->Release(current);
}

SstDir* TableCache::Value(Cache::Handle* handle) {
  return reinterpret_cast<OpenSst*>(cache_->Value(handle))->dir.get();
}

void TableCache::Release(Cache::Handle* handle) {
  Recharge(handle);
  cache_->Release(handle);
}

Iterator* TableCache::NewIterator(const ReadOptions& options, int level,
                                  uint64_t number, uint64_t dir_number,
                                  SstDir** dirptr) {
  if (dirptr != nullptr) *dirptr = nullptr;
  Cache::Handle* handle = nullptr;
  Status s = Find(level, number, dir_number, &handle);
  if (!s.ok()) return NewErrorIterator(s);
  SstDir* dir = Value(handle);
  // Loads the whole index, unless the SST has no KV file (then it reads
  // one group at a time, and the charge stays the trailer's).
  Iterator* it = dir->NewIterator(options);
  Recharge(handle);
  it->RegisterCleanup(&ReleaseHandle, cache_, handle);
  if (dirptr != nullptr) *dirptr = dir;
  return it;
}

Status TableCache::Get(const ReadOptions& options, int level, uint64_t number,
                       uint64_t dir_number, const Slice& internal_key,
                       void* arg,
                       void (*handle)(void*, const Slice&, const Slice&)) {
  char buf[8];
  EncodeFixed64(buf, number);
  const Slice key(buf, sizeof(buf));
  // An open SST asks its own filter; only a closed one asks the kept copy,
  // so a read of open SSTs pays no second lookup.
  Cache::Handle* h = cache_->Lookup(key);
  if (h == nullptr) {
    if (KeptFilterExcludes(key, internal_key)) return Status::OK();
    Status s = Open(level, number, dir_number, key, &h);
    if (!s.ok()) return s;
  }
  Status s = Value(h)->InternalGet(options, internal_key, arg, handle);
  Release(h);
  return s;
}

bool TableCache::KeptFilterExcludes(const Slice& key,
                                    const Slice& internal_key) {
  if (filters_ == nullptr || internal_key.size() < 8) return false;
  Cache::Handle* h = filters_->Lookup(key);
  if (h == nullptr) return false;
  const auto* filter = reinterpret_cast<const std::string*>(filters_->Value(h));
  const bool excludes = !options_.filter_policy->KeyMayMatch(
      ExtractUserKey(internal_key), *filter);
  filters_->Release(h);
  return excludes;
}

void TableCache::KeepFilter(const Slice& key, const SstDir& dir) {
  // SstDir::filter() is empty unless options_.filter_policy made it.
  if (filters_ == nullptr || dir.filter().empty()) return;
  auto* copy = new std::string(dir.filter().data(), dir.filter().size());
  filters_->Release(
      filters_->Insert(key, copy, copy->size() + sizeof(*copy), &DeleteFilter));
}

void TableCache::Evict(uint64_t number) {
  char buf[8];
  EncodeFixed64(buf, number);
  std::lock_guard<std::mutex> l(recharge_mu_);  // see Recharge
  cache_->Erase(Slice(buf, sizeof(buf)));
  if (filters_ != nullptr) filters_->Erase(Slice(buf, sizeof(buf)));
}

}  // namespace leveldb
