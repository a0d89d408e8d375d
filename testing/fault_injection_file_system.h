// A FileSystem wrapper for fault-sweep tests: it counts the calls it passes
// to the wrapped file system by kind and fails the ones an armed fault
// (testing/fault_plan.h) names, with a chosen errno, as the system call
// would. By default a failing call does nothing (the wrapped file system is
// not called), which is what a caller of the POSIX implementation observes
// too: a failed WriteFile leaves no file behind. Other effects, for
// WriteFile only:
//   kPartial  a write fault leaves the file with the first half of the data
//             (a short write the implementation failed to clean up);
//   kDone     a write or fsync fault leaves the whole file, not synced
//             (data written, fsync failed).
// Thread-safe.
#ifndef DELSM_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
#define DELSM_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_

#include <memory>
#include <string>

#include "fs/file_system.h"
#include "testing/fault_plan.h"

namespace leveldb {

// The kinds of call that can be made to fail. Which calls count as which:
//   kOpen    OpenDirectory, ReadFile, ReadFileAt, and the create in WriteFile
//   kWrite   the write in WriteFile
//   kFsync   Directory::Sync, and the fsync of WriteFile(sync=true)
//   kSyncfs  Directory::SyncFileSystem
//   kLink    LinkFromAs        kUnlink  Unlink
//   kRename  Rename            kMkdir   CreateDir
//   kRmdir   RemoveDir         kReaddir List
// Stat and Probe (Exists) are never counted nor failed.
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

class FaultInjectionFileSystem : public FileSystem, public FaultPlan<FsOp> {
 public:
  // `base` is not owned and must outlive this object and its directories.
  explicit FaultInjectionFileSystem(FileSystem* base);
  ~FaultInjectionFileSystem() override;

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override;
  Status CreateDir(const std::string& path, bool ok_if_exists) override;
  Status RemoveDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Probe(const std::string& path, bool* exists) override;
  Status GetSpace(const std::string& path, FileSystemSpace* space) override;

 private:
  FileSystem* const base_;
};

}  // namespace leveldb

#endif  // DELSM_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
