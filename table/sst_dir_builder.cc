// SstDirBuilder. The LONGKEYS file, written only when some key needed a
// hashed KV file name, lets repair map hashed names back to keys without
// the meta file. Its layout: records of length-prefixed name and
// length-prefixed user key, then fixed32 masked crc32c of the records.
#include "table/sst_dir_builder.h"

#include <algorithm>
#include <cassert>

#include "db/dbformat.h"
#include "fs/file_system.h"
#include "fs/unlink_unless_gone.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "table/kv_value.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

namespace {
// 4 KiB blocks a file of `size` bytes occupies on the file systems DeLSM
// targets (ext4, xfs with 4 KiB blocks).
uint64_t FileBlocks(uint64_t size) { return (size + 4095) / 4096; }
}  // namespace

namespace {

// The name recorded in META: the user comparator's when the internal one
// wraps it, since that is what must match when the directory is read back.
std::string ComparatorName(const Comparator* c) {
  const auto* icmp = dynamic_cast<const InternalKeyComparator*>(c);
  if (icmp != nullptr && icmp->user_comparator() != nullptr) {
    return icmp->user_comparator()->Name();
  }
  return c->Name();
}

}  // namespace

SstDirBuilder::SstDirBuilder(const SstDirOptions& options, std::string path,
                             std::string meta_name, std::string long_keys_name)
    : options_(options),
      path_(std::move(path)),
      meta_name_(std::move(meta_name)),
      long_keys_name_(std::move(long_keys_name)) {
  assert(options_.comparator != nullptr);
  assert(options_.fs != nullptr);
}

SstDirBuilder::~SstDirBuilder() {
  if (!finished_) Abandon();
}

Status SstDirBuilder::Begin() {
  if (dir_ != nullptr) {
    return Status::InvalidArgument(path_,
                                   "SST directory builder already begun");
  }
  Status s = options_.fs->CreateDir(path_, /*ok_if_exists=*/false);
  if (!s.ok()) return s;
  s = options_.fs->OpenDirectory(path_, &dir_);
  if (!s.ok()) {
    dir_.reset();
    // We made it, and it is empty.
    if (!options_.fs->RemoveDir(path_).ok()) undo_failed_ = true;
    return s;
  }
  created_dir_ = true;
  return s;
}

Status SstDirBuilder::BeginInExisting() {
  if (dir_ != nullptr) {
    return Status::InvalidArgument(path_,
                                   "SST directory builder already begun");
  }
  Status s = options_.fs->OpenDirectory(path_, &dir_);
  if (!s.ok()) dir_.reset();
  return s;
}

// Checks the entry may follow `largest`, the last one added (none when
// `empty`), and parses its key.
static Status CheckOrder(const SstDirOptions& options, bool empty,
                         const Slice& largest, const std::string& path,
                         const Slice& internal_key, ParsedInternalKey* parsed) {
  if (!ParseInternalKey(internal_key, parsed)) {
    return Status::InvalidArgument(path, "malformed internal key");
  }
  if (!empty && options.comparator->Compare(largest, internal_key) >= 0) {
    return Status::InvalidArgument(path, "entries added out of order");
  }
  return Status::OK();
}

Status SstDirBuilder::Add(const Slice& internal_key, const Slice& value) {
  if (dir_ == nullptr || finished_) {
    return Status::InvalidArgument(path_, "builder not open for Add");
  }
  ParsedInternalKey parsed;
  Status s = CheckOrder(options_, NumEntries() == 0, largest(), path_,
                        internal_key, &parsed);
  if (!s.ok()) return s;

  ValueRecord e;
  Slice inline_stored;
  if (parsed.type == kTypeDeletion) {
    e.storage = ValueStorage::kNone;
    e.stored_crc = crc32c::Mask(crc32c::Value("", 0));
  } else {
    const bool goes_inline = options_.inline_threshold > 0 &&
                             value.size() <= options_.inline_threshold;
    // A KV file takes whole blocks: a value that fits in one block cannot
    // be made to take fewer, so compressing it would only cost time now and
    // a decompression on every read. A small inline value would save a few
    // bytes for the same decompression.
    const bool stored_as_is = goes_inline
                                  ? value.size() < options_.compress_inline_from
                                  : FileBlocks(value.size()) <= 1;
    const CompressionType compression =
        stored_as_is ? kNoCompression : options_.compression;
    bool compressed;
    Slice stored = EncodeKvValue(value, compression, &scratch_, &compressed);
    e.value_size = value.size();
    e.stored_size = stored.size();
    e.stored_crc = crc32c::Mask(crc32c::Value(stored.data(), stored.size()));
    if (goes_inline) {
      e.storage =
          compressed ? ValueStorage::kInlineSnappy : ValueStorage::kInline;
      inline_stored = stored;
    } else {
      if (compressed && FileBlocks(stored.size()) >= FileBlocks(value.size())) {
        // A KV file takes whole blocks: compression that saves none of them
        // saves no space, and would cost every read a decompression.
        compressed = false;
        stored = value;
        e.stored_size = stored.size();
        e.stored_crc =
            crc32c::Mask(crc32c::Value(stored.data(), stored.size()));
      }
      std::string name =
          KvStoredFileName(parsed.user_key, parsed.sequence, compressed);
      if (home_ != 0) {
        e.storage = compressed ? ValueStorage::kHomeFileSnappy
                               : ValueStorage::kHomeFile;
        e.home = home_;
        s = OpenHome();
        if (!s.ok()) return s;
        // Named before the write: a failed one may leave part of the file.
        home_names_.push_back(name);
        s = home_dir_->WriteFile(name, stored, options_.sync_files);
        if (!s.ok()) return s;
      } else {
        e.storage =
            compressed ? ValueStorage::kFileSnappy : ValueStorage::kFile;
        added_names_.push_back(name);  // before the write, as above
        s = dir_->WriteFile(name, stored, options_.sync_files);
        if (!s.ok()) return s;
      }
      files_created_++;
      bytes_written_ += stored.size();
      RecordEntry(internal_key, e, parsed, name, Slice());
      return Status::OK();
    }
  }
  RecordEntry(internal_key, e, parsed, std::string(), inline_stored);
  return Status::OK();
}

Status SstDirBuilder::OpenHome() {
  if (home_dir_ != nullptr) return Status::OK();
  if (options_.homes == nullptr) {
    return Status::InvalidArgument(path_, "a home, and no homes given");
  }
  const std::string path = options_.homes->PathOf(home_);
  Status s = options_.fs->CreateDir(path, /*ok_if_exists=*/false);
  if (!s.ok()) return s;
  s = options_.fs->OpenDirectory(path, &home_dir_);
  if (!s.ok()) {
    home_dir_.reset();
    // We made it, and it is empty.
    if (!options_.fs->RemoveDir(path).ok()) undo_failed_ = true;
    return s;
  }
  home_path_ = path;
  return s;
}

void SstDirBuilder::RecordEntry(const Slice& internal_key,
                                const ValueRecord& entry,
                                const ParsedInternalKey& parsed,
                                const std::string& kv_name,
                                const Slice& inline_stored) {
  if (StoredInFile(entry.storage)) {
    dir_entries_++;
    if (KvFileNameIsHashed(parsed.user_key)) {
      PutLengthPrefixedSlice(
          &long_keys_,
          kv_name.empty()
              ? KvStoredFileName(parsed.user_key, parsed.sequence,
                                 entry.storage == ValueStorage::kFileSnappy)
              : kv_name);
      PutLengthPrefixedSlice(&long_keys_, parsed.user_key);
    }
  }
  value_bytes_ += entry.value_size;
  disk_bytes_ += KvFileAllocatedBytes(entry);
  const size_t last_start =
      user_key_ends_.size() < 2 ? 0 : user_key_ends_[user_key_ends_.size() - 2];
  if (user_key_ends_.empty() ||
      Slice(user_keys_.data() + last_start,
            user_key_ends_.back() - last_start) != parsed.user_key) {
    user_keys_.append(parsed.user_key.data(), parsed.user_key.size());
    user_key_ends_.push_back(user_keys_.size());
  }
  if (NumEntries() == 0) {
    smallest_.assign(internal_key.data(), internal_key.size());
    smallest_sequence_ = largest_sequence_ = parsed.sequence;
  }
  smallest_sequence_ = std::min(smallest_sequence_, parsed.sequence);
  largest_sequence_ = std::max(largest_sequence_, parsed.sequence);
  encoder_.Add(internal_key, entry, inline_stored);
}

Status SstDirBuilder::Link(const std::string& name, Directory* source) {
  Status s = dir_->LinkFrom(source, name);
  if (s.ok()) {
    added_names_.push_back(name);
    links_made_++;
    return s;
  }
  // An earlier, uncommitted attempt may have made this very link already.
  KvFileInfo here, there;
  if (dir_->Stat(name, &here).ok() && source->Stat(name, &there).ok() &&
      here.inode == there.inode) {
    return Status::OK();
  }
  return s;
}

Status SstDirBuilder::AddLinked(const Slice& internal_key,
                                const ValueRecord& entry, Directory* source,
                                const Slice& inline_stored) {
  if (dir_ == nullptr || finished_) {
    return Status::InvalidArgument(path_, "builder not open for AddLinked");
  }
  ParsedInternalKey parsed;
  Status s = CheckOrder(options_, NumEntries() == 0, largest(), path_,
                        internal_key, &parsed);
  if (!s.ok()) return s;
  // A resident entry (no source) keeps its name: none is made for it.
  std::string name;
  if (StoredInFile(entry.storage) && source != nullptr) {
    name = KvStoredFileName(parsed.user_key, parsed.sequence,
                            entry.storage == ValueStorage::kFileSnappy);
    s = Link(name, source);
    if (!s.ok()) return s;
  }
  Slice stored;
  if (StoredInline(entry.storage)) {
    stored = inline_stored;
    if (stored.size() != entry.stored_size) {
      return Status::InvalidArgument(path_, "inline value of the wrong size");
    }
  }
  RecordEntry(internal_key, entry, parsed, name, stored);
  return Status::OK();
}

Status SstDirBuilder::Finish() {
  if (dir_ == nullptr || finished_) {
    return Status::InvalidArgument(path_, "builder not open for Finish");
  }
  largest_ = encoder_.last_key().ToString();
  std::string filter;
  if (options_.filter_policy != nullptr) {
    // The policy's name goes first: a reader with another policy must not
    // trust this filter (a false negative would hide a key).
    PutLengthPrefixedSlice(&filter, options_.filter_policy->Name());
    std::string bits;
    std::vector<Slice> keys;
    keys.reserve(user_key_ends_.size());
    size_t start = 0;
    for (size_t end : user_key_ends_) {
      keys.emplace_back(user_keys_.data() + start, end - start);
      start = end;
    }
    options_.filter_policy->CreateFilter(keys.data(),
                                         static_cast<int>(keys.size()), &bits);
    filter.append(bits);
  }
  // Every KV file was synced as written (sync_files), or no entry names
  // one (written, linked, or already in the directory).
  const bool sync =
      options_.sync_files ||
      (options_.sync_sst_without_kv_files && encoder_.kv_entries() == 0);
  if (!long_keys_.empty()) {
    std::string data = long_keys_;
    PutFixed32(&data, crc32c::Mask(crc32c::Value(data.data(), data.size())));
    added_names_.push_back(long_keys_name_);  // before the write, as in Add
    Status s = dir_->WriteFile(long_keys_name_, data, sync);
    if (!s.ok()) return s;
    dir_entries_++;
    bytes_written_ += data.size();
    disk_bytes_ += AllocatedBytes(data.size());
    meta_bytes_ += data.size();
  }
  std::string meta;
  encoder_.Finish(ComparatorName(options_.comparator), filter, smallest_,
                  largest_, &meta);
  added_names_.push_back(meta_name_);  // before the write, as in Add
  Status s = dir_->WriteFile(meta_name_, meta, sync);
  if (!s.ok()) return s;
  dir_entries_++;
  bytes_written_ += meta.size();
  disk_bytes_ += AllocatedBytes(meta.size());
  meta_bytes_ += meta.size();
  finished_ = true;
  files_synced_ = sync;
  return Status::OK();
}

bool SstDirBuilder::Abandon() {
  // Everything named in added_names_ and home_names_ was (or may have
  // been) made here; a name already gone counts as removed, where a lookup
  // agrees (UnlinkUnlessGone): in a directory that lives on, a meta file
  // left while the undo counts as clean is never swept. A removal that
  // fails leaves an orphan for the open sweep, and the result says so. The
  // home goes first: while the SST directory is there, its number stays
  // marked as used at the next open.
  bool clean = !undo_failed_;
  auto removed = [](Directory* dir, const std::string& name) {
    bool unlinked;
    return UnlinkUnlessGone(dir, name, &unlinked).ok();
  };
  if (home_dir_ != nullptr) {
    for (const std::string& name : home_names_) {
      if (!removed(home_dir_.get(), name)) clean = false;
    }
    home_names_.clear();
    home_dir_.reset();
    if (!options_.fs->RemoveDir(home_path_).ok()) clean = false;
    home_path_.clear();
  }
  if (dir_ == nullptr) return clean;
  for (const std::string& name : added_names_) {
    if (!removed(dir_.get(), name)) clean = false;
  }
  added_names_.clear();
  dir_.reset();
  if (created_dir_ && !options_.fs->RemoveDir(path_).ok()) clean = false;
  finished_ = true;
  return clean;
}

}  // namespace leveldb
