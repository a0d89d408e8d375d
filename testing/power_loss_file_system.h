// A FileSystem wrapper for power-loss tests. Every call passes through to a
// real file system and is reported to the power-loss model
// (testing/power_loss_state.h, shared with the Env wrapper of the WAL and
// manifest); SimulatePowerLoss() puts the disk back into a state a power
// failure could have left.
//
// What the SST-directory calls mean to the model:
//  * WriteFile creates an entry; its data is durable with sync=true, else
//    only after a later syncfs (a KV or meta file is written once, so until
//    then a crash may leave it empty, zero-filled or half written).
//  * LinkFromAs (LinkFrom) creates an entry, Unlink removes one, CreateDir and
//  RemoveDir
//    create and remove a directory, Rename renames (a directory, in
//    practice).
//  * Directory::Sync makes the entry changes in that directory durable;
//    Directory::SyncFileSystem makes everything durable, including what the
//    peer tracks (SetSyncfsHook tells it so).
//
// Changes made through a Directory opened before its directory was renamed
// are attributed to its current path (renames are tracked); changes made to
// the tree by anything other than this wrapper are not.
//
// Thread-safe. SimulatePowerLoss() requires that no other call runs
// concurrently and that no Directory obtained from the wrapper is used
// afterwards (the DB using it must have been deleted).
#ifndef DELSM_TESTING_POWER_LOSS_FILE_SYSTEM_H_
#define DELSM_TESTING_POWER_LOSS_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fs/file_system.h"
#include "testing/power_loss_state.h"

namespace leveldb {

class PowerLossFileSystem : public FileSystem, public PowerLossState {
 public:
  // `base` is not owned and must outlive this object. `shadow_dir` must be
  // on the same file system as everything the wrapper is used on (hard
  // links into it must work) and outside the database; it is created if
  // missing and must not be used by anyone else.
  PowerLossFileSystem(FileSystem* base, std::string shadow_dir);
  ~PowerLossFileSystem() override;

  PowerLossFileSystem(const PowerLossFileSystem&) = delete;
  PowerLossFileSystem& operator=(const PowerLossFileSystem&) = delete;

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override;
  Status CreateDir(const std::string& path, bool ok_if_exists) override;
  Status RemoveDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Probe(const std::string& path, bool* exists) override;
  Status GetSpace(const std::string& path, FileSystemSpace* space) override;

 private:
  friend class PowerLossDirectory;

  struct RenameEvent {
    uint64_t seq;
    std::string from, to;
  };

  // The path now of a directory opened as `opened_path` when rename_seq_
  // was `opened_seq`.
  std::string CurrentPath(const std::string& opened_path,
                          uint64_t opened_seq) const;

  FileSystem* const base_;

  mutable std::mutex mu_;
  // Every rename made through this wrapper (never cleared), for Directory
  // objects opened before one. Guarded by mu_.
  std::vector<RenameEvent> renames_;
  uint64_t rename_seq_ = 0;  // guarded by mu_
};

}  // namespace leveldb

#endif  // DELSM_TESTING_POWER_LOSS_FILE_SYSTEM_H_
