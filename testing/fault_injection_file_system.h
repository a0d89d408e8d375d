// A FileSystem wrapper for fault-sweep tests: it counts the calls it passes
// to the wrapped file system by kind and can make the Nth call of one kind
// fail with a chosen errno, as the system call would. A failing call does
// nothing (the wrapped file system is not called), which is what a caller
// of the POSIX implementation observes too: a failed WriteFile leaves no
// file behind. Thread-safe.
#ifndef DELSM_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
#define DELSM_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "fs/file_system.h"

namespace leveldb {

// The kinds of call that can be made to fail. Which calls count as which:
//   kOpen    OpenDirectory, ReadFile, ReadFileAt, and the create in WriteFile
//   kWrite   the write in WriteFile
//   kFsync   Directory::Sync, and the fsync of WriteFile(sync=true)
//   kSyncfs  Directory::SyncFileSystem
//   kLink    LinkFrom          kUnlink  Unlink
//   kRename  Rename            kMkdir   CreateDir
//   kRmdir   RemoveDir         kReaddir List
// Stat and Exists are never counted nor failed.
enum class FsOp {
  kOpen = 0,
  kWrite,
  kFsync,
  kSyncfs,
  kLink,
  kUnlink,
  kRename,
  kMkdir,
  kRmdir,
  kReaddir,
};
constexpr int kNumFsOps = static_cast<int>(FsOp::kReaddir) + 1;

const char* FsOpName(FsOp op);

class FaultInjectionFileSystem : public FileSystem {
 public:
  // `base` is not owned and must outlive this object and its directories.
  explicit FaultInjectionFileSystem(FileSystem* base);
  ~FaultInjectionFileSystem() override;

  // From now on, the nth call of kind `op` (n >= 1, counted from this call)
  // fails with errno `err`; later calls succeed again. Replaces any earlier
  // arming. n == 0 disarms.
  void FailNth(FsOp op, uint64_t n, int err);
  void Disarm() { FailNth(FsOp::kOpen, 0, 0); }
  // True once the armed failure has been delivered.
  bool Fired() const;

  // Calls of kind `op` seen since construction or ResetCounts() (a failed
  // call counts).
  uint64_t Count(FsOp op) const;
  void ResetCounts();

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override;
  Status CreateDir(const std::string& path, bool ok_if_exists) override;
  Status RemoveDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  bool Exists(const std::string& path) override;

  // Counts one call of kind `op`; returns the injected error for `path` if
  // this is the call to fail, else OK. Used by this class's directories.
  Status Check(FsOp op, const std::string& path);

 private:
  FileSystem* const base_;
  std::atomic<uint64_t> counts_[kNumFsOps];

  mutable std::mutex mu_;
  // Guarded by mu_: the armed failure. remaining_ == 0 means none.
  FsOp armed_op_ = FsOp::kOpen;
  uint64_t remaining_ = 0;
  int armed_errno_ = 0;
  bool fired_ = false;
};

}  // namespace leveldb

#endif  // DELSM_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
