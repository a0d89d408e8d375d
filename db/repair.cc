// leveldb::RepairDB for DeLSM: rebuilds a consistent DB from whatever SST
// directories, KV files and WALs survive, and writes a fresh manifest.
//
// 1. Every SST directory under L0..L6 that holds just its own META, and
//    whose META loads, is used as is. Any other is rebuilt from what
//    survives in it (db/repair_salvage.h): the entries of every readable
//    meta file in it (META-<n> files are SSTs a compaction added) whose KV
//    files are still there, plus every listed KV file no meta file names:
//    KV file names carry the user key (or, for hashed names, LONGKEYS
//    does), the sequence number and whether the bytes are compressed. A
//    listed file whose key and sequence number a loaded meta file of
//    another directory names is a second link to that entry's file (a
//    compaction killed before its commit links KV files into its outputs'
//    directories) or a stray copy: it is taken back only if its bytes
//    match that entry's size and checksum. Tombstones live only in meta
//    files, so those of an unreadable meta file are lost; of a format-4
//    meta file with a damaged group (or trailer), every entry of its intact
//    groups is taken back (table/meta_file_salvage.h), and a value below
//    whose key a lost group may have held is withheld (Repairer::Withheld).
//    Meta files of SSTs
//    that any readable manifest records as replaced (a crash between a
//    compaction's commit and their removal left them) are left out, with the KV
//    files only they name: merged, they would bring back keys the compaction
//    had dropped with their tombstones. So is all of a directory no
//    manifest records an SST added in, numbered below a later commit, when
//    the manifest CURRENT names reads whole: a compaction killed before its
//    commit (or whose outputs were not undone) left it, and the database
//    ran on past it. So is all of a directory a RepairDB
//    merged (its manifest records the directory's number as removed) if no
//    meta file in it of an SST not recorded as replaced reads: a repair
//    killed after its commit leaves the KV files it took back by their
//    names, whose tombstones its merge dropped. Values that stay put
//    (values/<home>/, docs/DESIGN.md section 5) are used where they are: an
//    entry naming one whose file is gone is left out (its directory is
//    rebuilt). If a meta file could not be read (or an SST directory holds
//    none) of an SST a manifest may have committed (not one numbered past
//    every manifest's next file number: a flush, compaction or RepairDB
//    killed before its commit leaves those, Repairer::NeverCommitted),
//    every file of a home that no readable meta file names is taken back
//    as a value entry from its name (as a listed KV file is), except those only
//    replaced SSTs name, files whose name is not a KV file name or is hashed
//    (LONGKEYS holds no key for them), and unreadable ones. If every meta file
//    read, none is taken back: such a file is a value whose death was committed
//    or one of a flush that never committed (db/repair_homes.h). What is not
//    taken back goes to lost/.
// 2. Every WAL is replayed into a new L0 directory.
// 3. All of it is merged by one dentry compaction (links only) into new
//    directories of a single level, keeping the newest version of each key
//    and dropping tombstones (nothing is left below them).
// 4. As LevelDB's repair does, nothing repair could not use is deleted.
//    Before the commit, every entry of an SST directory that the merge was
//    not given (an unreadable meta file or KV file, a file it does not
//    know; every entry of a directory it could not load or that an earlier
//    RepairDB merged) is hard-linked into <dbname>/lost/L<level>-<dir>/,
//    every value in a home that no entry given to the merge names into
//    lost/values-<home>/, and every WAL and old manifest into lost/;
//    failing that, RepairDB fails having committed nothing. Then a new
//    manifest lists the result, and only then are the old files put away:
//    the entries of the old directories are unlinked (the new directories
//    hold links to those the merge kept; those it dropped were superseded
//    or deleted; lost/ holds the others) and the directories removed; the
//    WALs, old manifests and values set aside are unlinked, and so are the
//    values the merge dropped (those it kept stay where they are); a
//    directory repair could not open (a file, a symbolic link) is moved
//    into lost/. Links, not moves, before the commit: the old state needs
//    those files until it (db/repair_put_away.cc says why). Killed after
//    the commit, or unable to put something away (RepairDB then fails,
//    saying the repair is committed), RepairDB leaves old files that the
//    next Open removes, or the next RepairDB puts away: every one of them
//    is one the merge was given or one lost/ holds.
// Every step is logged to options.info_log, or to the DB's LOG (the old
// one renamed LOG.old, as Open does) when none is given. Step 1 is in
// db/repair_scan.cc, steps 2 and 3 and the commit in db/repair_merge.cc,
// the putting away in db/repair_put_away.cc; the Repairer that runs them
// is declared in db/repairer.h. This file holds RepairDB itself.
#include <memory>
#include <string>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/repairer.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"

namespace leveldb {

Repairer::Repairer(const std::string& dbname, const Options& options,
                   FileSystem* fs)
    : dbname_(dbname),
      env_(options.env),
      options_(options),
      icmp_(options.comparator),
      default_filter_(NewDefaultFilterPolicy(options)),
      homes_(fs, dbname) {
  sst_options_.comparator = &icmp_;
  sst_options_.filter_policy = options.filter_policy != nullptr
                                   ? options.filter_policy
                                   : default_filter_.get();
  sst_options_.fs = fs;
  sst_options_.homes = homes_.homes();
  sst_options_.compression = options.compression;
}

Status Repairer::Run() {
  FileLock* lock = nullptr;
  Status s = env_->LockFile(LockFileName(dbname_), &lock);
  if (!s.ok()) return s;
  if (options_.info_log == nullptr) OpenInfoLog();
  Log(options_.info_log, "RepairDB %s: starting\n", dbname_.c_str());
  s = CheckLostDir();
  if (s.ok()) s = FindFiles();
  if (s.ok()) s = FindRetiredSsts();
  if (s.ok()) s = LoadDirectories();
  if (s.ok()) s = RecoverHomeValues();
  if (s.ok()) s = ConvertLogs();
  if (s.ok()) s = SetAsideUnusable();
  if (s.ok()) s = MergeAndCommit();
  if (s.ok()) s = PutAwayOldFiles();
  env_->UnlockFile(lock);
  Log(options_.info_log,
      "RepairDB %s: %s; %zu directories, %zu logs read, %zu files moved "
      "to lost/; of damaged meta files, %llu entries taken back from intact "
      "groups, %llu lost, %llu older versions withheld\n",
      dbname_.c_str(), s.ToString().c_str(), old_dirs_.size(), logs_.size(),
      moved_to_lost_, static_cast<unsigned long long>(salvaged_entries_),
      static_cast<unsigned long long>(lost_entries_),
      static_cast<unsigned long long>(withheld_entries_));
  return s;
}

Status Repairer::CheckLostDir() {
  return CheckNotALink(sst_options_.fs, dbname_ + "/lost");
}

void Repairer::OpenInfoLog() {
  env_->CreateDir(dbname_);  // exists already, since it is locked
  env_->RenameFile(InfoLogFileName(dbname_), OldInfoLogFileName(dbname_));
  Logger* logger = nullptr;
  if (env_->NewLogger(InfoLogFileName(dbname_), &logger).ok()) {
    owned_info_log_.reset(logger);
    options_.info_log = logger;
  }
}

namespace {

// The tables of a directory with LevelDB's tables become L0 SSTs
// (TakeInLevelDbTables), for the Repairer to merge with everything else.
Status TakeInTables(const std::string& dbname, const Options& options,
                    FileSystem* fs) {
  const InternalKeyComparator icmp(options.comparator);
  const std::unique_ptr<const FilterPolicy> default_filter(
      NewDefaultFilterPolicy(options));
  LevelDbConversionOptions convert;
  convert.env = options.env;
  convert.fs = fs;
  convert.info_log = options.info_log;
  convert.user_comparator = options.comparator;
  convert.sst_options.comparator = &icmp;
  convert.sst_options.filter_policy = options.filter_policy != nullptr
                                          ? options.filter_policy
                                          : default_filter.get();
  convert.sst_options.fs = fs;
  convert.sst_options.compression = options.compression;
  convert.sst_options.inline_threshold = delsm::Tuning().inline_threshold;
  convert.sst_options.compress_inline_from =
      delsm::Tuning().compress_inline_from;
  return TakeInLevelDbTables(convert, dbname);
}

// Once the repair after TakeInTables has committed: the take-in's PLAN,
// which kept DB::Open out until then, goes (EndLevelDbTakeIn).
Status EndTakeIn(const std::string& dbname, const Options& options,
                 FileSystem* fs) {
  LevelDbConversionOptions end;
  end.env = options.env;
  end.fs = fs;
  end.info_log = options.info_log;
  end.user_comparator = options.comparator;
  return EndLevelDbTakeIn(end, dbname);
}

}  // namespace

Status RepairDB(const std::string& dbname, const Options& options) {
  return RepairDBWithFileSystem(dbname, options, FileSystemForEnv(options.env));
}

Status RepairDBWithFileSystem(const std::string& dbname, const Options& options,
                              FileSystem* fs) {
  if (options.comparator == nullptr || options.env == nullptr) {
    return Status::InvalidArgument(dbname, "options need a comparator and env");
  }
  // A LevelDB database is converted by opening it (DeLSM's repair below
  // never reads LevelDB's files and would destroy them), or refused before
  // anything is created, locked or logged when it cannot be converted. A
  // conversion cut short after its commit is finished the same way. (A
  // pre-release DeLSM database is repaired: that is how it is brought to
  // the current format.) A DeLSM database LevelDB's RepairDB rewrote is
  // not converted (that would lose its SSTs) but repaired.
  DatabaseFormat format;
  std::string evidence;
  Status s = DetectDatabaseFormat(options.env, dbname, &format, &evidence);
  if (!s.ok()) return s;
  // What the staging directory holds, read through its PLAN whatever a
  // lookup of the directory says (ReadStagingState): access(2) answers no
  // on any error (EIO), and a committed conversion taken for none was
  // repaired without the SSTs only its staging directory held.
  StagingState staging = StagingState::kAbsent;
  if (format != DatabaseFormat::kRewrittenByLevelDb) {
    s = ReadStagingState(options.env, dbname, &staging);
    if (!s.ok()) return s;
  }
  // LevelDB's RepairDB cut short as it moved the manifests to lost/, before
  // it moved any of DeLSM's (one moved makes it kRewrittenByLevelDb), left
  // its new manifest (LevelDbRepairManifestLeft). The take-in moves that
  // to lost/ too: left here once this repair has put DeLSM's manifests in
  // lost/, it would have the directory judged one LevelDB's RepairDB is
  // rewriting, and Open refuse it.
  bool leveldb_repair_left = false;
  if (format == DatabaseFormat::kDelsm && staging == StagingState::kAbsent) {
    s = LevelDbRepairManifestLeft(options.env, dbname, &leveldb_repair_left);
    if (!s.ok()) return s;
  }
  bool took_in = false;  // the take-in's PLAN then stays until the repair
  if (format == DatabaseFormat::kRewrittenByLevelDb || leveldb_repair_left) {
    // LevelDB's RepairDB replaced this DeLSM database's manifest: its
    // tables (DeLSM's WALs, as LevelDB replayed them) become L0 SSTs, and
    // the repair below merges them with every SST directory.
    s = TakeInTables(dbname, options, fs);
    if (!s.ok()) return s;
    took_in = true;
  } else if (format == DatabaseFormat::kLevelDb ||
             staging != StagingState::kAbsent) {
    bool convert = true;
    if (staging == StagingState::kTakeIn) {
      // A taking in of LevelDB's tables cut short (its PLAN in the staging
      // directory) is judged, and finished or removed, by TakeInTables
      // alone, whatever the directory looks like. A LevelDB database that
      // converts may hold one: LevelDB's RepairDB, run after the take-in's
      // commit, writes a manifest of the tables left in place, without
      // those the take-in moved to lost/, whose only copy here is staged.
      convert = false;
    } else if (format == DatabaseFormat::kLevelDb) {
      // A LevelDB database that cannot be converted as it is (a damaged or
      // missing manifest, a missing table) is repaired as LevelDB's
      // RepairDB repairs it: from its tables and WALs alone.
      std::string why;
      s = LevelDbConvertible(options.env, dbname, options.comparator, &convert,
                             &why);
      if (!s.ok()) return s;
    } else {
      // A staging directory without a PLAN in a directory that is not
      // DeLSM's is resolved by TakeInTables, not by Open (a take-in killed
      // between the removal of its PLAN and of the directory): a committed
      // conversion that Open must finish leaves CURRENT naming its DeLSM
      // manifest.
      convert =
          staging != StagingState::kNoPlan || format == DatabaseFormat::kDelsm;
    }
    if (convert) {
      Options open_options = options;
      open_options.create_if_missing = false;
      open_options.error_if_exists = false;
      DB* db = nullptr;
      s = OpenWithFileSystem(open_options, delsm::Tuning(), dbname, fs, &db);
      delete db;  // the DB's LOG says what was converted
      // A conversion refuses a damaged table having changed nothing, and
      // the directory is still LevelDB's database: repaired the same way.
      // Any other outcome (converted, an error that is not damage, a
      // conversion committed and left to finish) is the answer.
      if (!s.IsCorruption() || format != DatabaseFormat::kLevelDb) return s;
      DatabaseFormat now;
      Status detected =
          DetectDatabaseFormat(options.env, dbname, &now, &evidence);
      if (!detected.ok()) return detected;
      if (now != DatabaseFormat::kLevelDb ||
          options.env->FileExists(dbname + "/" + kLevelDbConversionDirName)) {
        return s;
      }
    }
    // Its tables become L0 SSTs (every block that reads; a damaged table
    // and LevelDB's manifest are kept in lost/). TakeInTables refuses a
    // manifest naming another comparator, changing nothing.
    s = TakeInTables(dbname, options, fs);
    if (!s.ok()) return s;
    took_in = true;
  }
  Repairer repairer(dbname, options, fs);
  s = repairer.Run();
  if (s.ok() && took_in) s = EndTakeIn(dbname, options, fs);
  return s;
}

}  // namespace leveldb
