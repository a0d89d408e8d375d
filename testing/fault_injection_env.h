// An Env wrapper for the files LevelDB's own layer writes (WAL, MANIFEST,
// CURRENT and their temporaries), with two independent test features:
//
// Fault injection. Calls are counted by kind and the Nth call of one kind
// can be made to fail with a chosen errno, as an IOError naming the path
// and the errno text; the failing call does nothing.
//
// Power loss. The wrapper records what is not yet durable and
// SimulatePowerLoss() rolls it back, as a power failure could:
//  * A WritableFile's data is durable up to the length it had at its last
//    successful Sync(); on power loss the file is cut back to that length.
//    A syncfs reported by a peer (MarkEverythingDurable) makes durable what
//    had been handed to the kernel (written through Flush, Sync or Close);
//    data still in the file object's buffer is not covered.
//  * A directory entry change -- a file created (NewWritableFile; one that
//    replaces an existing file counts as removing it and creating a new
//    one), RemoveFile, RenameFile, CreateDir, RemoveDir -- is durable once
//    its directory was fsynced afterwards, or a syncfs followed. A rename
//    needs both directories (the same one, in practice). The Env interface
//    has no directory fsync, so the wrapper assumes what the POSIX Env
//    (util/env_posix.cc) does implicitly: the first Sync of each file it
//    opened for writing fsyncs the file's directory before the data
//    (set_first_sync_syncs_dir), and RenameFile fsyncs the directories of
//    both names after renaming (set_rename_syncs_dir). A peer (the
//    SST-directory file system wrapper) may report fsyncs of directories it
//    observed (MarkDirectorySynced).
//  * Power loss first cuts every written file back to its durable length,
//    then undoes the entry changes newest first: a created file is removed,
//    a removed or replaced one is put back (the wrapper keeps it alive with
//    a hard link in its shadow directory), a rename is reversed.
//
// Simplifications: everything on disk when the wrapper is built (or after
// SimulatePowerLoss) counts as durable; of the outcomes a crash allows, the
// most pessimistic one is produced; files the info log writes (NewLogger)
// are neither failed nor tracked; the Logger, locks, threads and clock are
// passed straight through.
//
// Thread-safe. SimulatePowerLoss() must not run concurrently with any
// other call, and the DB using the wrapper must have been deleted.
#ifndef DELSM_TESTING_FAULT_INJECTION_ENV_H_
#define DELSM_TESTING_FAULT_INJECTION_ENV_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "leveldb/env.h"
#include "leveldb/status.h"

namespace leveldb {

// Kinds of call that can be made to fail:
//   kOpen    NewSequentialFile, NewRandomAccessFile, NewWritableFile,
//            NewAppendableFile
//   kAppend  WritableFile::Append    kFlush   WritableFile::Flush
//   kSync    WritableFile::Sync      kRename  RenameFile
//   kRemove  RemoveFile
enum class EnvOp { kOpen = 0, kAppend, kFlush, kSync, kRename, kRemove };
constexpr int kNumEnvOps = static_cast<int>(EnvOp::kRemove) + 1;

const char* EnvOpName(EnvOp op);

class FaultInjectionEnv : public EnvWrapper {
 public:
  // `base` is not owned and must outlive this object and every file it
  // returned. `shadow_dir` must be on the same file system as the files the
  // wrapper is used on and used by nobody else; it is created if missing.
  FaultInjectionEnv(Env* base, std::string shadow_dir);
  ~FaultInjectionEnv() override;

  FaultInjectionEnv(const FaultInjectionEnv&) = delete;
  FaultInjectionEnv& operator=(const FaultInjectionEnv&) = delete;

  // --- Fault injection.
  // From now on the nth call (n >= 1) of kind `op` fails with errno `err`;
  // later ones succeed. n == 0 disarms. Replaces any earlier arming.
  void FailNth(EnvOp op, uint64_t n, int err);
  void Disarm() { FailNth(EnvOp::kOpen, 0, 0); }
  bool Fired() const;
  // Calls of kind `op` since construction or ResetCounts(), failed ones
  // included.
  uint64_t Count(EnvOp op) const;
  void ResetCounts();

  // --- Power loss.
  // The implicit directory fsyncs of the wrapped Env (see the file
  // comment). Both default to true, as util/env_posix.cc does; a test
  // modelling an Env without them turns them off. Set before use.
  void set_first_sync_syncs_dir(bool v) { first_sync_syncs_dir_ = v; }
  void set_rename_syncs_dir(bool v) { rename_syncs_dir_ = v; }
  // Called (without the wrapper's lock) with the directory's path whenever
  // the model decides a directory was fsynced.
  void SetDirectorySyncHook(std::function<void(const std::string&)> hook);
  // Peers report a syncfs, or an fsync of directory `path`.
  void MarkEverythingDurable();
  void MarkDirectorySynced(const std::string& path);
  // Until SimulatePowerLoss(), every call that would change or sync a file
  // fails with IOError("power is off") and reaches nothing (Close still
  // releases the descriptor; what it writes is cut off by the rollback).
  void CutPower();
  bool PowerIsOff() const;
  // Changes power loss would undo right now: entry changes, and files with
  // bytes beyond their durable length.
  size_t PendingChanges() const;
  // Roll back what is not durable, empty the shadow directory, turn the
  // power on. Returns the first error met (the rollback goes on past it).
  Status SimulatePowerLoss();

  // --- Env.
  Status NewSequentialFile(const std::string& f, SequentialFile** r) override;
  Status NewRandomAccessFile(const std::string& f,
                             RandomAccessFile** r) override;
  Status NewWritableFile(const std::string& f, WritableFile** r) override;
  Status NewAppendableFile(const std::string& f, WritableFile** r) override;
  Status RemoveFile(const std::string& f) override;
  Status RenameFile(const std::string& src, const std::string& target) override;
  Status CreateDir(const std::string& d) override;
  Status RemoveDir(const std::string& d) override;

 private:
  friend class FaultInjectionWritableFile;

  // What the wrapper knows of one file written through it. Fields guarded
  // by mu_.
  struct Node {
    std::string path;         // where the inode is now (maybe a shadow link)
    uint64_t size = 0;        // bytes appended
    uint64_t flushed = 0;     // bytes handed to the kernel
    uint64_t synced = 0;      // bytes durable
    bool dir_synced = false;  // its first Sync happened
  };
  enum class Kind { kCreate, kRemove, kRename, kMkdir, kRmdir };
  struct Change {
    uint64_t seq = 0;
    Kind kind = Kind::kCreate;
    std::string path;    // the entry changed (kRename: the source)
    std::string target;  // kRename: the destination
    // kRemove: the removed file's shadow link; kRename: the replaced
    // destination's, if there was one.
    std::string shadow;
    bool from_synced = false, to_synced = false;  // kRename
    bool durable = false;
  };

  // Counts a call of `op` on `path`; the injected error if it is the one.
  Status Check(EnvOp op, const std::string& path);
  Status PowerOffError(const std::string& path) const;
  // Opens a tracked writable file (truncating or appending); shared by
  // NewWritableFile and NewAppendableFile.
  Status OpenWritable(const std::string& f, bool append, WritableFile** r);
  // The following need mu_ held.
  std::string NewShadowName();
  void Record(Kind kind, std::string path, std::string target = "",
              std::string shadow = "");
  std::shared_ptr<Node> FindNode(const std::string& path);
  void MarkSyncedLocked(const std::string& dir, uint64_t upto);
  void DropDurableLocked();
  // Moves an existing `path` aside into the shadow directory (a hard link
  // for `keep_original`, else a rename) and points its node there.
  Status SaveAside(const std::string& path, bool keep_original,
                   std::string* shadow);
  // Runs the directory-sync hook for `dir`.
  void RunDirHook(const std::string& dir);

  const std::string shadow_dir_;
  bool first_sync_syncs_dir_ = true;  // set before use
  bool rename_syncs_dir_ = true;      // set before use

  std::atomic<uint64_t> counts_[kNumEnvOps];

  mutable std::mutex mu_;
  // The armed failure; remaining_ == 0: none. Guarded by mu_.
  EnvOp armed_op_ = EnvOp::kOpen;
  uint64_t remaining_ = 0;
  int armed_errno_ = 0;
  bool fired_ = false;
  // Power-loss state, guarded by mu_.
  bool power_off_ = false;
  uint64_t next_seq_ = 1;
  uint64_t shadow_counter_ = 0;
  Status model_error_;
  std::vector<Change> changes_;  // oldest first
  std::vector<std::shared_ptr<Node>> nodes_;
  std::function<void(const std::string&)> dirsync_hook_;
};

}  // namespace leveldb

#endif  // DELSM_TESTING_FAULT_INJECTION_ENV_H_
