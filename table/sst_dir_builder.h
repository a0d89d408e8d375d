// Builds one SST: creates its directory (or adds to an existing one), fills
// it with KV files (written by a flush, or hard-linked from other SST
// directories by a compaction), then writes its meta file. Entries must be
// added in strictly increasing internal-key order. Not thread-safe.
//
// Finish() leaves the directory complete but not necessarily durable: the
// caller makes it durable as its durability mode says (Directory::Sync /
// SyncFileSystem) before logging it in the manifest. Abandon() (or the
// destructor of an unfinished builder) removes what the builder created.
#ifndef DELSM_TABLE_SST_DIR_BUILDER_H_
#define DELSM_TABLE_SST_DIR_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "leveldb/status.h"
#include "table/meta_file.h"
#include "table/sst_dir_options.h"

namespace leveldb {

class Directory;
struct ParsedInternalKey;

class SstDirBuilder {
 public:
  // Builds the SST whose meta file is `meta_name` (and, if a key needs a
  // hashed KV file name, whose LONGKEYS file is `long_keys_name`) in the
  // directory at `path`.
  SstDirBuilder(const SstDirOptions& options, std::string path,
                std::string meta_name = kMetaFileName,
                std::string long_keys_name = kLongKeysFileName);
  ~SstDirBuilder();
  SstDirBuilder(const SstDirBuilder&) = delete;
  SstDirBuilder& operator=(const SstDirBuilder&) = delete;

  // Create the directory (it must not exist yet).
  Status Begin();
  // Write the KV files of Add() into home directory `home` (created on the
  // first one, under options.homes) instead of this directory: the entries
  // get the home kinds (values_stay_put). Call before the first Add().
  void SetHome(uint64_t home) { home_ = home; }

  // Add a further SST to the existing directory at `path` (a compaction
  // appending to a directory of the output level). Abandon() then removes
  // only what this builder added, never the directory.
  Status BeginInExisting();

  // Add an entry with its value (flush). Writes a KV file unless the entry
  // is a deletion or the value goes inline.
  Status Add(const Slice& internal_key, const Slice& value);

  // Add an existing entry of another SST (compaction): `internal_key`,
  // whose value is as `entry` records. Hard-links its KV file from
  // `source`, or, with a null `source`, takes the KV file already in this
  // directory. An entry whose value is in a home is recorded as it is: its
  // KV file stays where it is. An inline value is copied into the new meta
  // file (as LevelDB rewrites small values) from `inline_stored`, its
  // stored bytes (which the caller read from the source's meta file, or
  // holds: MetaEntry::inline_value); ignored for the other kinds. No KV
  // file byte is read or written. A link whose name already exists here
  // for the same inode (left by an earlier attempt) is taken as made.
  Status AddLinked(const Slice& internal_key, const ValueRecord& entry,
                   Directory* source, const Slice& inline_stored = Slice());

  // Write the meta file (and LONGKEYS when a key needed a hashed name).
  Status Finish();

  // Remove every entry this builder added to the directory (and to its
  // home), and the directory itself if Begin() created it (and the home).
  // True if nothing it made is left (an entry already gone counts as
  // removed); false if a removal failed, which leaves what only the open
  // sweep removes.
  bool Abandon();

  // The open directory (valid after Begin()).
  Directory* directory() const { return dir_.get(); }
  // The home directory's path once a KV file was written into it, else
  // empty.
  const std::string& home_path() const { return home_path_; }
  const std::string& path() const { return path_; }
  uint64_t NumEntries() const { return encoder_.num_entries(); }
  // Sum of the entries' user value sizes.
  uint64_t ValueBytes() const { return value_bytes_; }
  // Bytes the SST's files allocate on disk (AllocatedBytes of its KV files,
  // meta file and LONGKEYS); complete after Finish().
  uint64_t DiskBytes() const { return disk_bytes_; }
  // Bytes of the meta file and LONGKEYS (not their allocation); complete
  // after Finish().
  uint64_t MetaBytes() const { return meta_bytes_; }
  // The first and last entries' internal keys (empty while there are
  // none). largest() is valid until the next Add or AddLinked.
  const std::string& smallest() const { return smallest_; }
  Slice largest() const {
    return largest_.empty() ? encoder_.last_key() : Slice(largest_);
  }
  // The smallest and largest sequence numbers of the entries (0 while
  // there are none).
  uint64_t SmallestSequence() const { return smallest_sequence_; }
  uint64_t LargestSequence() const { return largest_sequence_; }
  // Directory entries this SST owns: its KV files, meta file and LONGKEYS.
  uint64_t DirEntries() const { return dir_entries_; }
  // Names this builder added to the directory (KV files, meta file,
  // LONGKEYS), for undoing an uncommitted SST after Finish().
  const std::vector<std::string>& added_names() const { return added_names_; }

  // True once Finish() has written every file of the SST synced (fsynced
  // as written): with sync_files, or with sync_sst_without_kv_files when
  // the SST has no KV file. Its directories are not synced here.
  bool FilesSynced() const { return files_synced_; }

  // Work done, for statistics.
  uint64_t files_created() const { return files_created_; }
  uint64_t links_made() const { return links_made_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  Status Link(const std::string& name, Directory* source);
  // Creates and opens the home directory (first KV file of a home flush).
  Status OpenHome();
  // Appends the entry `internal_key` whose value is as `entry` records,
  // with the inline bytes `inline_stored`. `kv_name` is its KV file name
  // when the caller made it, else empty (it is made here only if the
  // LONGKEYS file needs it).
  void RecordEntry(const Slice& internal_key, const ValueRecord& entry,
                   const ParsedInternalKey& parsed, const std::string& kv_name,
                   const Slice& inline_stored);

  const SstDirOptions options_;
  const std::string path_;
  const std::string meta_name_;
  const std::string long_keys_name_;
  std::unique_ptr<Directory> dir_;
  bool created_dir_ = false;  // Begin() made the directory
  // The entries so far, encoded as they come: a flush adds thousands of
  // small entries, and a MetaEntry with its strings per entry cost more
  // than the rest of the flush's CPU (measured with db_bench fillseq at 256 B).
  MetaFileEncoder encoder_;
  std::string smallest_;
  // Set by Finish(); until then the last key is the encoder's (an entry
  // costs no copy of its key).
  std::string largest_;
  uint64_t smallest_sequence_ = 0;
  uint64_t largest_sequence_ = 0;
  // The distinct user keys, for the filter: their bytes back to back, and
  // where each ends.
  std::string user_keys_;
  std::vector<size_t> user_key_ends_;
  std::string scratch_;    // compressed value, reused
  std::string long_keys_;  // LONGKEYS contents
  // For Abandon(): every name this builder made, or may have made (a
  // WriteFile that failed may leave part of its file).
  std::vector<std::string> added_names_;
  // A directory Begin() or the first home KV file created could not be
  // removed after a failure: Abandon() reports it.
  bool undo_failed_ = false;
  uint64_t home_ = 0;                    // SetHome(); 0: none
  std::unique_ptr<Directory> home_dir_;  // created by the first KV file
  std::string home_path_;                // set with home_dir_
  std::vector<std::string> home_names_;  // KV files written (or tried)
  uint64_t value_bytes_ = 0;
  uint64_t disk_bytes_ = 0;
  uint64_t meta_bytes_ = 0;
  uint64_t dir_entries_ = 0;
  uint64_t files_created_ = 0;
  uint64_t links_made_ = 0;
  uint64_t bytes_written_ = 0;
  bool finished_ = false;
  bool files_synced_ = false;  // see FilesSynced(); set by Finish()
};

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_BUILDER_H_
