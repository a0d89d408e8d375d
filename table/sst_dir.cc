// SstDir: reads through the decoded meta file; KV files are opened only to
// fetch a value, never listed.
#include "table/sst_dir.h"

#include <cassert>

#include "db/dbformat.h"
#include "fs/file_system.h"
#include "table/key_codec.h"
#include "table/kv_value.h"
#include "leveldb/comparator.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

namespace {

const Comparator* UserComparatorOf(const Comparator* c) {
  const auto* icmp = dynamic_cast<const InternalKeyComparator*>(c);
  if (icmp != nullptr && icmp->user_comparator() != nullptr) {
    return icmp->user_comparator();
  }
  return BytewiseComparator();
}

// Iterates over a directory's meta entries; a value is read on the first
// value() call at each position.
class SstDirIterator final : public Iterator {
 public:
  SstDirIterator(const SstDir* dir, const Comparator* cmp,
                 const ReadOptions& options)
      : dir_(dir),
        cmp_(cmp),
        options_(options),
        n_(dir->contents().entries.size()),
        index_(n_) {}

  bool Valid() const override { return index_ < n_ && status_.ok(); }
  void SeekToFirst() override { MoveTo(0); }
  void SeekToLast() override { MoveTo(n_ == 0 ? 0 : n_ - 1); }
  void Seek(const Slice& target) override {
    const auto& entries = dir_->contents().entries;
    const Comparator* cmp = cmp_;
    size_t lo = 0, hi = n_;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (cmp->Compare(entries[mid].internal_key, target) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    MoveTo(lo);
  }
  void Next() override {
    assert(Valid());
    MoveTo(index_ + 1);
  }
  void Prev() override {
    assert(Valid());
    MoveTo(index_ == 0 ? n_ : index_ - 1);
  }
  Slice key() const override {
    assert(Valid());
    return dir_->contents().entries[index_].internal_key;
  }
  Slice value() const override {
    assert(Valid());
    if (!value_loaded_) {
      Status s = dir_->ReadValue(options_, index_, &value_);
      if (!s.ok()) {
        // The contract: a failed read invalidates the iterator.
        status_ = s;
        value_.clear();
        return Slice();
      }
      value_loaded_ = true;
    }
    return value_;
  }
  Status status() const override { return status_; }

 private:
  void MoveTo(size_t index) {
    index_ = index < n_ ? index : n_;
    value_loaded_ = false;
    value_.clear();
  }

  const SstDir* const dir_;
  const Comparator* const cmp_;  // orders internal keys
  const ReadOptions options_;
  const size_t n_;
  size_t index_;  // n_ when not positioned
  // Lazily loaded value of entries[index_]; mutable because value() is const.
  mutable std::string value_;
  mutable bool value_loaded_ = false;
  mutable Status status_;
};

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
  std::string data;
  s = dir->ReadFile(meta_name, &data);
  if (!s.ok()) return s;
  const std::string meta_path = path + "/" + meta_name;
  std::unique_ptr<SstDir> sst(new SstDir(options, std::move(dir), meta_name));
  s = DecodeMetaFile(data, meta_path, &sst->contents_);
  if (!s.ok()) return s;

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
  for (size_t i = 0; i < entries.size(); i++) {
    if (i > 0 && options.comparator->Compare(entries[i - 1].internal_key,
                                             entries[i].internal_key) >= 0) {
      return Status::Corruption(
          meta_path, "entries out of order at entry " + std::to_string(i));
    }
    sst->bytes_before_[i + 1] = sst->bytes_before_[i] + entries[i].value_size;
  }
  *result = std::move(sst);
  return Status::OK();
}

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

Status SstDir::ReadValue(const ReadOptions& options, size_t index,
                         std::string* value) const {
  value->clear();
  if (index >= contents_.entries.size()) {
    return Status::InvalidArgument(dir_->path(), "entry index out of range");
  }
  const MetaEntry& e = contents_.entries[index];
  if (e.storage == ValueStorage::kNone) return Status::OK();

  std::string from_file;
  Slice stored;
  std::string where;
  if (StoredInFile(e.storage)) {
    const Slice ikey(e.internal_key);
    const std::string name =
        KvStoredFileName(ExtractUserKey(ikey), ExtractTag(ikey) >> 8,
                         e.storage == ValueStorage::kFileSnappy);
    where = dir_->path() + "/" + name;
    Status s = dir_->ReadFile(name, &from_file);
    if (s.IsNotFound()) {
      // The meta file lists it, so a missing KV file is damage, not absence.
      return Status::Corruption(where, "KV file missing");
    }
    if (!s.ok()) return s;
    stored = from_file;
  } else {
    where = dir_->path() + "/" + meta_name_ + " entry " + std::to_string(index);
    stored = e.inline_value;
  }
  if (stored.size() != e.stored_size) {
    return Status::Corruption(
        where, "stored size " + std::to_string(stored.size()) +
                   " != recorded " + std::to_string(e.stored_size));
  }
  if (options.verify_checksums &&
      crc32c::Mask(crc32c::Value(stored.data(), stored.size())) !=
          e.stored_crc) {
    return Status::Corruption(where, "value checksum mismatch");
  }
  const bool compressed = e.storage == ValueStorage::kFileSnappy ||
                          e.storage == ValueStorage::kInlineSnappy;
  return DecodeKvValue(stored, compressed, e.value_size, where, value);
}

Iterator* SstDir::NewIterator(const ReadOptions& options) const {
  return new SstDirIterator(this, options_.comparator, options);
}

uint64_t SstDir::ApproximateBytesBefore(const Slice& internal_key) const {
  return bytes_before_[LowerBound(internal_key)];
}

}  // namespace leveldb
