// An Env wrapper for the files LevelDB's own layer writes (WAL, MANIFEST,
// CURRENT and their temporaries), with two independent test features:
//
// Fault injection (testing/fault_plan.h). Calls are counted by kind; an
// armed fault fails the nth call of a kind (or every call from the nth on)
// with a chosen errno, as an IOError naming the path and the errno text.
// What the failing call still does depends on the fault's effect:
//   kNothing  nothing (the default);
//   kPartial  Append: the first half of the data reaches the file;
//   kDone     Append: all of it does; Sync: the data is handed to the
//             kernel but not made durable (data written, fsync failed);
//             Close: the file is closed.
//
// Power loss (testing/power_loss_state.h holds the model). A WritableFile's
// data is durable up to its last successful Sync(); a syncfs reported by a
// peer (MarkAllDurable) makes durable what had been handed to the kernel
// (through Flush, Sync or Close). The Env interface has no directory fsync,
// so the wrapper assumes what the POSIX Env (util/env_posix.cc) does
// implicitly: the first Sync of each file it opened for writing fsyncs the
// file's directory (set_first_sync_syncs_dir), and RenameFile fsyncs the
// directories of both names after renaming (set_rename_syncs_dir). A file
// created over an existing one counts as removing the old one and creating
// a new one.
//
// Simplifications: files the info log writes (NewLogger) are neither
// failed nor tracked; the Logger, locks, threads and clock are passed
// straight through.
//
// Thread-safe. SimulatePowerLoss() must not run concurrently with any
// other call, and the DB using the wrapper must have been deleted.
#ifndef DELSM_TESTING_FAULT_INJECTION_ENV_H_
#define DELSM_TESTING_FAULT_INJECTION_ENV_H_

#include <cstdint>
#include <string>

#include "leveldb/env.h"
#include "leveldb/status.h"
#include "testing/fault_plan.h"
#include "testing/power_loss_state.h"

namespace leveldb {

// Kinds of call that can be made to fail:
//   kOpen    NewSequentialFile, NewRandomAccessFile, NewWritableFile,
//            NewAppendableFile
//   kAppend  WritableFile::Append    kFlush   WritableFile::Flush
//   kSync    WritableFile::Sync      kClose   WritableFile::Close
//   kRename  RenameFile              kRemove  RemoveFile
enum class EnvOp {
  kOpen = 0,
  kAppend,
  kFlush,
  kSync,
  kClose,
  kRename,
  kRemove
};
constexpr int kNumEnvOps = static_cast<int>(EnvOp::kRemove) + 1;

const char* EnvOpName(EnvOp op);

class FaultInjectionEnv : public EnvWrapper,
                          public FaultPlan<EnvOp>,
                          public PowerLossState {
 public:
  // `base` is not owned and must outlive this object and every file it
  // returned. `shadow_dir` must be on the same file system as the files the
  // wrapper is used on and used by nobody else; it is created if missing.
  FaultInjectionEnv(Env* base, std::string shadow_dir);
  ~FaultInjectionEnv() override;

  FaultInjectionEnv(const FaultInjectionEnv&) = delete;
  FaultInjectionEnv& operator=(const FaultInjectionEnv&) = delete;

  // The implicit directory fsyncs of the wrapped Env (see the file
  // comment). Both default to true, as util/env_posix.cc does; a test
  // modelling an Env without them turns them off. Set before use.
  void set_first_sync_syncs_dir(bool v) { first_sync_syncs_dir_ = v; }
  void set_rename_syncs_dir(bool v) { rename_syncs_dir_ = v; }

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

  // Opens a tracked writable file (truncating or appending).
  Status OpenWritable(const std::string& f, bool append, WritableFile** r);

  bool first_sync_syncs_dir_ = true;  // set before use
  bool rename_syncs_dir_ = true;      // set before use
};

}  // namespace leveldb

#endif  // DELSM_TESTING_FAULT_INJECTION_ENV_H_
