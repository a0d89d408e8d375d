#include "testing/power_loss_file_system.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "fs/posix_file_system.h"

namespace leveldb {

namespace {

std::string ParentOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool IsUnder(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

// `path` with the prefix `from` replaced by `to`, if it lies at or below
// `from`.
std::string Rebase(const std::string& path, const std::string& from,
                   const std::string& to) {
  if (path == from) return to;
  if (IsUnder(path, from)) return to + path.substr(from.size());
  return path;
}

// Errors the rollback tolerates: the entry or its parent is already gone
// (a durable later change removed it), or already there.
bool Benign(int err) {
  return err == ENOENT || err == ENOTDIR || err == EEXIST;
}

}  // namespace

// A Directory whose changes are recorded by the owning PowerLossFileSystem.
class PowerLossDirectory final : public Directory {
 public:
  PowerLossDirectory(PowerLossFileSystem* fs, std::unique_ptr<Directory> base,
                     uint64_t opened_seq)
      : fs_(fs), base_(std::move(base)), opened_seq_(opened_seq) {}

  Directory* base() const { return base_.get(); }

  const std::string& path() const override { return base_->path(); }

  Status WriteFile(const std::string& name, const Slice& data,
                   bool sync) override {
    if (fs_->PowerIsOff()) return fs_->PowerOffError(Join(name));
    Status s = base_->WriteFile(name, data, sync);
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> l(fs_->mu_);
    const std::string p = Now() + "/" + name;
    const uint64_t seq = fs_->Record(PowerLossFileSystem::Kind::kCreateFile, p);
    if (!sync) {
      // The data may be lost: keep a link through which power loss can
      // truncate the inode wherever its entries end up.
      const std::string shadow = fs_->NewShadowName("data");
      if (link(p.c_str(), shadow.c_str()) != 0) {
        fs_->NoteModelError(PosixError(p + " -> " + shadow, errno, false));
      } else {
        fs_->volatile_data_.push_back({seq, shadow});
      }
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

  Status LinkFrom(Directory* source, const std::string& name) override {
    if (fs_->PowerIsOff()) return fs_->PowerOffError(Join(name));
    auto* wrapped = dynamic_cast<PowerLossDirectory*>(source);
    Status s =
        base_->LinkFrom(wrapped != nullptr ? wrapped->base() : source, name);
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> l(fs_->mu_);
    fs_->Record(PowerLossFileSystem::Kind::kLink, Now() + "/" + name);
    return s;
  }

  Status Unlink(const std::string& name) override {
    if (fs_->PowerIsOff()) return fs_->PowerOffError(Join(name));
    std::string p, shadow;
    {
      std::lock_guard<std::mutex> l(fs_->mu_);
      p = Now() + "/" + name;
      shadow = fs_->NewShadowName("unlinked");
    }
    // Keep the inode reachable so that power loss can link it back.
    if (link(p.c_str(), shadow.c_str()) != 0) {
      const int err = errno;
      // ENOENT: nothing to unlink; let the real call say so.
      if (err != ENOENT) return PosixError(p + " -> " + shadow, err, false);
      return base_->Unlink(name);
    }
    Status s = base_->Unlink(name);
    std::lock_guard<std::mutex> l(fs_->mu_);
    if (!s.ok()) {
      unlink(shadow.c_str());
      return s;
    }
    fs_->Record(PowerLossFileSystem::Kind::kUnlink, p, "", shadow);
    return s;
  }

  Status Stat(const std::string& name, KvFileInfo* info) override {
    return base_->Stat(name, info);
  }

  Status List(std::vector<std::string>* names) override {
    return base_->List(names);
  }

  Status Sync() override {
    if (fs_->PowerIsOff()) return fs_->PowerOffError(path());
    uint64_t upto;
    {
      std::lock_guard<std::mutex> l(fs_->mu_);
      upto = fs_->next_seq_;
    }
    Status s = base_->Sync();
    if (!s.ok()) return s;
    std::string now;
    std::function<void(const std::string&)> hook;
    {
      std::lock_guard<std::mutex> l(fs_->mu_);
      now = Now();
      fs_->MarkSyncedLocked(now, upto);
      hook = fs_->dirsync_hook_;
    }
    if (hook) hook(now);
    return s;
  }

  Status SyncFileSystem() override {
    if (fs_->PowerIsOff()) return fs_->PowerOffError(path());
    uint64_t upto;
    {
      std::lock_guard<std::mutex> l(fs_->mu_);
      upto = fs_->next_seq_;
    }
    Status s = base_->SyncFileSystem();
    if (!s.ok()) return s;
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> l(fs_->mu_);
      fs_->MarkAllDurableLocked(upto);
      hook = fs_->syncfs_hook_;
    }
    if (hook) hook();
    return s;
  }

 private:
  std::string Join(const std::string& name) const {
    return base_->path() + "/" + name;
  }
  // The directory's path now; fs_->mu_ held.
  std::string Now() const { return fs_->CurrentPath(path(), opened_seq_); }

  PowerLossFileSystem* const fs_;
  const std::unique_ptr<Directory> base_;
  const uint64_t opened_seq_;
};

PowerLossFileSystem::PowerLossFileSystem(FileSystem* base,
                                         std::string shadow_dir)
    : base_(base), shadow_dir_(std::move(shadow_dir)) {
  if (mkdir(shadow_dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    model_error_ = PosixError(shadow_dir_, errno, false);
  }
}

PowerLossFileSystem::~PowerLossFileSystem() = default;

void PowerLossFileSystem::SetSyncfsHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> l(mu_);
  syncfs_hook_ = std::move(hook);
}

void PowerLossFileSystem::SetDirectorySyncHook(
    std::function<void(const std::string&)> hook) {
  std::lock_guard<std::mutex> l(mu_);
  dirsync_hook_ = std::move(hook);
}

void PowerLossFileSystem::MarkEverythingDurable() {
  std::lock_guard<std::mutex> l(mu_);
  MarkAllDurableLocked(next_seq_);
}

void PowerLossFileSystem::MarkDirectorySynced(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  MarkSyncedLocked(path, next_seq_);
}

void PowerLossFileSystem::CutPower() {
  std::lock_guard<std::mutex> l(mu_);
  power_off_ = true;
}

bool PowerLossFileSystem::PowerIsOff() const {
  std::lock_guard<std::mutex> l(mu_);
  return power_off_;
}

size_t PowerLossFileSystem::PendingChanges() const {
  std::lock_guard<std::mutex> l(mu_);
  size_t n = volatile_data_.size();
  for (const Change& c : changes_) {
    if (!c.durable) n++;
  }
  return n;
}

Status PowerLossFileSystem::PowerOffError(const std::string& path) const {
  return Status::IOError(path, "power is off (simulated power loss)");
}

std::string PowerLossFileSystem::NewShadowName(const char* prefix) {
  return shadow_dir_ + "/" + prefix + "-" + std::to_string(++shadow_counter_);
}

void PowerLossFileSystem::NoteModelError(const Status& s) {
  if (model_error_.ok()) model_error_ = s;
}

uint64_t PowerLossFileSystem::Record(Kind kind, std::string path,
                                     std::string target, std::string shadow) {
  const uint64_t seq = next_seq_++;
  Change c;
  c.seq = seq;
  c.kind = kind;
  c.path = std::move(path);
  c.target = std::move(target);
  c.shadow = std::move(shadow);
  changes_.push_back(std::move(c));
  return seq;
}

std::string PowerLossFileSystem::CurrentPath(const std::string& opened_path,
                                             uint64_t opened_seq) const {
  std::string p = opened_path;
  for (const RenameEvent& r : renames_) {
    if (r.seq > opened_seq) p = Rebase(p, r.from, r.to);
  }
  return p;
}

std::string PowerLossFileSystem::Translate(std::string path, size_t i) const {
  for (size_t j = i + 1; j < changes_.size(); j++) {
    const Change& c = changes_[j];
    if (c.kind == Kind::kRename && !c.undone) {
      path = Rebase(path, c.path, c.target);
    }
  }
  return path;
}

void PowerLossFileSystem::MarkSyncedLocked(const std::string& dir,
                                           uint64_t upto) {
  for (size_t i = 0; i < changes_.size(); i++) {
    Change& c = changes_[i];
    if (c.durable || c.seq >= upto) continue;
    if (c.kind == Kind::kRename) {
      if (ParentOf(Translate(c.path, i)) == dir) c.from_synced = true;
      if (ParentOf(Translate(c.target, i)) == dir) c.to_synced = true;
      c.durable = c.from_synced && c.to_synced;
    } else if (ParentOf(Translate(c.path, i)) == dir) {
      c.durable = true;
    }
  }
  DropDurableLocked();
}

void PowerLossFileSystem::MarkAllDurableLocked(uint64_t upto) {
  for (Change& c : changes_) {
    if (c.seq < upto) c.durable = true;
  }
  std::vector<VolatileData> still_volatile;
  for (VolatileData& v : volatile_data_) {
    if (v.seq < upto) {
      unlink(v.shadow.c_str());  // the data is durable: let the inode go
    } else {
      still_volatile.push_back(std::move(v));
    }
  }
  volatile_data_.swap(still_volatile);
  DropDurableLocked();
}

void PowerLossFileSystem::DropDurableLocked() {
  for (Change& c : changes_) {
    if (c.durable && !c.shadow.empty()) {
      unlink(c.shadow.c_str());  // the unlink is final: let the inode go
      c.shadow.clear();
    }
  }
  // A durable prefix is never needed again: renames after it still are
  // (they translate older paths), and those are kept.
  size_t prefix = 0;
  while (prefix < changes_.size() && changes_[prefix].durable) prefix++;
  changes_.erase(changes_.begin(), changes_.begin() + prefix);
}

Status PowerLossFileSystem::SimulatePowerLoss() {
  std::lock_guard<std::mutex> l(mu_);
  Status result = model_error_;
  auto note = [&result](const std::string& what, int err) {
    if (result.ok()) result = PosixError(what, err, false);
  };
  // Lost data first: truncating through the shadow link reaches the inode
  // wherever its entries are.
  for (const VolatileData& v : volatile_data_) {
    if (truncate(v.shadow.c_str(), 0) != 0) note(v.shadow, errno);
    if (unlink(v.shadow.c_str()) != 0) note(v.shadow, errno);
  }
  volatile_data_.clear();
  for (size_t k = changes_.size(); k-- > 0;) {
    Change& c = changes_[k];
    if (c.durable) continue;
    const std::string p = Translate(c.path, k);
    switch (c.kind) {
      case Kind::kCreateFile:
      case Kind::kLink:
        if (unlink(p.c_str()) != 0 && !Benign(errno)) note(p, errno);
        break;
      case Kind::kUnlink:
        if (link(c.shadow.c_str(), p.c_str()) != 0 && !Benign(errno)) {
          note(c.shadow + " -> " + p, errno);
        }
        if (unlink(c.shadow.c_str()) != 0) note(c.shadow, errno);
        c.shadow.clear();
        break;
      case Kind::kMkdir: {
        const int err = RemoveTreeAt(p);
        if (err != 0) note(p, err);
        break;
      }
      case Kind::kRmdir:
        if (mkdir(p.c_str(), 0755) != 0 && !Benign(errno)) note(p, errno);
        break;
      case Kind::kRename: {
        const std::string to = Translate(c.target, k);
        if (rename(to.c_str(), p.c_str()) != 0 && !Benign(errno)) {
          note(to + " -> " + p, errno);
        }
        break;
      }
    }
    c.undone = true;
  }
  changes_.clear();
  // Shadow links of durable unlinks were dropped as they became durable;
  // anything left is garbage of an interrupted call.
  Status emptied = UnlinkDirectoryEntries(shadow_dir_);
  if (result.ok()) result = emptied;
  model_error_ = Status::OK();
  power_off_ = false;
  return result;
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
  if (PowerIsOff()) return PowerOffError(path);
  const bool existed = base_->Exists(path);
  Status s = base_->CreateDir(path, ok_if_exists);
  if (s.ok() && !existed) {
    std::lock_guard<std::mutex> l(mu_);
    Record(Kind::kMkdir, path);
  }
  return s;
}

Status PowerLossFileSystem::RemoveDir(const std::string& path) {
  if (PowerIsOff()) return PowerOffError(path);
  Status s = base_->RemoveDir(path);
  if (s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    Record(Kind::kRmdir, path);
  }
  return s;
}

Status PowerLossFileSystem::Rename(const std::string& from,
                                   const std::string& to) {
  if (PowerIsOff()) return PowerOffError(from + " -> " + to);
  Status s = base_->Rename(from, to);
  if (s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    Record(Kind::kRename, from, to);
    renames_.push_back({++rename_seq_, from, to});
  }
  return s;
}

bool PowerLossFileSystem::Exists(const std::string& path) {
  return base_->Exists(path);
}

}  // namespace leveldb
