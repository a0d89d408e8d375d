// A FileSystem wrapper for power-loss tests. Every call passes through to a
// real file system; the wrapper keeps an undo log of what is not yet
// durable and, on SimulatePowerLoss(), puts the disk back into the state a
// power failure could have left: every change no fsync or syncfs covered is
// rolled back.
//
// The model (what "durable" means here):
//  * A directory entry change -- a file created by WriteFile, a LinkFrom, an
//    Unlink, a CreateDir, a RemoveDir -- becomes durable when the directory
//    holding the entry is fsynced afterwards (Directory::Sync on it, or a
//    peer's report through MarkDirectorySynced) or any syncfs follows. A
//    Rename becomes durable once both the source's and the destination's
//    parent directories were fsynced after it (or a syncfs); until then it
//    is undone as a whole.
//  * A file's data becomes durable with WriteFile(sync=true) or a later
//    syncfs. Data is all or nothing (a WriteFile is one write of a new
//    file): on power loss a file whose data was not durable is truncated to
//    0 bytes, through whichever of its links survive.
//  * Directory::SyncFileSystem makes everything durable, including what the
//    peer (the Env wrapper of the WAL and manifest) tracks: the syncfs hook
//    tells it so.
//  * Power loss undoes the non-durable changes newest first: a created file
//    or link is unlinked, an unlinked entry is linked back (the wrapper
//    keeps the inode alive with a link in its shadow directory), a created
//    directory is removed with everything below it, a removed directory is
//    created again (empty; the unlinks of its entries restore them), a
//    rename is renamed back. A change is undone at the path its target has
//    now, i.e. through the durable renames that followed it.
//
// Simplifications (where a real file system may differ):
//  * Everything on disk when the wrapper is built (or after a
//    SimulatePowerLoss) counts as durable.
//  * One outcome is chosen per crash: the most pessimistic one (nothing
//    undurable survives). Real disks may keep some of it; the engine must
//    cope with both, so this is the harder case for data, though not every
//    intermediate state is produced.
//  * A rename over an existing destination is passed through, but the
//    replaced destination is not restored by power loss.
//  * Changes made through a Directory opened before its directory was
//    renamed are attributed to its current path (renames are tracked), but
//    changes made to the tree by anything other than this wrapper are not.
//  * File metadata (mode, times) is not modelled; link counts seen through
//    Stat include the wrapper's shadow links.
//
// Thread-safe. SimulatePowerLoss() requires that no other call runs
// concurrently and that no Directory obtained from the wrapper is used
// afterwards (the DB using it must have been deleted).
#ifndef DELSM_TESTING_POWER_LOSS_FILE_SYSTEM_H_
#define DELSM_TESTING_POWER_LOSS_FILE_SYSTEM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fs/file_system.h"

namespace leveldb {

class PowerLossFileSystem : public FileSystem {
 public:
  // `base` is not owned and must outlive this object. `shadow_dir` must be
  // on the same file system as everything the wrapper is used on (hard
  // links into it must work) and outside the database; it is created if
  // missing and must not be used by anyone else.
  PowerLossFileSystem(FileSystem* base, std::string shadow_dir);
  ~PowerLossFileSystem() override;

  PowerLossFileSystem(const PowerLossFileSystem&) = delete;
  PowerLossFileSystem& operator=(const PowerLossFileSystem&) = delete;

  // Called (without the wrapper's lock held) after each successful
  // SyncFileSystem, so that a peer wrapper marks its own state durable.
  void SetSyncfsHook(std::function<void()> hook);
  // Called after each successful Directory::Sync with the directory's path.
  void SetDirectorySyncHook(std::function<void(const std::string&)> hook);

  // Peers report a syncfs or an fsync of directory `path` they observed.
  void MarkEverythingDurable();
  void MarkDirectorySynced(const std::string& path);

  // From now until SimulatePowerLoss(), every call that would change the
  // disk or sync it fails with IOError("power is off") and reaches nothing;
  // reads still pass through. Lets a test stop the disk at an arbitrary
  // moment while the database is still running.
  void CutPower();
  bool PowerIsOff() const;

  // Roll back everything not durable (see the file comment), empty the
  // shadow directory and turn the power on again; afterwards everything on
  // disk counts as durable. Returns the first error met while rolling back
  // (the rollback continues past errors).
  Status SimulatePowerLoss();

  // Changes that power loss would undo right now (for tests of the model).
  size_t PendingChanges() const;

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override;
  Status CreateDir(const std::string& path, bool ok_if_exists) override;
  Status RemoveDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  bool Exists(const std::string& path) override;

 private:
  friend class PowerLossDirectory;

  enum class Kind { kCreateFile, kLink, kUnlink, kMkdir, kRmdir, kRename };
  struct Change {
    uint64_t seq;  // order of recording, never reused
    Kind kind;
    std::string path;          // the entry changed (kRename: the source)
    std::string target;        // kRename: the destination
    std::string shadow;        // kUnlink: where the inode is kept alive
    bool from_synced = false;  // kRename: source parent fsynced since
    bool to_synced = false;    // kRename: destination parent fsynced since
    bool durable = false;
    bool undone = false;
  };
  struct RenameEvent {
    uint64_t seq;
    std::string from, to;
  };

  // Used by PowerLossDirectory. `opened_seq` is rename_seq_ when the
  // directory was opened; returns its path now.
  std::string CurrentPath(const std::string& opened_path,
                          uint64_t opened_seq) const;
  Status PowerOffError(const std::string& path) const;
  std::string NewShadowName(const char* prefix);
  // Appends a change (`target` for kRename, `shadow` for kUnlink); returns
  // its sequence number. mu_ held.
  uint64_t Record(Kind kind, std::string path, std::string target = "",
                  std::string shadow = "");
  // Marks the entry changes in directory `dir` (its current path) recorded
  // before sequence `upto` durable; mu_ held.
  void MarkSyncedLocked(const std::string& dir, uint64_t upto);
  // Marks everything recorded before `upto` durable; mu_ held.
  void MarkAllDurableLocked(uint64_t upto);
  // `path` as it is now after the renames in changes_ after index `i`
  // that are still in effect.
  std::string Translate(std::string path, size_t i) const;
  // Drops the log's prefix of durable changes and the shadow links of
  // durable unlinks; mu_ held.
  void DropDurableLocked();
  // Keeps the first model error (a shadow link that could not be made);
  // SimulatePowerLoss reports it, since its rollback may be incomplete.
  void NoteModelError(const Status& s);

  FileSystem* const base_;
  const std::string shadow_dir_;

  // Guards the model. Held to record a change, not across the wrapped
  // call: a change is recorded once it took effect, so changes the engine
  // orders (one after another's return) are logged in that order, and
  // concurrent ones touch unrelated entries and commute.
  mutable std::mutex mu_;
  bool power_off_ = false;       // guarded by mu_
  uint64_t shadow_counter_ = 0;  // guarded by mu_
  uint64_t next_seq_ = 1;        // guarded by mu_
  Status model_error_;           // guarded by mu_
  std::vector<Change> changes_;  // guarded by mu_; oldest first
  // A shadow link of a file whose data is not durable yet; `seq` is that of
  // the file's creation record.
  struct VolatileData {
    uint64_t seq;
    std::string shadow;
  };
  std::vector<VolatileData> volatile_data_;  // guarded by mu_
  // Every rename ever made through this wrapper (never cleared), for
  // Directory objects opened before one. Guarded by mu_.
  std::vector<RenameEvent> renames_;
  uint64_t rename_seq_ = 0;                               // guarded by mu_
  std::function<void()> syncfs_hook_;                     // set before use
  std::function<void(const std::string&)> dirsync_hook_;  // set before use
};

}  // namespace leveldb

#endif  // DELSM_TESTING_POWER_LOSS_FILE_SYSTEM_H_
