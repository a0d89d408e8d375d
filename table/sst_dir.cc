// SstDir: reads through the decoded meta-file index; KV files are opened
// only to fetch a value, never listed.
#include "table/sst_dir.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

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

// decode(name) with an empty name for errors and, only if that fails, again
// with name_for_errors() (decoding is deterministic: the same failure), so
// a read that succeeds builds no string; a scan decodes every entry, and
// building a name cost as much as decoding a small value.
template <typename Decode, typename Name>
Status DecodeNamingOnFailure(const Decode& decode,
                             const Name& name_for_errors) {
  static const std::string* const kNoName = new std::string();
  Status s = decode(*kNoName);
  if (!s.ok()) s = decode(name_for_errors());
  return s;
}

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

// Reads the footer of the meta file `file` (of `path`) and sets *bytes to
// the range it names (formats 1 to 3 the index, format 4 the trailer): in
// the file's mapping when it has one, else read into *copy (for format 1,
// the whole file).
Status ReadTail(ReadOnlyFile* file, const std::string& path,
                MetaIndexRange* range, std::string* copy, Slice* bytes) {
  const uint64_t size = file->size();
  if (file->mapped() != nullptr) {
    const Slice whole(file->mapped(), size);
    Status s = DecodeMetaFooter(whole, size, path, range);
    if (!s.ok()) return s;
    *bytes = Slice(whole.data() + range->offset, range->size);
  } else if (size <= kReadWholeMetaBelow) {
    Status s = file->ReadAt(0, size, copy);
    if (!s.ok()) return s;
    if (copy->size() != size) {
      return Status::Corruption(path, "meta file shrank while read");
    }
    s = DecodeMetaFooter(*copy, size, path, range);
    if (!s.ok()) return s;
    // Only the range is kept (format 1: the whole file).
    copy->resize(range->offset + range->size);
    copy->erase(0, range->offset);
    *bytes = *copy;
  } else {
    std::string tail;
    Status s = file->ReadAt(size - kMetaTailLength, kMetaTailLength, &tail);
    if (!s.ok()) return s;
    s = DecodeMetaFooter(tail, size, path, range);
    if (!s.ok()) return s;
    s = file->ReadAt(range->offset, range->size, copy);
    if (!s.ok()) return s;
    *bytes = *copy;
  }
  return Status::OK();
}

// Bytes a decoded index keeps resident beyond its source bytes: its
// entries, and the key windows (8 bytes per entry) that any lookup may
// build.
size_t DecodedEntriesMemory(const MetaIndex& index) {
  return index.entries.capacity() * sizeof(MetaIndexEntry) +
         index.entries.size() * sizeof(uint64_t);
}

}  // namespace

SstDir::SstDir(const SstDirOptions& options, std::unique_ptr<Directory> dir,
               std::string path, std::string meta_name)
    : options_(options),
      dir_(std::move(dir)),
      path_(std::move(path)),
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
  std::unique_ptr<SstDir> sst(
      new SstDir(options, std::move(dir), path, meta_name));
  const uint64_t meta_allocated = AllocatedBytes(file->size());
  MetaIndexRange range;
  Slice bytes;
  s = ReadTail(file.get(), meta_path, &range, &sst->index_copy_, &bytes);
  if (!s.ok()) return s;
  const bool grouped = range.version == 4;
  if (grouped) {
    // The trailer alone: the groups are decoded when read.
    s = DecodeMetaTrailer(bytes, range, meta_path, &sst->trailer_);
    sst->values_end_ = sst->trailer_.groups_offset;
    sst->trailer_offset_ = range.offset;
  } else {
    s = DecodeMetaIndex(bytes, range, meta_path, &sst->index_);
    sst->values_end_ = range.offset;
  }
  if (!s.ok()) return s;
  if (grouped && file->mapped() == nullptr && range.offset > sst->values_end_) {
    // Unmapped, the groups are read now, whole and undecoded (each is
    // checked when decoded), so that a lookup reads only its value, as in
    // a mapping.
    const uint64_t size = range.offset - sst->values_end_;
    s = file->ReadAt(sst->values_end_, size, &sst->groups_copy_);
    if (s.ok() && sst->groups_copy_.size() != size) {
      s = Status::Corruption(meta_path, "meta file truncated");
    }
    if (!s.ok()) return s;
  }
  if (file->mapped() != nullptr) {
    sst->meta_in_memory_ = file->mapped();
    sst->meta_file_ = std::move(file);  // index_ points into its mapping
  } else if (range.version == 1) {
    sst->meta_in_memory_ = sst->index_copy_.data();  // the whole file
  } else if (sst->values_end_ > kMetaValuesOffset) {
    sst->meta_file_ = std::move(file);  // inline values are read from it
  }
  file.reset();
  // No entry with a KV file: nothing reads through the directory (see
  // directory()), so its descriptor is not kept, unless the meta file is
  // read through it (unmapped, a ReadOnlyFile must not outlive it).
  bool kv_files = false;
  if (grouped) {
    kv_files = sst->trailer_.kv_entries > 0;
  } else {
    for (const MetaIndexEntry& e : sst->index_.entries) {
      if (HasKvFile(e.storage)) {
        kv_files = true;
        break;
      }
    }
  }
  sst->kv_files_ = kv_files;
  if (!kv_files &&
      (sst->meta_file_ == nullptr || sst->meta_file_->mapped() != nullptr)) {
    sst->dir_.reset();
  }

  sst->user_comparator_ = UserComparatorOf(options.comparator);
  const Slice comparator_name =
      grouped ? sst->trailer_.comparator_name : sst->index_.comparator_name;
  if (comparator_name != Slice(sst->user_comparator_->Name())) {
    return Status::InvalidArgument(
        meta_path, "written with comparator " + comparator_name.ToString() +
                       ", opened with " + sst->user_comparator_->Name());
  }
  // The filter is used only if the policy that made it is the one in use.
  Slice filter = grouped ? sst->trailer_.filter : sst->index_.filter;
  Slice policy_name;
  if (options.filter_policy != nullptr &&
      GetLengthPrefixedSlice(&filter, &policy_name) &&
      policy_name == Slice(options.filter_policy->Name())) {
    sst->filter_ = filter;
  }
  // Binary search relies on the entries' order, which is not checked here:
  // the builder refuses entries out of order (SstDirBuilder::Add and
  // AddLinked), and the checksums, of the index, or of the trailer and of
  // each group before it is used, show that these are the bytes it wrote.
  sst->meta_allocated_ = meta_allocated;
  size_t memory = sizeof(SstDir) + range.size;
  if (grouped) {
    const size_t groups = sst->trailer_.groups.size();
    sst->group_checked_.reset(new std::atomic<bool>[groups]);
    sst->index_after_group_seeks_ = static_cast<uint32_t>(std::min<uint64_t>(
        UINT32_MAX, std::max<uint64_t>(kMinIndexAfterGroupSeeks,
                                       static_cast<uint64_t>(groups) /
                                           kGroupsPerSeekBeforeIndex)));
    for (size_t g = 0; g < groups; g++) {
      sst->group_checked_[g].store(false, std::memory_order_relaxed);
    }
    memory += sst->trailer_.groups.capacity() * sizeof(MetaGroup) +
              groups * sizeof(std::atomic<bool>) + sst->groups_copy_.size();
  } else {
    // Charged as if the windows were built, which they may be at any
    // lookup.
    memory += DecodedEntriesMemory(sst->index_);
    sst->index_loaded_.store(true, std::memory_order_relaxed);
  }
  sst->memory_usage_.store(memory, std::memory_order_relaxed);
  *result = std::move(sst);
  return Status::OK();
}

void SstDir::IndexNotLoaded() {
  std::fprintf(stderr, "SstDir::index() before LoadIndex() succeeded\n");
  std::abort();
}

Status SstDir::LoadIndex() const {
  if (index_loaded_.load(std::memory_order_acquire)) return Status::OK();
  std::call_once(index_once_, [this] {
    // Only a format-4 SST gets here (Open loads every other index).
    const uint64_t size = trailer_offset_ - trailer_.groups_offset;
    const Slice groups =
        meta_in_memory_ != nullptr
            ? Slice(meta_in_memory_ + trailer_.groups_offset, size)
            : Slice(groups_copy_);
    Status s = DecodeMetaGroups(groups, trailer_, MetaPath(), &index_);
    if (!s.ok()) {
      index_ = MetaIndex();
      index_status_ = s;
      return;
    }
    // The groups' bytes were charged at Open when copied; mapped, they are
    // now resident too.
    memory_usage_.fetch_add(
        DecodedEntriesMemory(index_) + (meta_in_memory_ != nullptr ? size : 0),
        std::memory_order_relaxed);
    index_loaded_.store(true, std::memory_order_release);
  });
  if (index_loaded_.load(std::memory_order_acquire)) return Status::OK();
  return index_status_;
}

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
    return Status::InvalidArgument(path_, "malformed internal key");
  }
  const Slice user_key = ExtractUserKey(internal_key);
  if (!filter_.empty() &&
      !options_.filter_policy->KeyMayMatch(user_key, filter_)) {
    return Status::OK();
  }
  if (!index_loaded_.load(std::memory_order_acquire)) {
    return GroupGet(options, internal_key, arg, handle);
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

Slice SstDir::GroupBytes(size_t g) const {
  const MetaGroup& m = trailer_.groups[g];
  // Within the file's groups (DecodeMetaTrailer checked that they tile it).
  return meta_in_memory_ != nullptr
             ? Slice(meta_in_memory_ + m.offset, m.size)
             : Slice(groups_copy_.data() + (m.offset - trailer_.groups_offset),
                     m.size);
}

size_t SstDir::GroupLowerBound(const Slice& internal_key) const {
  const Comparator* cmp = options_.comparator;
  const std::vector<MetaGroup>& groups = trailer_.groups;
  size_t lo = 0, hi = groups.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (cmp->Compare(groups[mid].first_key, internal_key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t SstDir::LowerBoundInGroup(const MetaIndexEntry* entries, size_t from,
                                 size_t count,
                                 const Slice& internal_key) const {
  const Comparator* cmp = options_.comparator;
  size_t a = from, b = count;
  while (a < b) {
    const size_t mid = a + (b - a) / 2;
    if (cmp->Compare(entries[mid].internal_key, internal_key) < 0) {
      a = mid + 1;
    } else {
      b = mid;
    }
  }
  return a;
}

Status SstDir::CheckGroup(size_t g, MetaIndexEntry* out) const {
  const Slice bytes = GroupBytes(g);
  Status s = DecodeNamingOnFailure(
      [&](const std::string& name) {
        return DecodeMetaGroup(bytes, trailer_, g, name, out);
      },
      [this] { return MetaPath(); });
  if (s.ok()) group_checked_[g].store(true, std::memory_order_release);
  return s;
}

Status SstDir::SeekInGroup(size_t g, const Slice& internal_key, size_t from,
                           MetaIndexEntry* out, size_t* pos,
                           MetaGroupCursor* cursor) const {
  if (group_checked_[g].load(std::memory_order_acquire)) {
    // The same bytes as when checked (a mapping or groups_copy_ of a file
    // never modified): their entries are decoded only up to the answer.
    const Slice bytes = GroupBytes(g);
    return DecodeNamingOnFailure(
        [&](const std::string& name) {
          return SeekInCheckedMetaGroup(bytes, trailer_, g, options_.comparator,
                                        internal_key, from, name, out, pos,
                                        cursor);
        },
        [this] { return MetaPath(); });
  }
  Status s = CheckGroup(g, out);
  if (!s.ok()) return s;
  const size_t n = trailer_.EntriesIn(g);
  if (cursor != nullptr) cursor->decoded = n;
  *pos = LowerBoundInGroup(out, from, n, internal_key);
  return Status::OK();
}

Status SstDir::StartGroup(size_t g, size_t until, MetaIndexEntry* out,
                          MetaGroupCursor* cursor) const {
  if (group_checked_[g].load(std::memory_order_acquire)) {
    // As in SeekInGroup: only the entries asked for are decoded.
    const Slice bytes = GroupBytes(g);
    return DecodeNamingOnFailure(
        [&](const std::string& name) {
          return StartCheckedMetaGroup(bytes, trailer_, g, until, name, out,
                                       cursor);
        },
        [this] { return MetaPath(); });
  }
  Status s = CheckGroup(g, out);
  if (s.ok()) cursor->decoded = trailer_.EntriesIn(g);
  return s;
}

Status SstDir::ContinueGroup(size_t g, size_t until, MetaIndexEntry* out,
                             MetaGroupCursor* cursor) const {
  if (cursor->decoded >= until) return Status::OK();
  // A failed decode may have moved the cursor into a record: the second
  // decode, which names the file, starts where the first one did.
  const MetaGroupCursor start = *cursor;
  return DecodeNamingOnFailure(
      [&](const std::string& name) {
        *cursor = start;
        return ContinueCheckedMetaGroup(trailer_, g, until, name, out, cursor);
      },
      [this] { return MetaPath(); });
}

Status SstDir::GroupGet(const ReadOptions& options, const Slice& internal_key,
                        void* arg,
                        void (*handle)(void*, const Slice& key,
                                       const Slice& value)) const {
  const std::vector<MetaGroup>& groups = trailer_.groups;
  // The answer is in the group before lo, or else it is lo's first entry.
  const size_t lo = GroupLowerBound(internal_key);
  const Slice user_key = ExtractUserKey(internal_key);
  MetaIndexEntry entries[kMetaGroupEntries];
  size_t g = lo, i = 0;
  if (lo > 0) {
    // Every key of group lo - 1 from its first is < the target but maybe
    // the last ones; a damaged group is an error, not a miss.
    size_t pos;
    Status s = SeekInGroup(lo - 1, internal_key, 1, entries, &pos);
    if (!s.ok()) return s;
    if (pos < trailer_.EntriesIn(lo - 1)) {
      g = lo - 1;
      i = pos;
    }
  }
  if (g == lo) {
    // Group lo's first entry, whose key the trailer holds: decoded only if
    // it is the target's user key.
    if (lo == groups.size() ||
        user_comparator_->Compare(ExtractUserKey(groups[lo].first_key),
                                  user_key) != 0) {
      return Status::OK();
    }
    size_t pos;
    Status s = SeekInGroup(lo, internal_key, 0, entries, &pos);
    if (!s.ok()) return s;
    assert(pos == 0);
  } else if (user_comparator_->Compare(ExtractUserKey(entries[i].internal_key),
                                       user_key) != 0) {
    return Status::OK();
  }
  std::string value;
  Status s =
      ReadEntryValue(options, g * kMetaGroupEntries + i, entries[i], &value);
  if (!s.ok()) return s;
  handle(arg, entries[i].internal_key, value);
  return Status::OK();
}

std::string SstDir::CacheKey(const Slice& internal_key) const {
  std::string key;
  PutFixed64(&key, options_.value_cache_id);
  key.append(internal_key.data(), internal_key.size());
  return key;
}

bool SstDir::LookupCachedValue(size_t index, std::string* value) const {
  return LookupCachedEntry(index_.entries[index].internal_key, value);
}

bool SstDir::LookupCachedEntry(const Slice& internal_key,
                               std::string* value) const {
  Cache* cache = options_.value_cache;
  if (cache == nullptr) return false;
  Cache::Handle* h = cache->Lookup(CacheKey(internal_key));
  if (h == nullptr) return false;
  value->assign(*static_cast<std::string*>(cache->Value(h)));
  cache->Release(h);
  return true;
}

void SstDir::CacheValue(size_t index, const Slice& value) const {
  CacheEntry(index_.entries[index].internal_key, value);
}

void SstDir::CacheEntry(const Slice& internal_key, const Slice& value) const {
  Cache* cache = options_.value_cache;
  if (cache == nullptr) return;
  const std::string key = CacheKey(internal_key);
  const size_t charge = value.size() + key.size() + sizeof(std::string);
  cache->Release(cache->Insert(key, new std::string(value.ToString()), charge,
                               &DeleteCachedValue));
}

Status SstDir::ReadValue(const ReadOptions& options, size_t index,
                         std::string* value) const {
  value->clear();
  if (index >= index_.entries.size()) {
    return Status::InvalidArgument(path_, "entry index out of range");
  }
  return ReadEntryValue(options, index, index_.entries[index], value);
}

Status SstDir::ReadEntryValue(const ReadOptions& options, size_t number,
                              const MetaIndexEntry& e,
                              std::string* value) const {
  value->clear();
  if (e.storage == ValueStorage::kNone) return Status::OK();
  // An inline value of a mapped meta file is read in memory: a cache
  // lookup (a key built, hashed and locked for) would cost more than the
  // read, and an insert would only evict values that cost a file read.
  if (InlineInMemory(e.storage)) {
    return ReadEntryValueUncached(options, number, e, value, nullptr);
  }
  if (LookupCachedEntry(e.internal_key, value)) return Status::OK();
  Status s = ReadEntryValueUncached(options, number, e, value, nullptr);
  if (s.ok() && options.fill_cache) CacheEntry(e.internal_key, *value);
  return s;
}

std::string SstDir::InlineWhere(size_t index) const {
  return MetaPath() + " entry " + std::to_string(index);
}

Status SstDir::ReadInlineStored(size_t index, int direction, size_t ahead,
                                std::string* buffer, uint64_t* buffer_offset,
                                Slice* stored) const {
  return ReadEntryInlineStored(index, index_.entries[index], direction, ahead,
                               buffer, buffer_offset, stored);
}

Status SstDir::ReadEntryInlineStored(size_t index, const MetaIndexEntry& e,
                                     int direction, size_t ahead,
                                     std::string* buffer,
                                     uint64_t* buffer_offset,
                                     Slice* stored) const {
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
  // Always checked: no checksum of the index covers the value section.
  if (crc32c::Mask(crc32c::Value(stored->data(), stored->size())) !=
      e.stored_crc) {
    return Status::Corruption(InlineWhere(index),
                              "inline value checksum mismatch");
  }
  return Status::OK();
}

Status SstDir::DecodeInlineValue(size_t index, const Slice& stored,
                                 std::string* value) const {
  return DecodeEntryInlineValue(index, index_.entries[index], stored, value);
}

Status SstDir::DecodeEntryInlineValue(size_t index, const MetaIndexEntry& e,
                                      const Slice& stored,
                                      std::string* value) const {
  const bool compressed = StoredCompressed(e.storage);
  return DecodeNamingOnFailure(
      [&](const std::string& name) {
        return DecodeKvValue(stored, compressed, e.value_size, name, value);
      },
      [&] { return InlineWhere(index); });
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
    return Status::InvalidArgument(path_, "entry index out of range");
  }
  return ReadEntryValueUncached(options, index, index_.entries[index], value,
                                from_cache);
}

Status SstDir::ReadEntryValueUncached(const ReadOptions& options, size_t index,
                                      const MetaIndexEntry& e,
                                      std::string* value,
                                      bool* from_cache) const {
  value->clear();
  if (from_cache != nullptr) *from_cache = false;
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
    if (StoredInFile(e.storage) && dir == nullptr) {
      // Never: decoding refuses such an entry of an SST that counts no KV
      // file, and Open keeps the directory of every other SST.
      return Status::Corruption(MetaPath(),
                                "KV file in an SST that counts none");
    }
    if (StoredInHome(e.storage)) {
      if (options_.homes == nullptr) {
        return Status::Corruption(MetaPath(),
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
  Status s = ReadEntryInlineStored(index, e, 0, 0, &scratch, &offset, &stored);
  if (!s.ok()) return s;
  return DecodeEntryInlineValue(index, e, stored, value);
}

uint64_t SstDir::ApproximateBytesBefore(const Slice& internal_key) const {
  if (!LoadIndex().ok()) return 0;
  const auto& entries = index_.entries;
  const size_t before = LowerBound(internal_key);
  uint64_t bytes = 0;
  for (size_t i = 0; i < before; i++) bytes += KvFileAllocatedBytes(entries[i]);
  if (!entries.empty()) bytes += meta_allocated_ * before / entries.size();
  return bytes;
}

}  // namespace leveldb
