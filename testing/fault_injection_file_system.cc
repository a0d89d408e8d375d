#include "testing/fault_injection_file_system.h"

#include "fs/posix_file_system.h"

namespace leveldb {

namespace {

// A Directory whose calls are counted (and possibly failed) by the owning
// FaultInjectionFileSystem before they reach the wrapped directory.
class FaultDirectory final : public Directory {
 public:
  FaultDirectory(FaultInjectionFileSystem* fs, std::unique_ptr<Directory> base)
      : fs_(fs), base_(std::move(base)) {}

  Directory* base() const { return base_.get(); }

  const std::string& path() const override { return base_->path(); }

  Status WriteFile(const std::string& name, const Slice& data,
                   bool sync) override {
    const std::string p = Join(name);
    Status s = fs_->Check(FsOp::kOpen, p);
    if (s.ok()) s = fs_->Check(FsOp::kWrite, p);
    if (s.ok() && sync) s = fs_->Check(FsOp::kFsync, p);
    if (!s.ok()) return s;
    return base_->WriteFile(name, data, sync);
  }

  Status ReadFile(const std::string& name, std::string* contents) override {
    Status s = fs_->Check(FsOp::kOpen, Join(name));
    if (!s.ok()) return s;
    return base_->ReadFile(name, contents);
  }

  Status ReadFileAt(const std::string& name, uint64_t offset, size_t n,
                    std::string* contents) override {
    Status s = fs_->Check(FsOp::kOpen, Join(name));
    if (!s.ok()) return s;
    return base_->ReadFileAt(name, offset, n, contents);
  }

  Status LinkFrom(Directory* source, const std::string& name) override {
    Status s = fs_->Check(FsOp::kLink, Join(name));
    if (!s.ok()) return s;
    // The wrapped directory only knows its own kind of source.
    auto* wrapped = dynamic_cast<FaultDirectory*>(source);
    return base_->LinkFrom(wrapped != nullptr ? wrapped->base() : source, name);
  }

  Status Unlink(const std::string& name) override {
    Status s = fs_->Check(FsOp::kUnlink, Join(name));
    if (!s.ok()) return s;
    return base_->Unlink(name);
  }

  Status Stat(const std::string& name, KvFileInfo* info) override {
    return base_->Stat(name, info);
  }

  Status List(std::vector<std::string>* names) override {
    Status s = fs_->Check(FsOp::kReaddir, path());
    if (!s.ok()) return s;
    return base_->List(names);
  }

  Status Sync() override {
    Status s = fs_->Check(FsOp::kFsync, path());
    if (!s.ok()) return s;
    return base_->Sync();
  }

  Status SyncFileSystem() override {
    Status s = fs_->Check(FsOp::kSyncfs, path());
    if (!s.ok()) return s;
    return base_->SyncFileSystem();
  }

 private:
  std::string Join(const std::string& name) const {
    return base_->path() + "/" + name;
  }

  FaultInjectionFileSystem* const fs_;
  const std::unique_ptr<Directory> base_;
};

}  // namespace

const char* FsOpName(FsOp op) {
  switch (op) {
    case FsOp::kOpen:
      return "open";
    case FsOp::kWrite:
      return "write";
    case FsOp::kFsync:
      return "fsync";
    case FsOp::kSyncfs:
      return "syncfs";
    case FsOp::kLink:
      return "link";
    case FsOp::kUnlink:
      return "unlink";
    case FsOp::kRename:
      return "rename";
    case FsOp::kMkdir:
      return "mkdir";
    case FsOp::kRmdir:
      return "rmdir";
    case FsOp::kReaddir:
      return "readdir";
  }
  return "unknown";
}

FaultInjectionFileSystem::FaultInjectionFileSystem(FileSystem* base)
    : base_(base) {
  ResetCounts();
}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

void FaultInjectionFileSystem::FailNth(FsOp op, uint64_t n, int err) {
  std::lock_guard<std::mutex> l(mu_);
  armed_op_ = op;
  remaining_ = n;
  armed_errno_ = err;
  fired_ = false;
}

bool FaultInjectionFileSystem::Fired() const {
  std::lock_guard<std::mutex> l(mu_);
  return fired_;
}

uint64_t FaultInjectionFileSystem::Count(FsOp op) const {
  return counts_[static_cast<int>(op)].load(std::memory_order_relaxed);
}

void FaultInjectionFileSystem::ResetCounts() {
  for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
}

Status FaultInjectionFileSystem::Check(FsOp op, const std::string& path) {
  counts_[static_cast<int>(op)].fetch_add(1, std::memory_order_relaxed);
  int err = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (remaining_ == 0 || armed_op_ != op) return Status::OK();
    if (--remaining_ != 0) return Status::OK();
    fired_ = true;
    err = armed_errno_;
  }
  // ENOENT is reported as a real open/unlink would report it: NotFound.
  return PosixError(path, err, /*enoent_is_not_found=*/true);
}

Status FaultInjectionFileSystem::OpenDirectory(
    const std::string& path, std::unique_ptr<Directory>* result) {
  result->reset();
  Status s = Check(FsOp::kOpen, path);
  if (!s.ok()) return s;
  std::unique_ptr<Directory> dir;
  s = base_->OpenDirectory(path, &dir);
  if (!s.ok()) return s;
  result->reset(new FaultDirectory(this, std::move(dir)));
  return Status::OK();
}

Status FaultInjectionFileSystem::CreateDir(const std::string& path,
                                           bool ok_if_exists) {
  Status s = Check(FsOp::kMkdir, path);
  if (!s.ok()) return s;
  return base_->CreateDir(path, ok_if_exists);
}

Status FaultInjectionFileSystem::RemoveDir(const std::string& path) {
  Status s = Check(FsOp::kRmdir, path);
  if (!s.ok()) return s;
  return base_->RemoveDir(path);
}

Status FaultInjectionFileSystem::Rename(const std::string& from,
                                        const std::string& to) {
  Status s = Check(FsOp::kRename, from + " -> " + to);
  if (!s.ok()) return s;
  return base_->Rename(from, to);
}

bool FaultInjectionFileSystem::Exists(const std::string& path) {
  return base_->Exists(path);
}

}  // namespace leveldb
