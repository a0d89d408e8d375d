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

// Reads the footer and index of the meta file `file` (of `path`): from its
// mapping when it has one, else by reads.
Status ReadIndex(ReadOnlyFile* file, const std::string& path,
                 MetaIndexRange* range, MetaFileContents* contents) {
  const uint64_t size = file->size();
  std::string data;
  Slice index;
  if (file->mapped() != nullptr) {
    const Slice whole(file->mapped(), size);
    Status s = DecodeMetaFooter(whole, size, path, range);
    if (!s.ok()) return s;
    index = Slice(whole.data() + range->offset, range->size);
  } else if (size <= kReadWholeMetaBelow) {
    Status s = file->ReadAt(0, size, &data);
    if (!s.ok()) return s;
    if (data.size() != size) {
      return Status::Corruption(path, "meta file shrank while read");
    }
    s = DecodeMetaFooter(data, size, path, range);
    if (!s.ok()) return s;
    index = Slice(data.data() + range->offset, range->size);
  } else {
    std::string tail;
    Status s = file->ReadAt(size - kMetaTailLength, kMetaTailLength, &tail);
    if (!s.ok()) return s;
    s = DecodeMetaFooter(tail, size, path, range);
    if (!s.ok()) return s;
    s = file->ReadAt(range->offset, range->size, &data);
    if (!s.ok()) return s;
    index = data;
  }
  return DecodeMetaIndex(index, *range, path, contents);
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
  s = ReadIndex(file.get(), meta_path, &range, &sst->contents_);
  if (!s.ok()) return s;
  if (range.version >= 2 && range.offset > kMetaValuesOffset) {
    sst->meta_file_ = std::move(file);  // inline values are read from it
    sst->meta_mapped_ = sst->meta_file_->mapped();
    sst->values_end_ = range.offset;
  }

  sst->user_comparator_ = UserComparatorOf(options.comparator);
  if (sst->contents_.comparator_name != sst->user_comparator_->Name()) {
    return Status::InvalidArgument(
        meta_path, "written with comparator " + sst->contents_.comparator_name +
                       ", opened with " + sst->user_comparator_->Name());
  }
  // The filter is used only if the policy that made it is the one in use.
  Slice filter(sst->contents_.filter);
  Slice policy_name;
  if (options.filter_policy != nullptr &&
      GetLengthPrefixedSlice(&filter, &policy_name) &&
      policy_name == Slice(options.filter_policy->Name())) {
    sst->filter_ = filter;
  }
  // Binary search relies on the order, so check it once here.
  const auto& entries = sst->contents_.entries;
  sst->bytes_before_.resize(entries.size() + 1);
  sst->bytes_before_[0] = 0;
  size_t memory = sizeof(SstDir) + entries.capacity() * sizeof(MetaEntry) +
                  sst->contents_.filter.capacity() +
                  sst->bytes_before_.capacity() * sizeof(uint64_t);
  for (size_t i = 0; i < entries.size(); i++) {
    if (i > 0 && options.comparator->Compare(entries[i - 1].internal_key,
                                             entries[i].internal_key) >= 0) {
      return Status::Corruption(
          meta_path, "entries out of order at entry " + std::to_string(i));
    }
    sst->bytes_before_[i + 1] =
        sst->bytes_before_[i] + KvFileAllocatedBytes(entries[i]);
    // Strings longer than the small-string buffer live on the heap.
    if (entries[i].internal_key.capacity() > 15) {
      memory += entries[i].internal_key.capacity() + 1;
    }
    if (entries[i].inline_value.capacity() > 15) {
      memory += entries[i].inline_value.capacity() + 1;
    }
  }
  // The meta file's blocks are spread over the entries evenly.
  for (size_t i = 1; i <= entries.size(); i++) {
    sst->bytes_before_[i] += meta_allocated * i / entries.size();
  }
  sst->memory_usage_ = memory;
  *result = std::move(sst);
  return Status::OK();
}

size_t SstDir::ApproximateMemoryUsage() const { return memory_usage_; }

size_t SstDir::LowerBound(const Slice& internal_key) const {
  const auto& entries = contents_.entries;
  size_t lo = 0, hi = entries.size();
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
  if (index >= contents_.entries.size()) return Status::OK();
  const Slice found = contents_.entries[index].internal_key;
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
  key.append(contents_.entries[index].internal_key);
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
  if (index >= contents_.entries.size()) {
    return Status::InvalidArgument(dir_->path(), "entry index out of range");
  }
  const ValueStorage storage = contents_.entries[index].storage;
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
  const MetaEntry& e = contents_.entries[index];
  assert(StoredInline(e.storage));
  if (meta_file_ == nullptr) {
    *stored = e.inline_value;  // format 1: held in memory
  } else if (meta_mapped_ != nullptr) {
    if (e.inline_offset < kMetaValuesOffset ||
        e.inline_offset + e.stored_size > values_end_) {
      return Status::Corruption(InlineWhere(index),
                                "inline value outside the value section");
    }
    *stored = Slice(meta_mapped_ + e.inline_offset, e.stored_size);
  } else {
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

Status SstDir::ReadValueUncached(const ReadOptions& options, size_t index,
                                 std::string* value, const Slice* stored_inline,
                                 bool* from_cache) const {
  value->clear();
  if (from_cache != nullptr) *from_cache = false;
  if (index >= contents_.entries.size()) {
    return Status::InvalidArgument(dir_->path(), "entry index out of range");
  }
  const MetaEntry& e = contents_.entries[index];
  if (e.storage == ValueStorage::kNone) return Status::OK();

  std::string scratch;
  Slice stored;
  std::string where;
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
    where = dir->path() + "/" + name;
    // One byte more than recorded: a longer file shows in the same read.
    Status s = from_cache != nullptr
                   ? dir->ReadFileAtNoting(name, 0, e.stored_size + 1,
                                           &scratch, from_cache)
                   : dir->ReadFileAt(name, 0, e.stored_size + 1, &scratch);
    if (s.IsNotFound()) {
      // The meta file lists it, so a missing KV file is damage, not absence.
      return Status::Corruption(where, "KV file missing");
    }
    if (!s.ok()) return s;
    if (scratch.size() != e.stored_size) {
      return Status::Corruption(
          where, "stored size " + std::to_string(scratch.size()) +
                     " != recorded " + std::to_string(e.stored_size));
    }
    // Checked on every read, verify_checksums or not: a KV file written
    // but not yet durable (a deferred-mode flush whose WAL has expired)
    // can come back from a power loss zero-filled at its full size, and
    // must read as damage, never as a value. The hardware crc32c of a
    // 4 KiB value costs well under a microsecond next to the file's open,
    // read and close.
    if (crc32c::Mask(crc32c::Value(scratch.data(), scratch.size())) !=
        e.stored_crc) {
      return Status::Corruption(where, "value checksum mismatch");
    }
    stored = scratch;
  } else {
    if (stored_inline != nullptr) {
      stored = *stored_inline;
    } else {
      uint64_t offset = 0;
      Status s = ReadInlineStored(index, 0, 0, &scratch, &offset, &stored);
      if (!s.ok()) return s;
    }
  }
  const bool compressed = StoredCompressed(e.storage);
  if (HasKvFile(e.storage)) {
    return DecodeKvValue(stored, compressed, e.value_size, where, value);
  }
  // An inline value's name for errors is built only on failure (decoding
  // again is deterministic): a scan decodes every entry, and building the
  // name cost as much as decoding a small value.
  Status s =
      DecodeKvValue(stored, compressed, e.value_size, std::string(), value);
  if (!s.ok()) {
    s = DecodeKvValue(stored, compressed, e.value_size, InlineWhere(index),
                      value);
  }
  return s;
}

uint64_t SstDir::ApproximateBytesBefore(const Slice& internal_key) const {
  return bytes_before_[LowerBound(internal_key)];
}

}  // namespace leveldb
