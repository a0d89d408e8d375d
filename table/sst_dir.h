// A read-only open SST directory: its decoded meta file plus the held
// directory descriptor through which KV files are read. Thread-safe.
#ifndef DELSM_TABLE_SST_DIR_H_
#define DELSM_TABLE_SST_DIR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "table/meta_file.h"
#include "table/sst_dir_options.h"

namespace leveldb {

class Directory;

class SstDir {
 public:
  // Open the SST directory at `path` and load its meta file `meta_name`
  // (one directory may hold several SSTs; see MetaFileName in
  // meta_file.h). Corruption naming the meta file if it is damaged;
  // NotFound if the directory or the meta file does not exist.
  static Status Open(const SstDirOptions& options, const std::string& path,
                     const std::string& meta_name,
                     std::unique_ptr<SstDir>* result) {
    return Open(options, path, {}, meta_name, result);
  }
  // The same for a directory that may be renamed to one of `moved_to`
  // while open (FileSystem::OpenMovableDirectory).
  static Status Open(const SstDirOptions& options, const std::string& path,
                     const std::vector<std::string>& moved_to,
                     const std::string& meta_name,
                     std::unique_ptr<SstDir>* result);
  static Status Open(const SstDirOptions& options, const std::string& path,
                     std::unique_ptr<SstDir>* result) {
    return Open(options, path, kMetaFileName, result);
  }

  ~SstDir();
  SstDir(const SstDir&) = delete;
  SstDir& operator=(const SstDir&) = delete;

  // Finds the first entry whose internal key is >= `internal_key` and, if
  // its user key equals the target's, calls handle(arg, entry_key, value)
  // with the value read from its KV file (or inline; empty for tombstones).
  // The Bloom filter is consulted first. With verify_checksums the value's
  // crc32c is checked (Corruption naming the KV file on mismatch).
  Status InternalGet(const ReadOptions& options, const Slice& internal_key,
                     void* arg,
                     void (*handle)(void*, const Slice& key,
                                    const Slice& value));

  // Iterator over the entries in internal-key order; key() is an internal
  // key, value() is read from the KV file when first asked for. A failed
  // read makes the iterator invalid with a non-OK status().
  Iterator* NewIterator(const ReadOptions& options) const;

  // Read the value of entries()[index].
  Status ReadValue(const ReadOptions& options, size_t index,
                   std::string* value) const;

  const MetaFileContents& contents() const { return contents_; }
  Directory* directory() const { return dir_.get(); }
  const std::string& meta_name() const { return meta_name_; }
  // Approximate user value bytes of entries whose key is < internal_key.
  uint64_t ApproximateBytesBefore(const Slice& internal_key) const;

 private:
  SstDir(const SstDirOptions& options, std::unique_ptr<Directory> dir,
         std::string meta_name);

  // Index of the first entry whose internal key is >= internal_key.
  size_t LowerBound(const Slice& internal_key) const;

  // All fields are set by Open() and never change afterwards.
  const SstDirOptions options_;
  std::unique_ptr<Directory> dir_;
  const std::string meta_name_;
  MetaFileContents contents_;
  const Comparator* user_comparator_ = nullptr;  // compares user keys
  // The filter bytes within contents_.filter; empty when there is none or
  // it was made by another policy than options_.filter_policy.
  Slice filter_;
  // bytes_before_[i]: sum of the value sizes of entries [0, i).
  std::vector<uint64_t> bytes_before_;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_H_
