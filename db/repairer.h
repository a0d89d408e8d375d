// The state of one RepairDB run on a DeLSM database and its steps, in the
// order Run takes them (db/repair.cc describes the whole repair):
//  - finding what survives (db/repair_scan.cc): the files, the SSTs the
//    manifests record as replaced, every SST directory's meta files (a
//    directory used as it is or rebuilt), values in homes no meta file
//    names;
//  - the merge (db/repair_merge.cc): every WAL replayed into a new L0
//    directory, then all inputs merged by one dentry compaction and
//    committed in a new manifest;
//  - setting aside, before the commit, what of the SST directories and
//    homes the merge was not given, every WAL and every old manifest
//    (linked into lost/), then, after the commit, putting the old files
//    away: unlinked when the merge was given them or they are set aside,
//    otherwise moved to lost/ (db/repair_put_away.cc).
// Internal to RepairDB; not thread-safe.
#ifndef DELSM_DB_REPAIRER_H_
#define DELSM_DB_REPAIRER_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/repair_homes.h"
#include "db/repair_salvage.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "table/home_dirs.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"

namespace leveldb {

class Directory;
class FileSystem;
class VersionEdit;

class Repairer {
 public:
  // `fs` is not owned and must outlive this.
  Repairer(const std::string& dbname, const Options& options, FileSystem* fs);
  Repairer(const Repairer&) = delete;
  Repairer& operator=(const Repairer&) = delete;

  // Locks the database and runs every step; what the merge is not given
  // is set aside before the new manifest is committed, the old files are
  // put away only after. Logs every step and a summary. An error after the
  // commit (putting away) is returned too: the repaired database is
  // committed and opens, what it could not use is in lost/, and a second
  // RepairDB puts away what is left.
  Status Run();

 private:
  struct OldDir {
    int level;
    uint64_t number;
    std::string path;
    // Whether its entries were given to the merge, and which names they
    // were (meta, LONGKEYS and KV files); SetAsideUnused links the others
    // into lost/.
    bool loaded = false;
    std::set<std::string> used;
    // The names SetAsideUnused linked into lost/ (or found there, the same
    // file, linked by an earlier RepairDB).
    std::set<std::string> set_aside;
    // Not a directory repair may open (a file, a symbolic link): nothing
    // in it is set aside; it is moved to lost/ whole after the commit.
    bool whole = false;
  };

  // A directory LoadDirectory decided to rebuild, with what it read; it
  // is rebuilt once every directory's meta files are loaded, so that a KV
  // file none of its own meta files names is checked against the entries
  // of all of them (named_files_).
  struct PendingRebuild {
    OldDir* old = nullptr;
    std::unique_ptr<Directory> src;
    std::vector<std::string> names;
    std::vector<std::unique_ptr<SstDir>> metas;
    // The intact groups of its meta files that did not read whole.
    std::vector<SalvagedMetaFile> salvaged;
    std::set<std::string> retired;  // files only replaced SSTs name
  };

  // The user keys a lost group of a meta file (MetaFileSalvage::LostGroup)
  // may have held, in the SST directory `dir` at `level`; `filter` is its
  // SST's (empty if unknown).
  struct LostKeys {
    int level;
    uint64_t dir;
    std::string smallest;
    std::string largest;
    std::string filter;
  };

  struct Input {
    uint64_t order;
    std::unique_ptr<SstDir> dir;
  };

  // As Open does (SanitizeOptions): LOG in the DB directory, the previous
  // one kept as LOG.old. Without it repair runs unlogged.
  void OpenInfoLog();

  // A lost/ that is a symbolic link fails repair before it changes
  // anything, naming it: what repair moves there would leave the database.
  Status CheckLostDir();

  // Numbers for repair's own directories and manifest. They start past
  // every number the database handed out that repair finds: those of the
  // files and directories FindFiles lists, of every SST, directory and
  // next file number a readable manifest records (FindRetiredSsts), and of
  // every META-<n> file in an SST directory (LoadDirectory). An output
  // numbered as an old SST would make the new manifest record that SST as
  // live, not replaced, and a later RepairDB would merge the old SST again.
  // They start past every number a manifest in lost/ names too, whichever
  // database wrote it (FindFiles, ManifestsNumberBound): the take-in brings
  // those manifests back for a later repair to read.
  uint64_t NewNumber() { return next_number_++; }

  void NoteNumberUsed(uint64_t number) {
    next_number_ = std::max(next_number_, number + 1);
  }

  // Whether no manifest ever committed an SST or SST directory numbered
  // `number`. Evidence: every commit is a record of the manifest CURRENT
  // names (or of the snapshot it starts with), and each record's next file
  // number is past every SST it adds; so, when that manifest reads whole
  // (no damage, every record decoded), a number at or past the bound of
  // every manifest read (committed_bound_, FindRetiredSsts) was handed out
  // after the last commit, by a flush, a compaction or a RepairDB killed
  // before committing it: a RepairDB's own directories are numbered past
  // every number it found, and its manifest records them as removed only
  // once it commits. False when there is no such evidence (no CURRENT, a
  // damaged manifest): then no number counts as uncommitted.
  bool NeverCommitted(uint64_t number) const {
    return number >= committed_bound_;
  }

  // Whether the SST directory numbered `dir` was never part of the
  // database though the database ran on past its number: no manifest read
  // records an SST added in it, and a manifest committed after the number
  // was handed out (!NeverCommitted). A compaction that wrote a directory
  // of its own (an output level with nothing to merge into) leaves one
  // when killed before its commit, or when it could not undo its outputs,
  // and an Open whose removal of it fails lets the database run on. The
  // evidence is UncommittedAddition's: the manifest CURRENT names, read
  // whole, holds every live SST, and the record of one replaced since is
  // kept while its dead directory may be on disk (db_impl_removal.cc); so
  // nothing in such a directory is live, and every SST in it holds only
  // what the SSTs it was merged from or their successors hold (a flush's
  // whose unsynced record a power loss took: what its WAL, kept, holds).
  // Merged, or its KV files taken back by their names when its META does
  // not read, it brings back the keys deleted since. A directory number
  // names one directory only (Open marks every listed one used), so a
  // record naming the number names this directory. False without the
  // evidence (no CURRENT, a damaged manifest), and for a number at or past
  // the bound: nothing committed since can have dropped what it holds.
  bool DirectoryNeverLive(uint64_t dir) const {
    if (committed_bound_ == UINT64_MAX || NeverCommitted(dir)) return false;
    auto it = ever_added_.lower_bound({dir, 0});
    return it == ever_added_.end() || it->first != dir;
  }

  // Whether META-<number> in the SST directory numbered `dir` is the meta
  // file of an SST that a compaction added to that directory and no
  // manifest committed: a compaction killed before its commit, or one
  // whose outputs were not undone, leaves it, and an Open whose sweep of
  // the directory failed lets the database run on past its number, so
  // NeverCommitted cannot tell. Evidence: a compaction's SST added to an
  // existing directory is live only once a manifest record adds it; the
  // manifest CURRENT names, read whole, holds every live SST (in its
  // snapshot or a later record); and one replaced since then is recorded
  // in the manifest that was current then, kept while its meta file may
  // be on disk (db_impl_removal.cc). So an SST no manifest read records as
  // added holds nothing that is not in the SSTs it was merged from or
  // their successors; merged, it brings back the keys deleted since.
  // The record must name this directory: the number of an SST never
  // committed is not marked used by an Open that could not list its
  // directory, so the database may since have given the same number to
  // an SST elsewhere (its own directory, or META-<number> in another).
  // False without that evidence (no CURRENT, a damaged manifest).
  bool UncommittedAddition(uint64_t dir, uint64_t number) const {
    return number != dir && committed_bound_ != UINT64_MAX &&
           ever_added_.count({dir, number}) == 0;
  }

  // The rule for what a lost group may have hidden. A meta file one of
  // whose groups is damaged loses that group's entries: its values and its
  // tombstones. LevelDB's RepairDB loses a damaged block's records the same
  // way and then lets any older version of their keys answer: a key the
  // block deleted comes back, one it rewrote reads its old value. Here a
  // version of such a key is withheld from the merge, and set aside in
  // lost/, when repair can tell that the lost group may have held a newer
  // entry for that key: the version is a value (a tombstone brings nothing
  // back), it is in an SST directory at a deeper level than the damaged SST
  // (an LSM's deeper levels hold only older versions of the keys a level
  // above holds), its user key lies in the lost group's range (from its
  // first key to the next group's, both included, LostKeys), that SST's
  // filter does not rule the key out, and the group may have held a
  // tombstone or an inline value at all: a group whose every entry is
  // accounted for by a KV file taken back by its name from the SST's
  // directory (SalvageMeta) held neither, and withholds nothing. Such a version
  // cannot be the key's newest: the lost entry, a value or a tombstone, was
  // newer. So the key reads as absent rather than as a value it no longer had
  // (a deleted key's, or the value before the one lost), and only a key the SST
  // never held that its filter cannot rule out (the filter's false positives,
  // some 1% of the keys in the range) is withheld wrongly; lost/ keeps both,
  // and the LOG names each. Nothing in L0 or at the damaged SST's level is
  // withheld: L0 directories are ordered by their flushes, which repair
  // cannot prove, and the other SSTs of a deeper level do not overlap. Nor
  // is anything withheld when a meta file's trailer does not read and a
  // group is lost with it (the range is not known: LevelDB's behaviour), or
  // for a value in a home taken back by its name (RecoverHomeValues: no
  // level is known for it). An inline value that fails its own crc in an
  // intact group loses its entry the same way, a value of exactly its key:
  // the range is that one key.
  bool Withheld(int level, const Slice& internal_key) const;

  // ---- Finding what survives (db/repair_scan.cc) ----

  // Lists the WALs, manifests, SST directories and homes; creates the
  // level directories that are missing.
  Status FindFiles();

  // SSTs a manifest records as replaced: added by one edit and removed by
  // a later one (a trivial move by rename removes and re-adds one number
  // in one edit; one by a second name of the meta file adds a new number,
  // and the old is replaced, DBImpl::LinkMove), or
  // removed without being added (a RepairDB's manifest records so the old
  // SSTs its merge replaced, for a RepairDB after it was killed). Numbers
  // are never reused, so what any readable prefix of any manifest retired
  // stays retired. Their meta files, when a crash between the commit and
  // their removal left them, must not be merged: a key whose newest
  // version and tombstone a compaction dropped would come back.
  // A manifest numbered past the one CURRENT names, when that one is here
  // and DeLSM's, is not read: it was never committed (a RepairDB's or an
  // Open's whose switch of CURRENT failed or was killed), and what it
  // records as replaced is live. A MANIFEST-000001 of which no record
  // decodes as DeLSM's is taken for LevelDB's RepairDB's (written without
  // a sync, it may be empty), which orders none of DeLSM's manifests.
  // Nor is one that a manifest written after it (one whose records hand
  // out numbers past its number) shows never took effect, by listing live
  // an SST it records as replaced, or by being numbered below it (written
  // from a state older than it), whatever CURRENT names (a later Open's
  // manifest numbered past it, or LevelDB's, the take-in having brought
  // DeLSM's back from lost/).
  // A manifest that cannot be read for another reason than damage (EMFILE,
  // EIO) fails RepairDB: without its record, replaced SSTs would be merged.
  // Also sets committed_bound_ (NeverCommitted), reading CURRENT: an error
  // reading it other than its absence fails RepairDB too.
  Status FindRetiredSsts();

  // Evidence before setting aside: a directory goes to lost/ only on
  // damage (Corruption) or when it is not a directory repair may open (a
  // file, a symbolic link); any other error (EIO, EMFILE, ENOENT for an
  // entry just listed) says nothing about the data and fails RepairDB,
  // which then has committed and moved nothing.
  static bool IsDamage(const Status& s);

  // Records (copies of) the entries of `index` whose values are KV files
  // in their SST directory, by internal key.
  void NoteNamedFiles(const MetaIndex& index);

  // Loads every directory's meta files, then rebuilds those that need it.
  Status LoadDirectories();

  // A directory holding just its own META is used as it is (*result).
  // Otherwise (a compaction added SSTs to it, or its META is unusable: it
  // does not load, an inline value does not read, a value it names in a
  // home or a KV file it names in the directory is gone) its
  // readable meta files and its listing are returned in *rebuild, for
  // RebuildDirectory to gather its entries into a new directory. A
  // directory an earlier RepairDB merged, or one never live
  // (DirectoryNeverLive), is neither (both left null): it is put away
  // whole.
  Status LoadDirectory(OldDir* old, std::unique_ptr<SstDir>* result,
                       std::unique_ptr<PendingRebuild>* rebuild);

  // If a meta file was lost, every file of a home that no loaded meta
  // file names becomes an entry (from its name, as RebuildDirectory does
  // for a listed KV file) of one new SST given to the merge; the value
  // stays in its home. Otherwise such files are dead or never committed
  // (RepairHomes::TakeBackUnnamed says why) and go to lost/.
  Status RecoverHomeValues();

  // Reads every inline value of `dir` in order; a read that fails calls
  // on_failure with its entry and status, whose result (OK: go on) is
  // returned if not OK.
  static Status ReadInlineValues(
      const SstDir* dir,
      const std::function<Status(const MetaIndexEntry&, const Status&)>&
          on_failure);
  // OK if every inline value of `dir` reads.
  static Status CheckInlineValues(const SstDir* dir);
  // Notes in lost_keys_ the user key of every inline value of `dir` (an
  // SST in the directory of `old`) that fails its checksum: the merge
  // loses its entry, a value newer than any version of its key below
  // (Withheld). Fails only on an error that is not damage.
  Status NoteDamagedInlineValues(const OldDir& old, const SstDir* dir);

  // OK if every name of `kv_files` (the KV files an index names,
  // KvFileNamesOf) is among `names`, the listing of their directory at
  // `path`; else NotFound naming the first missing file and how many are.
  // A directory used as it is gives the merge links of its KV files, and
  // one that is not there fails the merge.
  static Status CheckKvFilesListed(const std::vector<std::string>& kv_files,
                                   const std::vector<std::string>& names,
                                   const std::string& path);

  // Build a new directory from what SalvageSstDir takes back of `src`,
  // linking its KV files in, and open the result. Adds to *used the names
  // whose contents the result holds.
  Status RebuildDirectory(const PendingRebuild& p, std::set<std::string>* used,
                          std::unique_ptr<SstDir>* result);

  // Meta file `meta` of `old` (read from `src`) did not read whole
  // (Corruption): takes what SalvageMetaFile proves intact into *salvaged,
  // and notes the keys of its lost groups (lost_keys_) and, if a group is
  // lost, that values in homes may have lost the meta file naming them.
  // Corruption if nothing is proved (the whole meta file is then lost, as
  // before: the caller notes it); any other error reading it is returned.
  // `names` is the directory's listing: a lost group whose entries as
  // many KV files there account for (no intact entry names them, their
  // internal keys within the group's bounds) held no tombstone or inline
  // value, and its keys are not noted. The files `retired` names (those
  // replaced SSTs name) are not counted: a replaced SST's value of a key
  // the group deleted is not one of the group's entries.
  Status SalvageMeta(const OldDir& old, Directory* src,
                     const std::vector<std::string>& names,
                     const std::set<std::string>& retired,
                     const std::string& meta, uint64_t sst_number,
                     std::vector<SalvagedMetaFile>* salvaged);

  // ---- The merge (db/repair_merge.cc) ----

  // Gives `dir` to the merge and raises the last sequence number past its
  // entries'. Of two inputs, the one of higher `order` holds the newer copy
  // of an exact duplicate.
  void AddInput(std::unique_ptr<SstDir> dir, uint64_t order);

  // A new L0 SST directory of `entries` (sorted here; of two entries with
  // one internal key the first is kept), their KV files linked from `src`
  // (null: values in homes, nothing to link), opened into *result.
  Status BuildSstOf(std::vector<MetaEntry>* entries, Directory* src,
                    std::unique_ptr<SstDir>* result);

  // Damage inside a WAL is skipped (and logged) record by record; a WAL
  // that cannot be read or replayed at all fails RepairDB: committing
  // without it would lose its writes for an error that says nothing about
  // them.
  Status ConvertLogs();
  Status ConvertLog(uint64_t log_number);

  // Merges every input into new directories of one level and commits them
  // in a new manifest (and CURRENT), which also records every old SST and
  // intermediate directory as replaced.
  Status MergeAndCommit();
  Status WriteManifest(uint64_t number, const VersionEdit& edit);

  // ---- Before the commit (db/repair_put_away.cc) ----

  // Links every entry of every old SST directory that the merge is not
  // given into lost/L<level>-<directory>/ (SetAsideUnused), every value in
  // a home that no entry given to the merge names into lost/values-<home>/
  // (RepairHomes::SetAside), and every WAL and old manifest into lost/
  // itself (SetAsideEnvFiles; only where the Env keeps them on the
  // FileSystem, not a memory Env's: nothing of such a database outlives a
  // kill). After the commit, the new manifest records the old directories
  // as removed and names none of those WALs and manifests, and an Open
  // (this repair killed, or its putting away failed) removes them, and the
  // values no live entry names: the links in lost/ are what keeps what
  // repair could not use. Any error fails RepairDB, which then has
  // committed nothing. The merge's syncfs (MergeAndCommit) makes the links
  // durable before the commit.
  Status SetAsideUnusable();
  Status SetAsideUnused(OldDir* d);
  Status SetAsideEnvFiles();

  // Hard-links `name` of `src` into lost/<lost_dir>/, or into
  // lost/<lost_dir>.<k>/ for the first k where that name is free or is
  // already the same file (an earlier RepairDB, killed, linked it); an
  // empty lost_dir is lost/ itself, then lost/<k>/. OK
  // without a link if `name` is a directory (never a file an unlink, hence
  // an Open, removes; it stays in place); *linked says whether the file
  // is in lost/.
  Status LinkToLost(Directory* src, const std::string& name,
                    const std::string& lost_dir, bool* linked);

  // ---- After the commit (db/repair_put_away.cc) ----

  // Sets *free_name to lost_name, or lost_name.<k> for the first k such
  // that nothing in lost/ has that name: by `listed` (the Env's listing of
  // lost/, for the Env's files) if given, else by FileSystem::Probe. A
  // lookup that fails (EIO) fails the call: a rename to a name taken for
  // free would replace what lost/ holds there.
  Status FreeLostName(const std::string& lost_name,
                      const std::set<std::string>* listed,
                      std::string* free_name);

  // Moves `path` to lost/<lost_name>, through the Env for the files it
  // carries (WALs, manifests), there under lost_name or lost_name.<k>, the
  // first name the Env's listing of lost/ lacks (as FreeLostName; a
  // listing that fails fails the move), and the FileSystem for SST
  // directories; logs it. On failure the file is left where it is, never
  // deleted, and the error is returned.
  Status MoveToLost(const std::string& path, const std::string& lost_name,
                    bool env_file);

  // An old SST directory: entries the merge was given or that were set
  // aside are unlinked, then the directory is removed; if anything else is
  // left in it (a directory), it is moved to lost/ whole, as is a `whole`
  // one.
  Status PutAwayOldDirectory(const OldDir& d);

  // A WAL or old manifest (`name` in the database directory): unlinked if
  // SetAsideEnvFiles linked it into lost/, else moved there.
  Status PutAwayEnvFile(const std::string& name);

  // Removes the intermediate directories, puts away every old SST
  // directory, home value, WAL and old manifest. Goes on past a failure;
  // returns the first.
  Status PutAwayOldFiles();

  const std::string dbname_;
  Env* const env_;
  Options options_;  // info_log set by OpenInfoLog if none was given
  std::unique_ptr<Logger> owned_info_log_;
  size_t moved_to_lost_ = 0;
  const InternalKeyComparator icmp_;
  const std::unique_ptr<const FilterPolicy> default_filter_;
  RepairHomes homes_;  // values that stay put
  SstDirOptions sst_options_;
  uint64_t next_number_ = 1;
  // Past every number a manifest committed, or UINT64_MAX if unknown
  // (NeverCommitted).
  uint64_t committed_bound_ = UINT64_MAX;
  uint64_t new_manifest_ = 0;
  SequenceNumber max_sequence_ = 0;
  uint64_t repaired_entries_ = 0;
  // Of the meta files that did not read whole: entries taken back from
  // their intact groups, entries lost with their damaged groups, and the
  // versions withheld (Withheld).
  uint64_t salvaged_entries_ = 0;
  uint64_t lost_entries_ = 0;
  uint64_t withheld_entries_ = 0;
  std::vector<LostKeys> lost_keys_;
  std::vector<uint64_t> logs_;
  std::vector<std::string> manifests_;
  // The WALs and manifests SetAsideEnvFiles linked into lost/, by name.
  std::set<std::string> env_files_set_aside_;
  std::set<uint64_t> retired_;  // SSTs a manifest records as replaced
  // SSTs a manifest records as added, as (directory, SST number)
  // (UncommittedAddition).
  std::set<std::pair<uint64_t, uint64_t>> ever_added_;
  // Numbers a manifest records as removed without having added them: a
  // RepairDB's record of the SSTs and directories its merge was given
  // (and of its intermediate directories).
  std::set<uint64_t> merged_by_repair_;
  // Entries of loaded meta files whose values are KV files in their SST
  // directories, by internal key (RebuildDirectory).
  std::map<std::string, MetaEntry> named_files_;
  std::vector<OldDir> old_dirs_;
  // Intermediate L0 SST directories (rebuilt ones, WALs converted, values
  // in homes taken back), by number.
  std::vector<std::pair<uint64_t, std::string>> new_dirs_;
  std::vector<Input> inputs_;
  // (level, number) of every old SST whose meta file was merged or that a
  // manifest records as replaced: recorded as removed in the new manifest.
  std::vector<std::pair<int, uint64_t>> replaced_;
  // Values in homes whose entries the merge dropped (committed).
  std::vector<HomeValue> dropped_home_values_;
};

}  // namespace leveldb

#endif  // DELSM_DB_REPAIRER_H_
