// SstDir: reads through the decoded meta-file index; KV files are opened
// only to fetch a value, never listed.
#include "table/sst_dir.h"

#include <algorithm>
#include <cassert>

#include "db/dbformat.h"
#include "fs/file_system.h"
#include "leveldb/cache.h"
#include "leveldb/comparator.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "table/kv_value.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

namespace {

// A meta file this small is read with one read; a larger one as footer,
// then index, leaving the value section on disk.
constexpr uint64_t kReadWholeMetaBelow = 64 << 10;

const Comparator* UserComparatorOf(const Comparator* c) {
  const auto* icmp = dynamic_cast<const InternalKeyComparator*>(c);
  if (icmp != nullptr && icmp->user_comparator() != nullptr) {
    return icmp->user_comparator();
  }
  return BytewiseComparator();
}

void DeleteCachedValue(const Slice& key, void* value) {
  delete static_cast<std::string*>(value);
}

// Reads the footer of the meta file `file` (of `path`) and decodes its
// index into *index: in place in the file's mapping when it has one, else
// from the index's bytes read into *copy (for format 1, the whole file).
// *index points into the mapping or into *copy.
Status ReadIndex(ReadOnlyFile* file, const std::string& path,
                 MetaIndexRange* range, std::string* copy, MetaIndex* index) {
  const uint64_t size = file->size();
  Slice bytes;  // the index's
  if (file->mapped() != nullptr) {
    const Slice whole(file->mapped(), size);
    Status s = DecodeMetaFooter(whole, size, path, range);
    if (!s.ok()) return s;
    bytes = Slice(whole.data() + range->offset, range->size);
  } else if (size <= kReadWholeMetaBelow) {
    Status s = file->ReadAt(0, size, copy);
    if (!s.ok()) return s;
    if (copy->size() != size) {
      return Status::Corruption(path, "meta file shrank while read");
    }
    s = DecodeMetaFooter(*copy, size, path, range);
    if (!s.ok()) return s;
    // Only the index is kept (format 1: the range is the whole file).
    copy->resize(range->offset + range->size);
    copy->erase(0, range->offset);
    bytes = *copy;
  } else {
    std::string tail;
    Status s = file->ReadAt(size - kMetaTailLength, kMetaTailLength, &tail);
    if (!s.ok()) return s;
    s = DecodeMetaFooter(tail, size, path, range);
    if (!s.ok()) return s;
    s = file->ReadAt(range->offset, range->size, copy);
    if (!s.ok()) return s;
    bytes = *copy;
  }
  return DecodeMetaIndex(bytes, *range, path, index);
}

}  // namespace

SstDir::SstDir(const SstDirOptions& options, std::unique_ptr<Directory> dir,
               std::string meta_name)
    : options_(options),
      dir_(std::move(dir)),
      meta_name_(std::move(meta_name)) {}

SstDir::~SstDir() = default;

Status SstDir::Open(const SstDirOptions& options, const std::string& path,
                    const std::vector<std::string>& moved_to,
                    const std::string& meta_name,
                    std::unique_ptr<SstDir>* result) {
  result->reset();
  std::unique_ptr<Directory> dir;
  Status s = options.fs->OpenMovableDirectory(path, moved_to, &dir);
  if (!s.ok()) return s;
  std::unique_ptr<ReadOnlyFile> file;
  s = dir->OpenMappedFile(meta_name, &file);
  if (!s.ok()) return s;
  const std::string meta_path = path + "/" + meta_name;
  std::unique_ptr<SstDir> sst(new SstDir(options, std::move(dir), meta_name));
  const uint64_t meta_allocated = AllocatedBytes(file->size());
  MetaIndexRange range;
  s = ReadIndex(file.get(), meta_path, &range, &sst->index_copy_, &sst->index_);
  if (!s.ok()) return s;
  if (file->mapped() != nullptr) {
    sst->meta_in_memory_ = file->mapped();
    sst->meta_file_ = std::move(file);  // index_ points into its mapping
  } else if (range.version == 1) {
    sst->meta_in_memory_ = sst->index_copy_.data();  // the whole file
  } else if (range.offset > kMetaValuesOffset) {
    sst->meta_file_ = std::move(file);  // inline values are read from it
  }
  sst->values_end_ = range.offset;

  sst->user_comparator_ = UserComparatorOf(options.comparator);
  if (sst->index_.comparator_name != Slice(sst->user_comparator_->Name())) {
    return Status::InvalidArgument(
        meta_path, "written with comparator " +
                       sst->index_.comparator_name.ToString() +
                       ", opened with " + sst->user_comparator_->Name());
  }
  // The filter is used only if the policy that made it is the one in use.
  Slice filter = sst->index_.filter;
  Slice policy_name;
  if (options.filter_policy != nullptr &&
      GetLengthPrefixedSlice(&filter, &policy_name) &&
      policy_name == Slice(options.filter_policy->Name())) {
    sst->filter_ = filter;
  }
  // Binary search relies on the entries' order, which is not checked here:
  // the builder refuses entries out of order (SstDirBuilder::Add and
  // AddLinked), and the index's checksum, verified by DecodeMetaIndex,
  // shows that these are the bytes it wrote.
  const auto& entries = sst->index_.entries;
  sst->meta_allocated_ = meta_allocated;
  // Charged as if the windows were built (8 bytes per entry), which they
  // may be at any lookup.
  sst->memory_usage_ = sizeof(SstDir) +
                       entries.capacity() * sizeof(MetaIndexEntry) +
                       entries.size() * sizeof(uint64_t) + range.size;
  *result = std::move(sst);
  return Status::OK();
}

size_t SstDir::ApproximateMemoryUsage() const { return memory_usage_; }

// Lookups of an SST before its key windows are built: enough to tell an
// SST read once or twice after an open from one that stays in use, few
// enough that the pass over the entries is soon paid back.
constexpr uint32_t kWindowsAfterLookups = 16;

const KeyWindows* SstDir::Windows() const {
  if (windows_built_.load(std::memory_order_acquire)) return &windows_;
  if (user_comparator_ != BytewiseComparator() ||
      lookups_.fetch_add(1, std::memory_order_relaxed) + 1 <
          kWindowsAfterLookups) {
    return nullptr;
  }
  std::call_once(windows_once_, [this] {
    const auto& entries = index_.entries;
    windows_.Build(entries.size(), [&entries](size_t i) {
      return ExtractUserKey(entries[i].internal_key);
    });
    windows_built_.store(true, std::memory_order_release);
  });
  return &windows_;
}

size_t SstDir::LowerBound(const Slice& internal_key) const {
  const auto& entries = index_.entries;
  size_t lo = 0, hi = entries.size();
  const KeyWindows* windows = Windows();
  if (windows != nullptr && internal_key.size() >= 8) {
    windows->Narrow(ExtractUserKey(internal_key), &lo, &hi);
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (options_.comparator->Compare(entries[mid].internal_key, internal_key) <
        0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

Status SstDir::InternalGet(const ReadOptions& options,
                           const Slice& internal_key, void* arg,
                           void (*handle)(void*, const Slice& key,
                                          const Slice& value)) {
  if (internal_key.size() < 8) {
    return Status::InvalidArgument(dir_->path(), "malformed internal key");
  }
  const Slice user_key = ExtractUserKey(internal_key);
  if (!filter_.empty() &&
      !options_.filter_policy->KeyMayMatch(user_key, filter_)) {
    return Status::OK();
  }
  const size_t index = LowerBound(internal_key);
  if (index >= index_.entries.size()) return Status::OK();
  const Slice found = index_.entries[index].internal_key;
  if (user_comparator_->Compare(ExtractUserKey(found), user_key) != 0) {
    return Status::OK();
  }
  std::string value;
  Status s = ReadValue(options, index, &value);
  if (!s.ok()) return s;
  handle(arg, found, value);
  return Status::OK();
}

std::string SstDir::CacheKey(size_t index) const {
  std::string key;
  PutFixed64(&key, options_.value_cache_id);
  const Slice internal_key = index_.entries[index].internal_key;
  key.append(internal_key.data(), internal_key.size());
  return key;
}

bool SstDir::LookupCachedValue(size_t index, std::string* value) const {
  Cache* cache = options_.value_cache;
  if (cache == nullptr) return false;
  Cache::Handle* h = cache->Lookup(CacheKey(index));
  if (h == nullptr) return false;
  value->assign(*static_cast<std::string*>(cache->Value(h)));
  cache->Release(h);
  return true;
}

void SstDir::CacheValue(size_t index, const Slice& value) const {
  Cache* cache = options_.value_cache;
  if (cache == nullptr) return;
  const std::string key = CacheKey(index);
  const size_t charge = value.size() + key.size() + sizeof(std::string);
  cache->Release(cache->Insert(key, new std::string(value.ToString()), charge,
                               &DeleteCachedValue));
}

Status SstDir::ReadValue(const ReadOptions& options, size_t index,
                         std::string* value) const {
  value->clear();
  if (index >= index_.entries.size()) {
    return Status::InvalidArgument(dir_->path(), "entry index out of range");
  }
  const ValueStorage storage = index_.entries[index].storage;
  if (storage == ValueStorage::kNone) return Status::OK();
  // An inline value of a mapped meta file is read in memory: a cache
  // lookup (a key built, hashed and locked for) would cost more than the
  // read, and an insert would only evict values that cost a file read.
  if (InlineInMemory(storage)) return ReadValueUncached(options, index, value);
  if (LookupCachedValue(index, value)) return Status::OK();
  Status s = ReadValueUncached(options, index, value);
  if (s.ok() && options.fill_cache) CacheValue(index, *value);
  return s;
}

std::string SstDir::InlineWhere(size_t index) const {
  return dir_->path() + "/" + meta_name_ + " entry " + std::to_string(index);
}

Status SstDir::ReadInlineStored(size_t index, int direction, size_t ahead,
                                std::string* buffer, uint64_t* buffer_offset,
                                Slice* stored) const {
  const MetaIndexEntry& e = index_.entries[index];
  assert(StoredInline(e.storage));
  if (e.stored_size == 0) {
    // An empty value has no bytes to read. An SST whose inline values are
    // all empty has an empty value section, and an unmapped meta file then
    // keeps no descriptor to read it with.
    *stored = Slice();
  } else if (meta_in_memory_ != nullptr) {
    // Decoding placed the bytes within the value section (format 1: within
    // the file), which the mapping or the copy holds whole.
    *stored = Slice(meta_in_memory_ + e.inline_offset, e.stored_size);
  } else {
    // A non-empty value section, so Open kept the file (decoding checked
    // that the value lies within the section).
    assert(meta_file_ != nullptr);
    const uint64_t begin = e.inline_offset;
    const uint64_t end = begin + e.stored_size;
    if (!(*buffer_offset <= begin && end <= *buffer_offset + buffer->size())) {
      uint64_t from = begin, to = end;
      if (direction > 0) {
        to = std::min<uint64_t>(values_end_, end + ahead);
      } else if (direction < 0) {
        from = begin - std::min<uint64_t>(ahead, begin - kMetaValuesOffset);
      }
      Status s = meta_file_->ReadAt(from, to - from, buffer);
      if (s.ok() && buffer->size() != to - from) {
        s = Status::Corruption(InlineWhere(index), "meta file truncated");
      }
      if (!s.ok()) {
        buffer->clear();
        *buffer_offset = 0;
        return s;
      }
      *buffer_offset = from;
    }
    *stored = Slice(buffer->data() + (begin - *buffer_offset), e.stored_size);
  }
  if (stored->size() != e.stored_size) {
    return Status::Corruption(InlineWhere(index), "inline value truncated");
  }
  // Always checked: the index's checksum does not cover the value section.
  if (crc32c::Mask(crc32c::Value(stored->data(), stored->size())) !=
      e.stored_crc) {
    return Status::Corruption(InlineWhere(index),
                              "inline value checksum mismatch");
  }
  return Status::OK();
}

Status SstDir::DecodeInlineValue(size_t index, const Slice& stored,
                                 std::string* value) const {
  const MetaIndexEntry& e = index_.entries[index];
  const bool compressed = StoredCompressed(e.storage);
  // The name for errors is built only on failure (decoding again is
  // deterministic): a scan decodes every entry, and building the name cost
  // as much as decoding a small value.
  static const std::string* const kNoName = new std::string();
  Status s = DecodeKvValue(stored, compressed, e.value_size, *kNoName, value);
  if (!s.ok()) {
    s = DecodeKvValue(stored, compressed, e.value_size, InlineWhere(index),
                      value);
  }
  return s;
}

namespace {

// Reads the KV file `name` of entry `e` from `dir` into *stored and checks
// it against the entry: its size, and its crc32c. Checked on every read,
// verify_checksums or not: a KV file written but not yet durable (a
// deferred-mode flush whose WAL has expired) can come back from a power
// loss zero-filled at its full size, and must read as damage, never as a
// value. The hardware crc32c of a 4 KiB value costs well under a
// microsecond next to the file's open, read and close.
// Error messages name the file (built only on failure).
Status ReadKvFile(Directory* dir, const std::string& name,
                  const MetaIndexEntry& e, std::string* stored,
                  bool* from_cache) {
  // One byte more than recorded: a longer file shows in the same read.
  Status s = from_cache != nullptr
                 ? dir->ReadFileAtNoting(name, 0, e.stored_size + 1, stored,
                                         from_cache)
                 : dir->ReadFileAt(name, 0, e.stored_size + 1, stored);
  if (s.IsNotFound()) {
    // The meta file lists it, so a missing KV file is damage, not absence.
    return Status::Corruption(dir->path() + "/" + name, "KV file missing");
  }
  if (!s.ok()) return s;
  if (stored->size() != e.stored_size) {
    return Status::Corruption(dir->path() + "/" + name,
                              "stored size " + std::to_string(stored->size()) +
                                  " != recorded " +
                                  std::to_string(e.stored_size));
  }
  if (crc32c::Mask(crc32c::Value(stored->data(), stored->size())) !=
      e.stored_crc) {
    return Status::Corruption(dir->path() + "/" + name,
                              "value checksum mismatch");
  }
  return Status::OK();
}

}  // namespace

Status SstDir::ReadValueUncached(const ReadOptions& options, size_t index,
                                 std::string* value, bool* from_cache) const {
  value->clear();
  if (from_cache != nullptr) *from_cache = false;
  if (index >= index_.entries.size()) {
    return Status::InvalidArgument(dir_->path(), "entry index out of range");
  }
  const MetaIndexEntry& e = index_.entries[index];
  if (e.storage == ValueStorage::kNone) return Status::OK();

  std::string scratch;
  if (HasKvFile(e.storage)) {
    const Slice ikey(e.internal_key);
    const std::string name =
        KvStoredFileName(ExtractUserKey(ikey), ExtractTag(ikey) >> 8,
                         StoredCompressed(e.storage));
    // A value that stays put is read from its home, the same way.
    Directory* dir = dir_.get();
    std::shared_ptr<Directory> home;
    if (StoredInHome(e.storage)) {
      if (options_.homes == nullptr) {
        return Status::Corruption(dir_->path() + "/" + meta_name_,
                                  "entry in a home, and no homes given");
      }
      Status s = options_.homes->Get(e.home, &home);
      if (s.IsNotFound()) {
        return Status::Corruption(options_.homes->PathOf(e.home),
                                  "home directory missing");
      }
      if (!s.ok()) return s;
      dir = home.get();
    }
    // An uncompressed value is read straight into *value (no copy; the
    // caller's buffer is reused); a compressed one into scratch.
    const bool compressed = StoredCompressed(e.storage);
    std::string* raw = compressed ? &scratch : value;
    Status s = ReadKvFile(dir, name, e, raw, from_cache);
    if (!s.ok()) {
      value->clear();
      return s;
    }
    // Uncompressed and of the recorded size, *value holds it already (and
    // no name is built); otherwise DecodeKvValue decodes it or says what is
    // wrong.
    if (!compressed && raw->size() == e.value_size) return Status::OK();
    return DecodeKvValue(*raw, compressed, e.value_size,
                         dir->path() + "/" + name, value);
  }
  uint64_t offset = 0;
  Slice stored;
  Status s = ReadInlineStored(index, 0, 0, &scratch, &offset, &stored);
  if (!s.ok()) return s;
  return DecodeInlineValue(index, stored, value);
}

uint64_t SstDir::ApproximateBytesBefore(const Slice& internal_key) const {
  const auto& entries = index_.entries;
  const size_t before = LowerBound(internal_key);
  uint64_t bytes = 0;
  for (size_t i = 0; i < before; i++) bytes += KvFileAllocatedBytes(entries[i]);
  if (!entries.empty()) bytes += meta_allocated_ * before / entries.size();
  return bytes;
}

}  // namespace leveldb
