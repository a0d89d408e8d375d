#include "testing/fault_injection_env.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "fs/posix_file_system.h"

namespace leveldb {

// A WritableFile whose calls the owning env counts, may fail, and reports
// to the power-loss model.
class FaultInjectionWritableFile final : public WritableFile {
 public:
  FaultInjectionWritableFile(FaultInjectionEnv* env, WritableFile* base,
                             uint64_t data_id, std::string path)
      : env_(env), base_(base), data_id_(data_id), path_(std::move(path)) {}
  ~FaultInjectionWritableFile() override { delete base_; }

  Status Append(const Slice& data) override {
    if (env_->PowerCutBefore()) return env_->PowerOffError(path_);
    const FaultDecision d = env_->Decide(EnvOp::kAppend, path_);
    Slice part = data;
    if (d.fail) {
      if (d.effect == FaultEffect::kNothing) return d.status;
      if (d.effect == FaultEffect::kPartial) {
        part = Slice(data.data(), data.size() / 2);
      }
    }
    Status s = base_->Append(part);
    // A partial write is real: push it to the file as the kernel would
    // have it (WritableFile buffers).
    if (s.ok() && d.fail) s = base_->Flush();
    if (s.ok()) env_->DataAppended(data_id_, part.size());
    if (d.fail) env_->DataFlushed(data_id_);
    return d.fail ? d.status : s;
  }

  Status Close() override {
    const FaultDecision d = env_->Decide(EnvOp::kClose, path_);
    if (d.fail && d.effect == FaultEffect::kNothing) return d.status;
    // Always release the descriptor; after a power cut the rollback cuts
    // whatever this writes.
    Status s = base_->Close();
    if (s.ok()) env_->DataClosed(data_id_);
    return d.fail ? d.status : s;
  }

  Status Flush() override {
    if (env_->PowerCutBefore()) return env_->PowerOffError(path_);
    const FaultDecision d = env_->Decide(EnvOp::kFlush, path_);
    if (d.fail) return d.status;
    Status s = base_->Flush();
    if (s.ok()) env_->DataFlushed(data_id_);
    return s;
  }

  Status Sync() override {
    if (env_->PowerCutBefore()) return env_->PowerOffError(path_);
    const FaultDecision d = env_->Decide(EnvOp::kSync, path_);
    if (d.fail) {
      // Written but not durable: the kernel has the data, the disk may not.
      if (d.effect != FaultEffect::kNothing && base_->Flush().ok()) {
        env_->DataFlushed(data_id_);
      }
      return d.status;
    }
    const uint64_t upto = env_->Now();
    Status s = env_->real_syncs() ? base_->Sync() : base_->Flush();
    if (!s.ok()) return s;
    env_->DataSynced(data_id_);
    if (!dir_synced_ && env_->first_sync_syncs_dir_) {
      dir_synced_ = true;
      const std::string dir = ParentOfPath(path_);
      env_->MarkDirectorySynced(dir, upto);
      env_->RunDirectorySyncHook(dir);
    }
    return s;
  }

 private:
  FaultInjectionEnv* const env_;
  WritableFile* const base_;
  const uint64_t data_id_;
  const std::string path_;   // as opened
  bool dir_synced_ = false;  // its first Sync happened; WritableFile is
                             // used by one thread at a time
};

const char* EnvOpName(EnvOp op) {
  switch (op) {
    case EnvOp::kOpen:
      return "open";
    case EnvOp::kAppend:
      return "append";
    case EnvOp::kFlush:
      return "flush";
    case EnvOp::kSync:
      return "sync";
    case EnvOp::kClose:
      return "close";
    case EnvOp::kRename:
      return "rename";
    case EnvOp::kRemove:
      return "remove";
  }
  return "unknown";
}

FaultInjectionEnv::FaultInjectionEnv(Env* base, std::string shadow_dir)
    : EnvWrapper(base), PowerLossState(std::move(shadow_dir)) {}

FaultInjectionEnv::~FaultInjectionEnv() = default;

Status FaultInjectionEnv::NewSequentialFile(const std::string& f,
                                            SequentialFile** r) {
  *r = nullptr;
  const FaultDecision d = Decide(EnvOp::kOpen, f);
  if (d.fail) return d.status;
  return target()->NewSequentialFile(f, r);
}

Status FaultInjectionEnv::NewRandomAccessFile(const std::string& f,
                                              RandomAccessFile** r) {
  *r = nullptr;
  const FaultDecision d = Decide(EnvOp::kOpen, f);
  if (d.fail) return d.status;
  return target()->NewRandomAccessFile(f, r);
}

Status FaultInjectionEnv::NewWritableFile(const std::string& f,
                                          WritableFile** r) {
  return OpenWritable(f, /*append=*/false, r);
}

Status FaultInjectionEnv::NewAppendableFile(const std::string& f,
                                            WritableFile** r) {
  return OpenWritable(f, /*append=*/true, r);
}

Status FaultInjectionEnv::OpenWritable(const std::string& f, bool append,
                                       WritableFile** r) {
  *r = nullptr;
  const FaultDecision d = Decide(EnvOp::kOpen, f);
  if (d.fail) return d.status;
  if (PowerCutBefore()) return PowerOffError(f);
  struct stat st;
  const bool existed = stat(f.c_str(), &st) == 0;
  std::string replaced;
  if (existed && !append) {
    // Truncating a file loses its old contents for good only once the new
    // ones are durable: keep the old inode aside and start a new one.
    Status s = SaveForRemoval(f, &replaced);
    if (!s.ok()) return s;
    if (unlink(f.c_str()) != 0) {
      s = PosixError(f, errno, /*enoent_is_not_found=*/true);
      Unsave(replaced);
      return s;
    }
  }
  WritableFile* base = nullptr;
  Status s = append ? target()->NewAppendableFile(f, &base)
                    : target()->NewWritableFile(f, &base);
  if (!s.ok()) {
    if (!replaced.empty() && link(replaced.c_str(), f.c_str()) != 0) {
      NoteModelError(PosixError(replaced + " -> " + f, errno, false));
    }
    Unsave(replaced);
    return s;
  }
  if (!replaced.empty()) RecordRemove(f, replaced);
  if (!existed || !append) RecordCreate(f);
  // What was there before the wrapper knew the file counts as durable.
  const uint64_t before =
      existed && append ? static_cast<uint64_t>(st.st_size) : 0;
  const uint64_t id = TrackData(f, before, before);
  *r = new FaultInjectionWritableFile(this, base, id, f);
  return Status::OK();
}

Status FaultInjectionEnv::RemoveFile(const std::string& f) {
  const FaultDecision d = Decide(EnvOp::kRemove, f);
  if (d.fail) return d.status;
  if (PowerCutBefore()) return PowerOffError(f);
  std::string shadow;
  Status s = SaveForRemoval(f, &shadow);
  if (!s.ok()) {
    // Nothing to keep (it does not exist): let the real call report it.
    return s.IsNotFound() ? target()->RemoveFile(f) : s;
  }
  s = target()->RemoveFile(f);
  if (!s.ok()) {
    Unsave(shadow);
    return s;
  }
  RecordRemove(f, shadow);
  return s;
}

Status FaultInjectionEnv::RenameFile(const std::string& src,
                                     const std::string& target_name) {
  const FaultDecision d = Decide(EnvOp::kRename, src + " -> " + target_name);
  if (d.fail) return d.status;
  if (PowerCutBefore()) return PowerOffError(src);
  std::string replaced;
  struct stat st;
  if (stat(target_name.c_str(), &st) == 0) {
    Status s = SaveForRemoval(target_name, &replaced);
    if (!s.ok()) return s;
  }
  Status s = target()->RenameFile(src, target_name);
  if (!s.ok()) {
    Unsave(replaced);
    return s;
  }
  RecordRename(src, target_name, replaced);
  if (!rename_syncs_dir_) return s;
  const std::string to_dir = ParentOfPath(target_name);
  const std::string from_dir = ParentOfPath(src);
  MarkDirectorySynced(to_dir);
  RunDirectorySyncHook(to_dir);
  if (from_dir != to_dir) {
    MarkDirectorySynced(from_dir);
    RunDirectorySyncHook(from_dir);
  }
  return s;
}

Status FaultInjectionEnv::CreateDir(const std::string& d) {
  if (PowerCutBefore()) return PowerOffError(d);
  struct stat st;
  const bool existed = stat(d.c_str(), &st) == 0;
  Status s = target()->CreateDir(d);
  if (s.ok() && !existed) RecordMkdir(d);
  return s;
}

Status FaultInjectionEnv::RemoveDir(const std::string& d) {
  if (PowerCutBefore()) return PowerOffError(d);
  Status s = target()->RemoveDir(d);
  if (s.ok()) RecordRmdir(d);
  return s;
}

}  // namespace leveldb
