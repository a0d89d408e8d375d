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
    FaultDecision d = fs_->Decide(FsOp::kOpen, p);
    if (d.fail) return d.status;
    d = fs_->Decide(FsOp::kWrite, p);
    if (!d.fail && sync) d = fs_->Decide(FsOp::kFsync, p);
    if (!d.fail) return base_->WriteFile(name, data, sync);
    Slice left = data;
    if (d.effect == FaultEffect::kNothing) return d.status;
    if (d.effect == FaultEffect::kPartial) {
      left = Slice(data.data(), data.size() / 2);
    }
    Status s = base_->WriteFile(name, left, /*sync=*/false);
    return s.ok() ? d.status : s;
  }

  Status ReadFile(const std::string& name, std::string* contents) override {
    const FaultDecision d = fs_->Decide(FsOp::kOpen, Join(name));
    if (d.fail) return d.status;
    return base_->ReadFile(name, contents);
  }

  Status ReadFileAt(const std::string& name, uint64_t offset, size_t n,
                    std::string* contents) override {
    const FaultDecision d = fs_->Decide(FsOp::kOpen, Join(name));
    if (d.fail) return d.status;
    return base_->ReadFileAt(name, offset, n, contents);
  }

  Status OpenFile(const std::string& name,
                  std::unique_ptr<ReadOnlyFile>* result) override {
    const FaultDecision d = fs_->Decide(FsOp::kOpen, Join(name));
    if (d.fail) return d.status;
    return base_->OpenFile(name, result);
  }

  Status LinkFromAs(Directory* source, const std::string& name,
                    const std::string& new_name) override {
    const FaultDecision d = fs_->Decide(FsOp::kLink, Join(new_name));
    if (d.fail) return d.status;
    // The wrapped directory only knows its own kind of source.
    auto* wrapped = dynamic_cast<FaultDirectory*>(source);
    return base_->LinkFromAs(wrapped != nullptr ? wrapped->base() : source,
                             name, new_name);
  }

  Status Unlink(const std::string& name) override {
    const FaultDecision d = fs_->Decide(FsOp::kUnlink, Join(name));
    if (d.fail) return d.status;
    return base_->Unlink(name);
  }

  Status Stat(const std::string& name, KvFileInfo* info) override {
    return base_->Stat(name, info);
  }

  Status List(std::vector<std::string>* names) override {
    const FaultDecision d = fs_->Decide(FsOp::kReaddir, path());
    if (d.fail) return d.status;
    return base_->List(names);
  }

  Status Sync() override {
    const FaultDecision d = fs_->Decide(FsOp::kFsync, path());
    if (d.fail) return d.status;
    return base_->Sync();
  }

  Status SyncFileSystem() override {
    const FaultDecision d = fs_->Decide(FsOp::kSyncfs, path());
    if (d.fail) return d.status;
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
    : base_(base) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

Status FaultInjectionFileSystem::OpenDirectory(
    const std::string& path, std::unique_ptr<Directory>* result) {
  result->reset();
  const FaultDecision d = Decide(FsOp::kOpen, path);
  if (d.fail) return d.status;
  std::unique_ptr<Directory> dir;
  Status s = base_->OpenDirectory(path, &dir);
  if (!s.ok()) return s;
  result->reset(new FaultDirectory(this, std::move(dir)));
  return Status::OK();
}

Status FaultInjectionFileSystem::CreateDir(const std::string& path,
                                           bool ok_if_exists) {
  const FaultDecision d = Decide(FsOp::kMkdir, path);
  if (d.fail) return d.status;
  return base_->CreateDir(path, ok_if_exists);
}

Status FaultInjectionFileSystem::RemoveDir(const std::string& path) {
  const FaultDecision d = Decide(FsOp::kRmdir, path);
  if (d.fail) return d.status;
  return base_->RemoveDir(path);
}

Status FaultInjectionFileSystem::Rename(const std::string& from,
                                        const std::string& to) {
  const FaultDecision d = Decide(FsOp::kRename, from + " -> " + to);
  if (d.fail) return d.status;
  return base_->Rename(from, to);
}

Status FaultInjectionFileSystem::Probe(const std::string& path, bool* exists) {
  return base_->Probe(path, exists);
}

Status FaultInjectionFileSystem::GetSpace(const std::string& path,
                                          FileSystemSpace* space) {
  return base_->GetSpace(path, space);
}

}  // namespace leveldb
