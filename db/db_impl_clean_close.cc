// The clean-close marker: CLOSED in the DB directory, written by a Close
// that left nothing for the open sweeps. Its text:
//   DeLSM clean close
//   MANIFEST-nnnnnn      (the manifest CURRENT named at close)
//   size                 (that manifest's size in bytes at close)
// Any writer after the close changes the manifest (a new one, or a record
// appended to it) or, if interrupted before its first record, leaves a
// directory or home numbered past what the manifest knows (Recover): so
// the marker vouches only for the database exactly as that Close left it.
// DeLSM itself removes the marker durably before it changes anything.
#include <cstdint>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "db/filename.h"
#include "db/version_set.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "util/env_util.h"

namespace leveldb {

namespace {
constexpr char kCleanCloseMarkerHeader[] = "DeLSM clean close";

std::string CleanCloseMarkerPath(const std::string& dbname) {
  return dbname + "/" + kCleanCloseMarkerName;
}

// The marker's text for a manifest: `current` is what CURRENT holds (its
// name and a newline), `size` the manifest's size in bytes.
std::string CleanCloseMarkerText(const std::string& current, uint64_t size) {
  return std::string(kCleanCloseMarkerHeader) + "\n" + current +
         std::to_string(size) + "\n";
}

// Makes the DB directory's entries (the marker's rename or removal)
// durable.
Status SyncDbDirectory(FileSystem* fs, const std::string& dbname) {
  std::unique_ptr<Directory> db_dir;
  Status s = fs->OpenDirectory(dbname, &db_dir);
  if (s.ok()) s = db_dir->Sync();
  return s;
}
}  // namespace

const char* DBImpl::WhatCloseLeft() {
  mutex_.AssertHeld();
  // bg_error_: the last edit may or may not be committed and
  // RemoveObsoleteFiles kept everything. The queues hold what failed to
  // go or is still pinned: retired SSTs' entries, dead values (and the
  // SSTs naming them), homes of discarded flushes. A pending output is a
  // directory (and home) nothing committed.
  if (!bg_error_.ok()) return "a background error";
  if (left_for_open_sweep_) return "entries only the open sweeps remove";
  if (!retired_ssts_.empty()) return "retired SSTs not removed";
  if (!dead_values_.empty()) return "dead values not removed";
  if (!discarded_homes_.empty()) return "homes of discarded flushes";
  if (!pending_outputs_.empty()) return "outputs never committed";
  if (!removals_in_flight_.empty()) return "a removal in flight";
  return nullptr;
}

Status DBImpl::RetireWalsOfDurableFlushes() {
  mutex_.AssertHeld();
  if (unsynced_logs_.empty() &&
      (deferred_logs_.empty() || keep_deferred_logs_for_test_)) {
    return Status::OK();
  }
  // Every flush that put a WAL in these queues committed before the
  // caller's syncfs (the background threads have ended), so its SST is
  // durable: what a durability round (kSyncfs) or a compaction's sync
  // (kDeferred) proves before it releases the same WALs.
  unsynced_logs_.clear();
  unsynced_dirs_.clear();
  if (!keep_deferred_logs_for_test_) {
    deferred_logs_released_ += deferred_logs_.size();
    deferred_logs_.clear();
  }
  AdvanceLogFloor();  // commits the floor, then deletes the WALs below it
  return bg_error_;
}

Status DBImpl::WriteCleanCloseMarker() {
  mutex_.AssertHeld();
  // The removals made while open (unlinks in SST directories and homes)
  // must not come back after a power loss once the marker says they are
  // done: one syncfs of the file system holding them first.
  Status s = MakeDirectoriesDurable(fs_, delsm::Durability::kSyncfs,
                                    {LevelDirName(dbname_, 0)});
  if (s.ok()) s = RetireWalsOfDurableFlushes();
  // Deleting the WALs must not have left anything either.
  if (s.ok()) {
    const char* left = WhatCloseLeft();
    if (left != nullptr) s = Status::IOError("clean close", left);
  }
  if (!s.ok()) return s;
  std::string current;
  s = ReadFileToString(env_, CurrentFileName(dbname_), &current);
  if (!s.ok()) return s;
  const std::string manifest =
      DescriptorFileName(dbname_, versions_->ManifestFileNumber());
  if (current != manifest.substr(dbname_.size() + 1) + "\n") {
    return Status::Corruption(CurrentFileName(dbname_),
                              "does not name the manifest in use");
  }
  uint64_t size = 0;
  s = env_->GetFileSize(manifest, &size);
  if (!s.ok()) return s;
  const std::string text = CleanCloseMarkerText(current, size);
  const std::string tmp = TempFileName(dbname_, versions_->NewFileNumber());
  s = WriteStringToFileSync(env_, text, tmp);
  if (s.ok()) s = env_->RenameFile(tmp, CleanCloseMarkerPath(dbname_));
  if (s.ok()) s = SyncDbDirectory(fs_, dbname_);
  if (!s.ok()) {
    env_->RemoveFile(tmp);  // best effort; the error is s
    // A marker whose rename is not known durable must not stay either.
    env_->RemoveFile(CleanCloseMarkerPath(dbname_));
  }
  return s;
}

Status DBImpl::TakeCleanCloseMarker(bool* clean) {
  *clean = false;
  const std::string path = CleanCloseMarkerPath(dbname_);
  if (!env_->FileExists(path)) return Status::OK();
  std::string text, current;
  Status s = ReadFileToString(env_, path, &text);
  if (s.ok()) s = ReadFileToString(env_, CurrentFileName(dbname_), &current);
  if (s.ok()) {
    // The marker vouches for the database only if it names, at its current
    // size, the manifest CURRENT names.
    uint64_t size = 0;
    *clean =
        current.size() > 1 && current.back() == '\n' &&
        env_->GetFileSize(dbname_ + "/" + current.substr(0, current.size() - 1),
                          &size)
            .ok() &&
        text == CleanCloseMarkerText(current, size);
  }
  // Whatever it said (an unreadable or stale marker vouches for nothing),
  // it goes, durably, before Open changes anything.
  Status removed = env_->RemoveFile(path);
  if (removed.ok()) removed = SyncDbDirectory(fs_, dbname_);
  if (!removed.ok()) {
    *clean = false;
    return removed;
  }
  Log(options_.info_log, "%s: %s\n", path.c_str(),
      *clean ? "the last Close left nothing to sweep"
             : "stale or unreadable, removed");
  return Status::OK();
}

}  // namespace leveldb
