#include "testing/power_loss_file_system.h"

#include <utility>

namespace leveldb {

// A Directory whose changes are reported to the owning PowerLossFileSystem.
class PowerLossDirectory final : public Directory {
 public:
  PowerLossDirectory(PowerLossFileSystem* fs, std::unique_ptr<Directory> base,
                     uint64_t opened_seq)
      : fs_(fs), base_(std::move(base)), opened_seq_(opened_seq) {}

  Directory* base() const { return base_.get(); }

  const std::string& path() const override { return base_->path(); }

  Status WriteFile(const std::string& name, const Slice& data,
                   bool sync) override {
    if (fs_->PowerCutBefore()) return fs_->PowerOffError(Join(name));
    Status s = base_->WriteFile(name, data, sync && fs_->real_syncs());
    if (!s.ok()) return s;
    const std::string p = Now() + "/" + name;
    fs_->RecordCreate(p);
    if (!sync) {
      // The data may be lost: track the inode wherever its entries go.
      fs_->DataClosed(fs_->TrackData(p, 0, data.size()));
    }
    return s;
  }

  Status ReadFile(const std::string& name, std::string* contents) override {
    return base_->ReadFile(name, contents);
  }

  Status ReadFileAt(const std::string& name, uint64_t offset, size_t n,
                    std::string* contents) override {
    return base_->ReadFileAt(name, offset, n, contents);
  }

  Status OpenFile(const std::string& name,
                  std::unique_ptr<ReadOnlyFile>* result) override {
    return base_->OpenFile(name, result);
  }

  Status LinkFromAs(Directory* source, const std::string& name,
                    const std::string& new_name) override {
    if (fs_->PowerCutBefore()) return fs_->PowerOffError(Join(new_name));
    auto* wrapped = dynamic_cast<PowerLossDirectory*>(source);
    Status s = base_->LinkFromAs(wrapped != nullptr ? wrapped->base() : source,
                                 name, new_name);
    if (s.ok()) fs_->RecordCreate(Now() + "/" + new_name);
    return s;
  }

  Status Unlink(const std::string& name) override {
    if (fs_->PowerCutBefore()) return fs_->PowerOffError(Join(name));
    const std::string p = Now() + "/" + name;
    std::string shadow;
    Status s = fs_->SaveForRemoval(p, &shadow);
    if (!s.ok()) {
      // NotFound: nothing to unlink; let the real call say so.
      return s.IsNotFound() ? base_->Unlink(name) : s;
    }
    s = base_->Unlink(name);
    if (!s.ok()) {
      fs_->Unsave(shadow);
      return s;
    }
    fs_->RecordRemove(p, shadow);
    return s;
  }

  Status Stat(const std::string& name, KvFileInfo* info) override {
    return base_->Stat(name, info);
  }

  Status List(std::vector<std::string>* names) override {
    return base_->List(names);
  }

  Status Sync() override {
    if (fs_->PowerCutBefore()) return fs_->PowerOffError(path());
    const uint64_t upto = fs_->PowerLossState::Now();
    Status s = fs_->real_syncs() ? base_->Sync() : Status::OK();
    if (!s.ok()) return s;
    const std::string now = Now();
    fs_->MarkDirectorySynced(now, upto);
    fs_->RunDirectorySyncHook(now);
    return s;
  }

  Status SyncFileSystem() override {
    if (fs_->PowerCutBefore()) return fs_->PowerOffError(path());
    const uint64_t upto = fs_->PowerLossState::Now();
    Status s = fs_->real_syncs() ? base_->SyncFileSystem() : Status::OK();
    if (!s.ok()) return s;
    fs_->MarkAllDurable(upto);
    fs_->RunSyncfsHook();
    return s;
  }

 private:
  std::string Join(const std::string& name) const {
    return base_->path() + "/" + name;
  }
  // The directory's path now.
  std::string Now() const { return fs_->CurrentPath(path(), opened_seq_); }

  PowerLossFileSystem* const fs_;
  const std::unique_ptr<Directory> base_;
  const uint64_t opened_seq_;
};

PowerLossFileSystem::PowerLossFileSystem(FileSystem* base,
                                         std::string shadow_dir)
    : PowerLossState(std::move(shadow_dir)), base_(base) {}

PowerLossFileSystem::~PowerLossFileSystem() = default;

std::string PowerLossFileSystem::CurrentPath(const std::string& opened_path,
                                             uint64_t opened_seq) const {
  std::lock_guard<std::mutex> l(mu_);
  std::string p = opened_path;
  for (const RenameEvent& r : renames_) {
    if (r.seq > opened_seq) p = RebasePath(p, r.from, r.to);
  }
  return p;
}

Status PowerLossFileSystem::OpenDirectory(const std::string& path,
                                          std::unique_ptr<Directory>* result) {
  result->reset();
  std::unique_ptr<Directory> dir;
  Status s = base_->OpenDirectory(path, &dir);
  if (!s.ok()) return s;
  uint64_t seq;
  {
    std::lock_guard<std::mutex> l(mu_);
    seq = rename_seq_;
  }
  result->reset(new PowerLossDirectory(this, std::move(dir), seq));
  return Status::OK();
}

Status PowerLossFileSystem::CreateDir(const std::string& path,
                                      bool ok_if_exists) {
  if (PowerCutBefore()) return PowerOffError(path);
  const bool existed = base_->Exists(path);
  Status s = base_->CreateDir(path, ok_if_exists);
  if (s.ok() && !existed) RecordMkdir(path);
  return s;
}

Status PowerLossFileSystem::RemoveDir(const std::string& path) {
  if (PowerCutBefore()) return PowerOffError(path);
  Status s = base_->RemoveDir(path);
  if (s.ok()) RecordRmdir(path);
  return s;
}

Status PowerLossFileSystem::Rename(const std::string& from,
                                   const std::string& to) {
  if (PowerCutBefore()) return PowerOffError(from + " -> " + to);
  // A directory replaced by the rename (POSIX allows an empty one) is not
  // restored by power loss.
  Status s = base_->Rename(from, to);
  if (s.ok()) {
    RecordRename(from, to, /*replaced_shadow=*/"");
    std::lock_guard<std::mutex> l(mu_);
    renames_.push_back({++rename_seq_, from, to});
  }
  return s;
}

Status PowerLossFileSystem::Probe(const std::string& path, bool* exists) {
  return base_->Probe(path, exists);
}

Status PowerLossFileSystem::GetSpace(const std::string& path,
                                     FileSystemSpace* space) {
  return base_->GetSpace(path, space);
}

}  // namespace leveldb
