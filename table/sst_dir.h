// A read-only open SST: its decoded meta-file index plus the held directory
// descriptor through which KV files are read (none for an SST without a KV
// file: see directory()), and the meta file itself:
// mapped where the FileSystem can map it (the index is then decoded in
// place, and inline values are read in memory), else read into a copy of
// its index, with a descriptor kept to read inline values by offset.
//
// A format-4 meta file (grouped entries, meta_file.h) is opened by its
// footer and trailer alone: lookups decode the one group they need, an
// iterator over an SST without a KV file decodes one group at a time as it
// moves, and the whole index is decoded, every group's crc checked, only
// when something needs every entry (LoadIndex). Thread-safe.
#ifndef DELSM_TABLE_SST_DIR_H_
#define DELSM_TABLE_SST_DIR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "table/key_windows.h"
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
  // Open, then LoadIndex: for a reader that needs every entry (repair,
  // dumps), to which the SST is damaged if any group of it is.
  static Status OpenWhole(const SstDirOptions& options, const std::string& path,
                          const std::string& meta_name,
                          std::unique_ptr<SstDir>* result) {
    Status s = Open(options, path, meta_name, result);
    if (s.ok()) s = (*result)->LoadIndex();
    if (!s.ok()) result->reset();
    return s;
  }

  ~SstDir();
  SstDir(const SstDir&) = delete;
  SstDir& operator=(const SstDir&) = delete;

  // Finds the first entry whose internal key is >= `internal_key` and, if
  // its user key equals the target's, calls handle(arg, entry_key, value)
  // with its value (empty for tombstones); entry_key is valid during the
  // call. The Bloom filter is consulted first. Before the whole index is
  // loaded, a format-4 SST searches its groups' first keys and decodes the
  // group (rarely two) that holds the answer, checking its crc: a damaged
  // group is Corruption, never a miss (which would let an older version of
  // the key in another SST answer). A value in a KV file costs one open,
  // one read and one close; an inline value one read. Every value's crc32c
  // is checked, a KV file's as well as an inline value's, verify_checksums
  // or not (Corruption naming the file on mismatch): a KV file a power loss
  // left zero-filled or torn is never returned as a value.
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
  // A format-4 SST without a KV file whose whole index is not loaded is
  // iterated through its groups, one decoded at a time where the iterator
  // moves (sst_dir_group_iterator.cc): no LoadIndex, and a damaged group is
  // the iterator's Corruption where it reaches it. Such iterators seek by
  // decoding a group up to their target (some entries' worth of decoding a
  // whole index) where a loaded index is searched: once they have made
  // IndexAfterGroupSeeks() seeks in this SST, it is one that serves seeks,
  // and later iterators load the whole index. Any other SST is iterated
  // through its whole index (LoadIndex first: an error iterator with its
  // status if that fails), which the KV files' read-ahead needs.
  Iterator* NewIterator(const ReadOptions& options) const;
  // How the iterators read the value at their position
  // (table/sst_dir_value_reader.h).
  class ValueReader;
  // Seeks through the groups after which NewIterator loads the whole index
  // (see there): one per kGroupsPerSeekBeforeIndex groups of the SST, and
  // at least kMinIndexAfterGroupSeeks. Loading an index decodes every
  // entry once (some 170 instructions each); a seek through the groups
  // decodes one group up to its target, some hundreds of instructions more
  // than a search of a loaded index. A short run of scans may be all a
  // large SST is ever sought for: in db_bench's fsmeta scan stage at 1M
  // keys (10,000 Seeks and 20 Nexts each, right after the load), loading
  // every SST's index after 16 seeks was 20% of the scans' instructions
  // (839M; 515M with the index after groups / 4 seeks). Against that, a
  // long run of seeks pays the group seeks before the load: 128-byte
  // seekrandom on a compacted 100k-key DB, 5,606 instructions per seek
  // after 16 seeks, 5,911 after groups / 4, 6,887 after one per group.
  static constexpr uint32_t kMinIndexAfterGroupSeeks = 16;
  static constexpr uint32_t kGroupsPerSeekBeforeIndex = 4;
  uint32_t IndexAfterGroupSeeks() const { return index_after_group_seeks_; }

  // The value of index().entries[index], through the value cache: looked up,
  // and inserted after a read when options.fill_cache; an inline value read in
  // memory (InlineInMemory) bypasses the cache.
  Status ReadValue(const ReadOptions& options, size_t index,
                   std::string* value) const;
  // The same, reading the value without the cache. `from_cache`, if
  // given, is set to whether a KV file's bytes came from memory without
  // waiting for the device (false when unknown, and for values that are
  // not in a KV file).
  Status ReadValueUncached(const ReadOptions& options, size_t index,
                           std::string* value,
                           bool* from_cache = nullptr) const;
  // Sets *value from the cache; false if not cached.
  bool LookupCachedValue(size_t index, std::string* value) const;
  void CacheValue(size_t index, const Slice& value) const;

  // The stored bytes of inline index().entries[index], checked against its
  // crc. From a meta file in memory (InlineInMemory) *stored points into
  // it (valid while this SstDir lives) and `buffer` is unused. Otherwise
  // `buffer` holds a piece of the meta file (its offset in *buffer_offset)
  // that is reused when it covers the value, else refilled with the value
  // and up to `ahead` bytes beyond it in `direction` (+1 forward, -1
  // backward), and *stored points into `buffer`.
  Status ReadInlineStored(size_t index, int direction, size_t ahead,
                          std::string* buffer, uint64_t* buffer_offset,
                          Slice* stored) const;
  // The value of inline index().entries[index] from `stored`, its stored
  // bytes as ReadInlineStored gives them: decompressed, or copied, into
  // *value (see DecodeKvValue).
  Status DecodeInlineValue(size_t index, const Slice& stored,
                           std::string* value) const;

  // Decodes the whole index, if not yet done (a format-4 meta file: every
  // group, each checked against its crc; formats 1 to 3 are decoded whole
  // by Open): once, whoever calls first, any number of threads at once.
  // Corruption naming the meta file if a group is damaged, and the same
  // status on every later call. Whatever needs every entry (iterators,
  // compaction, the sweeps, repair) calls it before index().
  Status LoadIndex() const;
  // The decoded index, once LoadIndex() has returned OK (calling it before
  // is a programming error that aborts, rather than showing no entries).
  // Its keys, filter and key range point into memory this SstDir holds
  // (the meta file's mapping, or its copy of the index): valid while it
  // lives, like every Slice taken from them (key() of its iterators).
  const MetaIndex& index() const {
    if (!index_loaded_.load(std::memory_order_acquire)) IndexNotLoaded();
    return index_;
  }
  // Index of the first entry whose internal key is >= internal_key
  // (index().entries.size() if none is). After LoadIndex.
  size_t LowerBound(const Slice& internal_key) const;
  // The Bloom filter InternalGet asks (made by options().filter_policy);
  // empty when the SST has none, or one by another policy.
  const Slice& filter() const { return filter_; }
  // The directory, held open since Open so that it is read (and linked
  // from) through its descriptor even after a trivial move renames it; its
  // KV files are read through it. Null when no entry has a KV file (in the
  // directory or in a home: the trailer's count, format 4, or the index,
  // formats 1 to 3) and the meta file is mapped or has no value section to
  // read (an unmapped meta file is read through its directory, which it
  // must not outlive): the SST then holds no descriptor. Nothing that reads
  // such an SST needs its directory: InternalGet, ReadValue and iterators
  // (and the value prefetcher under them) open a KV file only for an entry
  // with one, a compaction links a KV file only for such an entry
  // (SstDirBuilder::AddLinked reads `source` for no other), and decoding
  // refuses an entry with a KV file in a meta file that counts none.
  // Whoever must name or change the directory's entries (removal, repair)
  // opens it by its path under its own rules.
  Directory* directory() const { return dir_.get(); }
  // The path the directory was opened by (it may since have been renamed
  // by a trivial move), for messages.
  const std::string& path() const { return path_; }
  const std::string& meta_name() const { return meta_name_; }
  const SstDirOptions& options() const { return options_; }
  // Approximate bytes on disk of the entries whose key is < internal_key:
  // their KV files' AllocatedBytes plus their share of the meta file's,
  // which is spread over the entries evenly. Linear in the entries before
  // the key (GetApproximateSizes is rare; an array kept for it would cost
  // every open of an SST a pass over its entries and 8 bytes per entry).
  // Loads the index (0 if that fails: the figure is an estimate).
  uint64_t ApproximateBytesBefore(const Slice& internal_key) const;
  // File descriptors held open: the directory unless directory() is null,
  // and an unmapped meta file with inline values. A mapped meta file holds
  // none, so an SST without a KV file whose meta file is mapped holds none.
  // True if some entry has a KV file (in the directory or in a home): the
  // trailer's count (format 4), or the index (formats 1 to 3). False means
  // the meta file is the whole SST: a second name of it in another
  // directory is a second copy of the SST (DBImpl::LinkMove).
  bool HasKvFiles() const { return kv_files_; }
  int OpenDescriptors() const {
    return (dir_ != nullptr ? 1 : 0) +
           (meta_file_ != nullptr && meta_in_memory_ == nullptr ? 1 : 0);
  }
  // True if an entry of kind `storage` is an inline value read from memory
  // (a mapped meta file, or a format-1 file held whole): no system call,
  // cheaper than a value-cache lookup.
  bool InlineInMemory(ValueStorage storage) const {
    return StoredInline(storage) && meta_in_memory_ != nullptr;
  }
  // Bytes of memory this object keeps resident: the decoded entries, and
  // the index's bytes they point into (keys, filter; mapped or copied). For
  // a format-4 meta file, the trailer and its decoded group descriptions
  // (and, unmapped, the groups' bytes) until the whole index is loaded,
  // which then adds its entries (and, mapped, the groups' bytes): the figure
  // grows once, when LoadIndex first succeeds.
  size_t ApproximateMemoryUsage() const {
    return memory_usage_.load(std::memory_order_relaxed);
  }

 private:
  SstDir(const SstDirOptions& options, std::unique_ptr<Directory> dir,
         std::string path, std::string meta_name);

  [[noreturn]] static void IndexNotLoaded();

  // The iterator through the groups (see NewIterator), in
  // sst_dir_group_iterator.cc.
  class GroupIterator;
  Iterator* NewGroupIterator(const ReadOptions& options) const;

  // Format 4, before LoadIndex: InternalGet through the groups.
  Status GroupGet(const ReadOptions& options, const Slice& internal_key,
                  void* arg,
                  void (*handle)(void*, const Slice& key,
                                 const Slice& value)) const;
  // Group g's bytes, in the mapping or groups_copy_.
  Slice GroupBytes(size_t g) const;
  // The first group whose first key is >= internal_key (the number of
  // groups if none is): an entry at or after internal_key is that group's
  // first, or in the group before it.
  size_t GroupLowerBound(const Slice& internal_key) const;
  // Group g decoded whole into out[0 .. trailer_.EntriesIn(g)), pointing
  // into GroupBytes(g), and checked (its crc and every entry; Corruption
  // naming it if damaged, every time); marked in group_checked_ if whole.
  // For a reader that finds the group not checked yet (two such readers may
  // both check it).
  Status CheckGroup(size_t g, MetaIndexEntry* out) const;
  // The place of `internal_key` in group g from entry `from` on: *pos is
  // the first entry there at or after it (the group's entry count if
  // none), out[0 .. *pos] decoded, pointing into GroupBytes(g). The first
  // read of a group decodes and checks it whole (Corruption naming it if
  // damaged, every time); later ones decode only up to *pos.
  // With `cursor`, leaves it after the entries decoded (every one, on the
  // group's first read), for ContinueGroup.
  Status SeekInGroup(size_t g, const Slice& internal_key, size_t from,
                     MetaIndexEntry* out, size_t* pos,
                     MetaGroupCursor* cursor = nullptr) const;
  // Group g for a reader that decodes it a few entries at a time: at least
  // its first `until` entries decoded into out[] (every one on the group's
  // first read, which checks it whole, CheckGroup), *cursor after
  // the last one decoded.
  Status StartGroup(size_t g, size_t until, MetaIndexEntry* out,
                    MetaGroupCursor* cursor) const;
  // The same group's entries up to `until` decoded into the same out[],
  // from where StartGroup or SeekInGroup left *cursor. The group was
  // checked whole then; a failure is its Corruption.
  Status ContinueGroup(size_t g, size_t until, MetaIndexEntry* out,
                       MetaGroupCursor* cursor) const;
  // The first of entries[from .. count) at or after `internal_key` (count
  // if none is), by bisection: a decoded group's entries are in order.
  size_t LowerBoundInGroup(const MetaIndexEntry* entries, size_t from,
                           size_t count, const Slice& internal_key) const;
  // The meta file's path, for errors.
  std::string MetaPath() const { return path_ + "/" + meta_name_; }

  // What the index-numbered readers above do, for entry `e` numbered
  // `number` (in errors) whether or not it is in index_.
  Status ReadEntryValue(const ReadOptions& options, size_t number,
                        const MetaIndexEntry& e, std::string* value) const;
  Status ReadEntryValueUncached(const ReadOptions& options, size_t number,
                                const MetaIndexEntry& e, std::string* value,
                                bool* from_cache) const;
  Status ReadEntryInlineStored(size_t number, const MetaIndexEntry& e,
                               int direction, size_t ahead, std::string* buffer,
                               uint64_t* buffer_offset, Slice* stored) const;
  Status DecodeEntryInlineValue(size_t number, const MetaIndexEntry& e,
                                const Slice& stored, std::string* value) const;
  bool LookupCachedEntry(const Slice& internal_key, std::string* value) const;
  void CacheEntry(const Slice& internal_key, const Slice& value) const;

  std::string CacheKey(const Slice& internal_key) const;
  // windows_, once built; null before (or under another comparator).
  const KeyWindows* Windows() const;
  std::string InlineWhere(size_t index) const;

  // All fields are set by Open() and never change afterwards, but for
  // those LoadIndex sets (see there).
  const SstDirOptions options_;
  std::unique_ptr<Directory> dir_;  // null: see directory()
  const std::string path_;
  const std::string meta_name_;
  // The meta file: held for this object's life when mapped (index_ points
  // into the mapping); unmapped, held only when it has a value section to
  // read.
  std::unique_ptr<ReadOnlyFile> meta_file_;
  // The whole meta file in memory, or nullptr: meta_file_'s mapping, or
  // index_copy_ when that holds the whole file (format 1).
  const char* meta_in_memory_ = nullptr;
  // An unmapped meta file's bytes that index_ points into: its index, or a
  // format-1 file whole. Empty when the file is mapped.
  std::string index_copy_;
  // Format 4: the trailer, decoded in place in the mapping or in
  // index_copy_ (which then holds the trailer).
  MetaTrailer trailer_;
  // An unmapped format-4 file's groups, read whole by Open and decoded
  // (each checked) only when used.
  std::string groups_copy_;
  // Decoded in place in the mapping or in index_copy_ (format 4: in the
  // mapping or groups_copy_), which live as long as this object and are
  // never modified. Formats 1 to 3: set by Open. Format 4: set by the
  // first LoadIndex that succeeds, under index_once_, and read only after
  // index_loaded_ is seen true (release/acquire); index_status_ is what
  // LoadIndex returns once it has run.
  mutable MetaIndex index_;
  mutable std::once_flag index_once_;
  mutable std::atomic<bool> index_loaded_{false};
  mutable Status index_status_;
  const Comparator* user_comparator_ = nullptr;  // compares user keys
  // The entries' user-key windows, under the bytewise comparator only:
  // LowerBound searches them before whole keys once they are built. They
  // are built by the kWindowsAfterLookups-th LowerBound, under
  // windows_once_, and never change afterwards; LowerBound reads them only
  // after seeing windows_built_ (release/acquire). An SST opened for a read
  // or two (a DB with more SSTs than the table cache holds) so never pays
  // a pass over its entries for them.
  mutable KeyWindows windows_;
  mutable std::once_flag windows_once_;
  mutable std::atomic<bool> windows_built_{false};
  // LowerBound calls before the windows were built (relaxed: a count that
  // only decides when to build).
  mutable std::atomic<uint32_t> lookups_{0};
  // The filter bytes within index_.filter; empty when there is none or it
  // was made by another policy than options_.filter_policy.
  Slice filter_;
  // AllocatedBytes of the meta file.
  uint64_t meta_allocated_ = 0;
  bool kv_files_ = false;  // HasKvFiles()
  // Formats 2 to 4: the end of the value section (the index's or the
  // groups' offset), for reads of an unmapped meta file.
  uint64_t values_end_ = 0;
  // Format 4: where the trailer starts (the groups end).
  uint64_t trailer_offset_ = 0;
  // Format 4: one flag per group, set (release) by the first SeekInGroup
  // that checked it whole and never cleared; read with acquire. A group
  // that fails its check is never set, so it fails every read.
  std::unique_ptr<std::atomic<bool>[]> group_checked_;
  mutable std::atomic<size_t> memory_usage_{0};
  // Seeks made through group iterators, counted up to
  // index_after_group_seeks_ (relaxed: a count that only decides when the
  // whole index is worth loading), which Open sets (format 4).
  mutable std::atomic<uint32_t> group_seeks_{0};
  uint32_t index_after_group_seeks_ = kMinIndexAfterGroupSeeks;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_H_
