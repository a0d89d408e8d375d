// TakeInLevelDbTables (compat/leveldb/conversion.h): a DeLSM database whose
// manifest LevelDB's RepairDB replaced gets LevelDB's tables back as L0
// SST directories, for DeLSM's RepairDB to merge. The in-place conversion
// of a LevelDB database is in conversion.cc.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/conversion_internal.h"
#include "compat/leveldb/directory_kind.h"
#include "compat/leveldb/manifest.h"
#include "compat/leveldb/table_reader.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"
#include "table/meta_file.h"
#include "table/sst_dir_builder.h"

namespace leveldb {

namespace {

using conversion_internal::ConversionDurability;
using conversion_internal::ManifestNumberBound;
using conversion_internal::ReadCurrent;
using conversion_internal::ReadLiveSsts;

// Moves dbname/`name` to lost/leveldb-<name> (a suffix .1, .2, ... if that
// is taken: nothing in lost/ is replaced). lost/ is made or found through
// `fs`, which refuses a symbolic link there: the rename would move the
// file out of the database.
Status MoveToLost(Env* env, FileSystem* fs, const std::string& dbname,
                  const std::string& name) {
  const std::string lost = dbname + "/lost";
  Status s = fs->CreateDir(lost, true);
  if (!s.ok()) return s;
  env->CreateDir(lost);  // the Env's own (a memory Env's); may exist
  std::string to = lost + "/leveldb-" + name;
  for (int i = 1; env->FileExists(to); i++) {
    to = lost + "/leveldb-" + name + "." + std::to_string(i);
  }
  return env->RenameFile(dbname + "/" + name, to);
}

// Damage, or a file that is not there (NotFound, and no longer listed):
// what a reader may take for "nothing to read". Any other error (EIO,
// EMFILE, ENOENT for a file that is there) is not.
bool DamagedOrAbsent(Env* env, const Status& s, const std::string& path) {
  return s.IsCorruption() || (s.IsNotFound() && !env->FileExists(path));
}

// The names in dbname/lost/ (none if there is no such directory).
Status ListLost(Env* env, const std::string& dbname,
                std::vector<std::string>* names) {
  names->clear();
  const std::string lost = dbname + "/lost";
  Status s = env->GetChildren(lost, names);
  if (!s.ok() && !env->FileExists(lost)) return Status::OK();
  return s;
}

// TakeInLevelDbTables with the LOCK held.
Status TakeInLevelDbTablesLocked(const LevelDbConversionOptions& o,
                                 const std::string& dbname) {
  Env* env = o.env;
  // A lost/ that is a link is refused before anything is read from it or
  // moved.
  Status s = CheckNotALink(o.fs, dbname + "/lost");
  if (!s.ok()) return s;
  std::vector<std::string> children;
  s = env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  // New SSTs take numbers above everything any file, SST directory or home
  // of either engine uses.
  uint64_t next = 1;
  std::vector<std::string> tables;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseLevelDbTableFileName(child, &number)) {
      tables.push_back(child);
      next = std::max(next, number + 1);
    } else if (ParseFileName(child, &number, &type) && type != kLevelDir) {
      next = std::max(next, number + 1);
    }
  }
  std::vector<std::string> names;
  for (int level = 0; level < config::kNumLevels; level++) {
    const std::string dir = LevelDirName(dbname, level);
    if (!o.fs->Exists(dir)) continue;
    s = o.fs->ListDirectory(dir, &names);
    if (!s.ok()) return s;
    for (const std::string& name : names) {
      uint64_t number;
      if (!ParseSstDirName(name, &number)) continue;
      next = std::max(next, number + 1);
      // And the SSTs a compaction wrote into the directory (META-<n>).
      std::vector<std::string> entries;
      s = o.fs->ListDirectory(dir + "/" + name, &entries);
      if (!s.ok()) return s;
      for (const std::string& entry : entries) {
        uint64_t sst;
        if (ParseMetaFileName(entry, number, &sst) ||
            ParseLongKeysFileName(entry, number, &sst)) {
          next = std::max(next, sst + 1);
        }
      }
    }
  }
  const std::string values = dbname + "/" + kValuesDirName;
  if (o.fs->Exists(values)) {
    s = o.fs->ListDirectory(values, &names);
    if (!s.ok()) return s;
    for (const std::string& name : names) {
      uint64_t number;
      if (ParseHomeDirName(name, &number)) next = std::max(next, number + 1);
    }
  }
  // LevelDB's manifest, if CURRENT names one that reads as LevelDB's
  // (damaged or absent, it bounds nothing and stays where it is). A failed
  // read of either is not damage and fails the repair.
  std::string manifest;
  LevelDbState state;
  bool leveldb_manifest = false;
  s = ReadCurrent(env, dbname, &manifest);
  if (!s.ok() && !DamagedOrAbsent(env, s, CurrentFileName(dbname))) return s;
  if (s.ok()) {
    const std::string path = dbname + "/" + manifest;
    s = ReadLevelDbManifest(env, path, &state);
    if (!s.ok() && !DamagedOrAbsent(env, s, path)) return s;
    leveldb_manifest = s.ok();
  }
  if (leveldb_manifest) {
    if (!state.comparator.empty() &&
        state.comparator != o.user_comparator->Name()) {
      return Status::NotSupported(dbname + "/" + manifest,
                                  "LevelDB's manifest names comparator '" +
                                      state.comparator + "', repaired with '" +
                                      o.user_comparator->Name() +
                                      "'; RepairDB changed nothing");
    }
    next = std::max(next, state.next_file);
  }

  // Every number DeLSM's manifests name: LevelDB's repair moved them to
  // lost/, from where they come back below for DeLSM's repair to read.
  // A manifest that cannot be listed or read (EIO, EMFILE) fails the
  // repair: a number it names could go to a taken-in table, which the next
  // RepairDB would then take for a replaced SST and not merge.
  std::vector<std::string> lost_names;
  s = ListLost(env, dbname, &lost_names);
  if (!s.ok()) return s;
  std::vector<std::string> manifests;
  for (const std::string& name : lost_names) {
    manifests.push_back(dbname + "/lost/" + name);
  }
  for (const std::string& child : children) {
    manifests.push_back(dbname + "/" + child);
  }
  for (const std::string& path : manifests) {
    uint64_t number, bound;
    FileType type;
    if (!ParseFileName(path.substr(path.rfind('/') + 1), &number, &type) ||
        type != kDescriptorFile) {
      continue;
    }
    s = ManifestNumberBound(env, path, &bound);
    if (!s.ok()) return s;
    next = std::max(next, bound);
  }

  // Every table becomes an L0 SST. A damaged table gives every block that
  // reads (as LevelDB's repair salvages a table); an error that is not
  // damage (EIO, EMFILE, ...) fails the repair.
  s = o.fs->CreateDir(LevelDirName(dbname, 0), true);
  if (!s.ok()) return s;
  std::vector<std::string> built = {LevelDirName(dbname, 0)};
  // Until a table has gone to lost/, every SST made here is a copy of a
  // table still in place: a failure removes them all. Left behind, they
  // would make the directory DeLSM's data beside LevelDB's tables to the
  // next RepairDB, which would merge them with whatever LevelDB (which
  // ignores them) has since deleted or compacted away.
  std::vector<std::unique_ptr<SstDirBuilder>> builders;
  auto undo = [&](const Status& error) {
    for (const auto& b : builders) {
      if (!b->Abandon()) {
        Log(o.info_log, "RepairDB: could not remove %s after: %s\n",
            b->path().c_str(), error.ToString().c_str());
      }
    }
    return error;
  };
  for (const std::string& name : tables) {
    const std::string fname = dbname + "/" + name;
    uint64_t size;
    RandomAccessFile* raw;
    s = env->GetFileSize(fname, &size);
    if (s.ok()) s = env->NewRandomAccessFile(fname, &raw);
    if (!s.ok()) return undo(s);
    std::unique_ptr<RandomAccessFile> file(raw);
    std::unique_ptr<LevelDbTableReader> reader;
    s = LevelDbTableReader::Open(file.get(), size, fname, &reader);
    if (s.IsCorruption() || s.IsNotSupportedError()) {
      Log(o.info_log, "RepairDB: LevelDB table %s unreadable (%s)\n",
          fname.c_str(), s.ToString().c_str());
      continue;
    }
    if (!s.ok()) return undo(s);
    const uint64_t number = next++;
    builders.emplace_back(
        new SstDirBuilder(o.sst_options, SstDirName(dbname, 0, number)));
    SstDirBuilder& builder = *builders.back();
    s = builder.Begin();
    // Every block that reads is kept, as LevelDB's RepairDB keeps them: a
    // damaged block loses its own entries, and an entry whose key does not
    // parse is skipped alone. Stopping at the damage instead would lose
    // the later blocks' deletions and newer values, and older versions in
    // other tables would answer for those keys.
    reader->SkipDamagedBlocks();
    uint64_t malformed = 0;
    for (reader->SeekToFirst(); s.ok() && reader->Valid(); reader->Next()) {
      ParsedInternalKey ikey;
      if (!ParseInternalKey(reader->key(), &ikey)) {
        malformed++;
        continue;
      }
      s = builder.Add(reader->key(), reader->value());
    }
    if (s.ok() && !reader->status().ok()) {
      // Not damage (an I/O error, a block this build cannot decode): what
      // the table holds past it is unknown.
      s = reader->status();
    }
    if (s.ok() && (reader->damaged_blocks() > 0 || malformed > 0)) {
      Log(o.info_log,
          "RepairDB: %s: %llu damaged data blocks skipped (the first: %s), "
          "%llu entries with a malformed key skipped; the table is kept in "
          "lost/\n",
          fname.c_str(),
          static_cast<unsigned long long>(reader->damaged_blocks()),
          reader->first_damage().ToString().c_str(),
          static_cast<unsigned long long>(malformed));
    }
    if (s.ok() && builder.NumEntries() == 0) {
      builder.Abandon();
      builders.pop_back();
      continue;
    }
    if (s.ok()) s = builder.Finish();
    if (!s.ok()) return undo(s);
    built.push_back(builder.path());
    Log(o.info_log, "RepairDB: LevelDB table %s: %llu entries into %s\n",
        fname.c_str(), static_cast<unsigned long long>(builder.NumEntries()),
        builder.path().c_str());
  }
  s = MakeDirectoriesDurable(o.fs, ConversionDurability(o.durability), built);
  if (!s.ok()) return undo(s);

  // LevelDB's repair put DeLSM's manifests in lost/. Back in place, they
  // tell DeLSM's repair which SSTs a committed compaction replaced (whose
  // meta files, left by a crash, must not be merged); it puts them away
  // again when it is done. They come back before LevelDB's manifest goes:
  // once it has gone, the directory is no longer LevelDB's to a RepairDB
  // run after a kill or an error here, which would not come this way and
  // would merge those meta files, bringing back the keys whose tombstones
  // the compaction dropped.
  // A manifest in lost/ is DeLSM's if it reads whole as DeLSM's; one that
  // is damaged or not DeLSM's (LevelDB's own older manifests) stays. One
  // whose read fails (EIO, EMFILE) fails the repair before LevelDB's
  // manifest goes: left in lost/, its record of replaced SSTs would be
  // unknown to the repair that follows.
  std::vector<std::string> lost;
  s = ListLost(env, dbname, &lost);
  if (!s.ok()) return undo(s);
  for (const std::string& name : lost) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type) || type != kDescriptorFile ||
        env->FileExists(dbname + "/" + name)) {
      continue;
    }
    const std::string path = dbname + "/lost/" + name;
    std::set<uint64_t> live;
    s = ReadLiveSsts(env, path, &live);
    if (!s.ok() && DamagedOrAbsent(env, s, path)) continue;
    if (s.ok()) s = env->RenameFile(path, dbname + "/" + name);
    if (!s.ok()) return undo(s);
    Log(o.info_log, "RepairDB: DeLSM's %s back from lost/\n", name.c_str());
  }
  // The SSTs are durable: LevelDB's tables and manifest go to lost/ (not
  // deleted; what repair cannot use is kept for the user, as both engines'
  // repairs keep it). CURRENT then names a missing manifest until DeLSM's
  // repair writes its own.
  for (const std::string& name : tables) {
    s = MoveToLost(env, o.fs, dbname, name);
    if (!s.ok()) return s;
  }
  if (leveldb_manifest) {
    s = MoveToLost(env, o.fs, dbname, manifest);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace

Status TakeInLevelDbTables(const LevelDbConversionOptions& options,
                           const std::string& dbname) {
  FileLock* lock;
  Status s = options.env->LockFile(LockFileName(dbname), &lock);
  if (!s.ok()) return s;
  s = TakeInLevelDbTablesLocked(options, dbname);
  Status unlocked = options.env->UnlockFile(lock);
  return s.ok() ? unlocked : s;
}

}  // namespace leveldb
