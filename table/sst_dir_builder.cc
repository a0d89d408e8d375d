// SstDirBuilder. The LONGKEYS file, written only when some key needed a
// hashed KV file name, lets repair map hashed names back to keys without
// the meta file. Its layout: records of length-prefixed name and
// length-prefixed user key, then fixed32 masked crc32c of the records.
#include "table/sst_dir_builder.h"

#include <cassert>

#include "db/dbformat.h"
#include "fs/file_system.h"
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
    options_.fs->RemoveDir(path_);  // we made it, and it is empty
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

// Checks the entry may follow what was added so far and records its key.
static Status CheckOrder(const SstDirOptions& options,
                         const MetaFileContents& contents,
                         const std::string& path, const Slice& internal_key,
                         ParsedInternalKey* parsed) {
  if (!ParseInternalKey(internal_key, parsed)) {
    return Status::InvalidArgument(path, "malformed internal key");
  }
  if (!contents.entries.empty() &&
      options.comparator->Compare(contents.largest, internal_key) >= 0) {
    return Status::InvalidArgument(path, "entries added out of order");
  }
  return Status::OK();
}

Status SstDirBuilder::Add(const Slice& internal_key, const Slice& value) {
  if (dir_ == nullptr || finished_) {
    return Status::InvalidArgument(path_, "builder not open for Add");
  }
  ParsedInternalKey parsed;
  Status s = CheckOrder(options_, contents_, path_, internal_key, &parsed);
  if (!s.ok()) return s;

  MetaEntry e;
  e.internal_key = internal_key.ToString();
  if (parsed.type == kTypeDeletion) {
    e.storage = ValueStorage::kNone;
    e.stored_crc = crc32c::Mask(crc32c::Value("", 0));
  } else {
    const bool goes_inline = options_.inline_threshold > 0 &&
                             value.size() <= options_.inline_threshold;
    // A KV file takes whole blocks: a value that fits in one block cannot
    // be made to take fewer, so compressing it would only cost time now and
    // a decompression on every read.
    const CompressionType compression =
        !goes_inline && FileBlocks(value.size()) <= 1 ? kNoCompression
                                                      : options_.compression;
    std::string scratch;
    bool compressed;
    Slice stored = EncodeKvValue(value, compression, &scratch, &compressed);
    e.value_size = value.size();
    e.stored_size = stored.size();
    e.stored_crc = crc32c::Mask(crc32c::Value(stored.data(), stored.size()));
    if (goes_inline) {
      e.storage =
          compressed ? ValueStorage::kInlineSnappy : ValueStorage::kInline;
      e.inline_value = stored.ToString();
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
        if (s.ok()) s = home_dir_->WriteFile(name, stored, options_.sync_files);
        if (!s.ok()) return s;
        home_names_.push_back(name);
      } else {
        e.storage =
            compressed ? ValueStorage::kFileSnappy : ValueStorage::kFile;
        s = dir_->WriteFile(name, stored, options_.sync_files);
        if (!s.ok()) return s;
        added_names_.push_back(name);
      }
      files_created_++;
      bytes_written_ += stored.size();
      RecordEntry(e, parsed, name);
      return Status::OK();
    }
  }
  RecordEntry(e, parsed, std::string());
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
    options_.fs->RemoveDir(path);  // we made it, and it is empty
    return s;
  }
  home_path_ = path;
  return s;
}

void SstDirBuilder::RecordEntry(const MetaEntry& entry,
                                const ParsedInternalKey& parsed,
                                const std::string& kv_name) {
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
  if (user_keys_.empty() || Slice(user_keys_.back()) != parsed.user_key) {
    user_keys_.push_back(parsed.user_key.ToString());
  }
  if (contents_.entries.empty()) contents_.smallest = entry.internal_key;
  contents_.largest = entry.internal_key;
  contents_.entries.push_back(entry);
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

Status SstDirBuilder::AddLinked(const MetaEntry& entry, Directory* source,
                                const Slice* inline_stored) {
  if (dir_ == nullptr || finished_) {
    return Status::InvalidArgument(path_, "builder not open for AddLinked");
  }
  ParsedInternalKey parsed;
  Status s =
      CheckOrder(options_, contents_, path_, entry.internal_key, &parsed);
  if (!s.ok()) return s;
  // A resident entry (no source) keeps its name: none is made for it.
  std::string name;
  if (StoredInFile(entry.storage) && source != nullptr) {
    name = KvStoredFileName(parsed.user_key, parsed.sequence,
                            entry.storage == ValueStorage::kFileSnappy);
    s = Link(name, source);
    if (!s.ok()) return s;
  }
  if (inline_stored != nullptr && StoredInline(entry.storage)) {
    if (inline_stored->size() != entry.stored_size) {
      return Status::InvalidArgument(path_, "inline value of the wrong size");
    }
    MetaEntry copy = entry;
    copy.inline_value = inline_stored->ToString();
    RecordEntry(copy, parsed, name);
    return Status::OK();
  }
  if (StoredInline(entry.storage) &&
      entry.inline_value.size() != entry.stored_size) {
    return Status::InvalidArgument(path_, "inline entry without its value");
  }
  RecordEntry(entry, parsed, name);
  return Status::OK();
}

Status SstDirBuilder::Finish() {
  if (dir_ == nullptr || finished_) {
    return Status::InvalidArgument(path_, "builder not open for Finish");
  }
  contents_.comparator_name = ComparatorName(options_.comparator);
  contents_.filter.clear();
  if (options_.filter_policy != nullptr) {
    // The policy's name goes first: a reader with another policy must not
    // trust this filter (a false negative would hide a key).
    PutLengthPrefixedSlice(&contents_.filter, options_.filter_policy->Name());
    std::string filter;
    std::vector<Slice> keys(user_keys_.begin(), user_keys_.end());
    options_.filter_policy->CreateFilter(
        keys.data(), static_cast<int>(keys.size()), &filter);
    contents_.filter.append(filter);
  }
  if (!long_keys_.empty()) {
    std::string data = long_keys_;
    PutFixed32(&data, crc32c::Mask(crc32c::Value(data.data(), data.size())));
    Status s = dir_->WriteFile(long_keys_name_, data, options_.sync_files);
    if (!s.ok()) return s;
    added_names_.push_back(long_keys_name_);
    dir_entries_++;
    bytes_written_ += data.size();
    disk_bytes_ += AllocatedBytes(data.size());
  }
  std::string meta = EncodeMetaFile(contents_);
  Status s = dir_->WriteFile(meta_name_, meta, options_.sync_files);
  if (!s.ok()) return s;
  added_names_.push_back(meta_name_);
  dir_entries_++;
  bytes_written_ += meta.size();
  disk_bytes_ += AllocatedBytes(meta.size());
  finished_ = true;
  return Status::OK();
}

void SstDirBuilder::Abandon() {
  // Everything named in added_names_ and home_names_ was made here; errors
  // are ignored because there is nothing better to do than leave an orphan
  // for recovery to collect. The home goes first: while the SST directory
  // is there, its number stays marked as used at the next open.
  if (home_dir_ != nullptr) {
    for (const std::string& name : home_names_) home_dir_->Unlink(name);
    home_names_.clear();
    home_dir_.reset();
    options_.fs->RemoveDir(home_path_);
    home_path_.clear();
  }
  if (dir_ == nullptr) return;
  for (const std::string& name : added_names_) dir_->Unlink(name);
  added_names_.clear();
  dir_.reset();
  if (created_dir_) options_.fs->RemoveDir(path_);
  finished_ = true;
}

}  // namespace leveldb
