// A read-only open SST: its decoded meta-file index plus the held directory
// descriptor through which KV files are read, and, when the meta file
// holds inline values, the meta file itself (mapped where the FileSystem
// can map it, else a descriptor to read them by offset). Thread-safe.
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
class ReadOnlyFile;

class SstDir {
 public:
  // Open the SST directory at `path` and load its meta file `meta_name`
  // (one directory may hold several SSTs; see MetaFileName in
  // meta_file.h): the index and filter only, not the inline values.
  // Corruption naming the meta file if it is damaged; NotFound if the
  // directory or the meta file does not exist.
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
  // with its value (empty for tombstones). The Bloom filter is consulted
  // first. A value in a KV file costs one open, one read and one close; an
  // inline value one read. Every value's crc32c is checked, a KV file's as
  // well as an inline value's, verify_checksums or not (Corruption naming
  // the file on mismatch): a KV file a power loss left zero-filled or torn
  // is never returned as a value.
  Status InternalGet(const ReadOptions& options, const Slice& internal_key,
                     void* arg,
                     void (*handle)(void*, const Slice& key,
                                    const Slice& value));

  // Iterator over the entries in internal-key order; key() is an internal
  // key, value() is read when first asked for (an inline value of a mapped
  // meta file in memory, uncompressed ones without a copy). Once value()
  // has been asked at two successive positions in one direction (a scan),
  // the iterator reads the inline values of an unmapped meta file ahead in
  // large pieces and, with a read-ahead
  // pool, while its KV file reads wait for the device, the next KV files in
  // parallel, within SstDirOptions' bounds; it stops when destroyed. A failed
  // read makes the iterator invalid with a non-OK status().
  Iterator* NewIterator(const ReadOptions& options) const;

  // The value of entries()[index], through the value cache: looked up, and
  // inserted after a read when options.fill_cache; an inline value read in
  // memory (InlineInMemory) bypasses the cache.
  Status ReadValue(const ReadOptions& options, size_t index,
                   std::string* value) const;
  // The same, reading the value without the cache. `stored_inline`, if
  // given, holds the entry's stored bytes (a reader that has them already).
  // `from_cache`, if given, is set to whether a KV file's bytes came from
  // memory without waiting for the device (false when unknown, and for
  // values that are not in a KV file).
  Status ReadValueUncached(const ReadOptions& options, size_t index,
                           std::string* value,
                           const Slice* stored_inline = nullptr,
                           bool* from_cache = nullptr) const;
  // Sets *value from the cache; false if not cached.
  bool LookupCachedValue(size_t index, std::string* value) const;
  void CacheValue(size_t index, const Slice& value) const;

  // The stored bytes of inline entries()[index], checked against its crc.
  // From a mapped meta file *stored points into the mapping (valid while
  // this SstDir lives) and `buffer` is unused. Otherwise `buffer` holds a
  // piece of the meta file (its offset in *buffer_offset) that is reused
  // when it covers the value, else refilled with the value and up to
  // `ahead` bytes beyond it in `direction` (+1 forward, -1 backward).
  // *stored points into `buffer` (or into the entry for a format-1 file).
  Status ReadInlineStored(size_t index, int direction, size_t ahead,
                          std::string* buffer, uint64_t* buffer_offset,
                          Slice* stored) const;

  const MetaFileContents& contents() const { return contents_; }
  Directory* directory() const { return dir_.get(); }
  const std::string& meta_name() const { return meta_name_; }
  const SstDirOptions& options() const { return options_; }
  // Approximate bytes on disk of the entries whose key is < internal_key
  // (see bytes_before_).
  uint64_t ApproximateBytesBefore(const Slice& internal_key) const;
  // File descriptors held open (the directory, and the meta file if it has
  // inline values).
  // A mapped meta file holds none.
  int OpenDescriptors() const {
    return meta_file_ != nullptr && meta_mapped_ == nullptr ? 2 : 1;
  }
  // True if an entry of kind `storage` is an inline value read from memory
  // (a mapped meta file, or a format-1 file held whole): no system call,
  // cheaper than a value-cache lookup.
  bool InlineInMemory(ValueStorage storage) const {
    return StoredInline(storage) &&
           (meta_mapped_ != nullptr || meta_file_ == nullptr);
  }
  // Bytes of memory this object keeps resident (index, filter, keys).
  size_t ApproximateMemoryUsage() const;

 private:
  SstDir(const SstDirOptions& options, std::unique_ptr<Directory> dir,
         std::string meta_name);

  // Index of the first entry whose internal key is >= internal_key.
  size_t LowerBound(const Slice& internal_key) const;
  std::string CacheKey(size_t index) const;
  std::string InlineWhere(size_t index) const;

  // All fields are set by Open() and never change afterwards.
  const SstDirOptions options_;
  std::unique_ptr<Directory> dir_;
  const std::string meta_name_;
  // The meta file, held open only when it has a value section to read.
  std::unique_ptr<ReadOnlyFile> meta_file_;
  // meta_file_->mapped(): the meta file in memory, or nullptr.
  const char* meta_mapped_ = nullptr;
  MetaFileContents contents_;
  const Comparator* user_comparator_ = nullptr;  // compares user keys
  // The filter bytes within contents_.filter; empty when there is none or
  // it was made by another policy than options_.filter_policy.
  Slice filter_;
  // bytes_before_[i]: bytes on disk of entries [0, i): their KV files'
  // AllocatedBytes plus i/n of the meta file's.
  std::vector<uint64_t> bytes_before_;
  // Format 2: the end of the value section (the index's offset).
  uint64_t values_end_ = 0;
  size_t memory_usage_ = 0;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_H_
