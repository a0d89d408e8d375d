#include "testing/fault_injection_env.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "fs/posix_file_system.h"

namespace leveldb {

namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// Rollback tolerates an entry (or its parent) already gone or present.
bool Benign(int err) {
  return err == ENOENT || err == ENOTDIR || err == EEXIST;
}

}  // namespace

// A WritableFile whose appends and syncs the owning env counts, may fail,
// and tracks for power loss.
class FaultInjectionWritableFile final : public WritableFile {
 public:
  FaultInjectionWritableFile(FaultInjectionEnv* env, WritableFile* base,
                             std::shared_ptr<FaultInjectionEnv::Node> node,
                             std::string path)
      : env_(env), base_(base), node_(std::move(node)), path_(path) {}
  ~FaultInjectionWritableFile() override { delete base_; }

  Status Append(const Slice& data) override {
    Status s = env_->Check(EnvOp::kAppend, path_);
    if (s.ok() && env_->PowerIsOff()) s = env_->PowerOffError(path_);
    if (s.ok()) s = base_->Append(data);
    if (s.ok()) {
      std::lock_guard<std::mutex> l(env_->mu_);
      node_->size += data.size();
    }
    return s;
  }

  Status Close() override {
    // Always release the descriptor; after a power cut the rollback cuts
    // whatever this writes.
    Status s = base_->Close();
    if (s.ok()) {
      std::lock_guard<std::mutex> l(env_->mu_);
      node_->flushed = node_->size;
    }
    return s;
  }

  Status Flush() override {
    Status s = env_->Check(EnvOp::kFlush, path_);
    if (s.ok() && env_->PowerIsOff()) s = env_->PowerOffError(path_);
    if (s.ok()) s = base_->Flush();
    if (s.ok()) {
      std::lock_guard<std::mutex> l(env_->mu_);
      node_->flushed = node_->size;
    }
    return s;
  }

  Status Sync() override {
    Status s = env_->Check(EnvOp::kSync, path_);
    if (s.ok() && env_->PowerIsOff()) s = env_->PowerOffError(path_);
    if (!s.ok()) return s;
    uint64_t upto;
    {
      std::lock_guard<std::mutex> l(env_->mu_);
      upto = env_->next_seq_;
    }
    s = base_->Sync();
    if (!s.ok()) return s;
    std::string synced_dir;
    {
      std::lock_guard<std::mutex> l(env_->mu_);
      node_->flushed = node_->synced = node_->size;
      if (!node_->dir_synced && env_->first_sync_syncs_dir_) {
        node_->dir_synced = true;
        synced_dir = DirOf(node_->path);
        env_->MarkSyncedLocked(synced_dir, upto);
      }
    }
    if (!synced_dir.empty()) env_->RunDirHook(synced_dir);
    return s;
  }

 private:
  FaultInjectionEnv* const env_;
  WritableFile* const base_;
  const std::shared_ptr<FaultInjectionEnv::Node> node_;
  const std::string path_;  // as opened, for error messages
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
    case EnvOp::kRename:
      return "rename";
    case EnvOp::kRemove:
      return "remove";
  }
  return "unknown";
}

FaultInjectionEnv::FaultInjectionEnv(Env* base, std::string shadow_dir)
    : EnvWrapper(base), shadow_dir_(std::move(shadow_dir)) {
  ResetCounts();
  if (mkdir(shadow_dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    model_error_ = PosixError(shadow_dir_, errno, /*enoent_is_not_found=*/true);
  }
}

FaultInjectionEnv::~FaultInjectionEnv() = default;

void FaultInjectionEnv::FailNth(EnvOp op, uint64_t n, int err) {
  std::lock_guard<std::mutex> l(mu_);
  armed_op_ = op;
  remaining_ = n;
  armed_errno_ = err;
  fired_ = false;
}

bool FaultInjectionEnv::Fired() const {
  std::lock_guard<std::mutex> l(mu_);
  return fired_;
}

uint64_t FaultInjectionEnv::Count(EnvOp op) const {
  return counts_[static_cast<int>(op)].load(std::memory_order_relaxed);
}

void FaultInjectionEnv::ResetCounts() {
  for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
}

Status FaultInjectionEnv::Check(EnvOp op, const std::string& path) {
  counts_[static_cast<int>(op)].fetch_add(1, std::memory_order_relaxed);
  int err;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (remaining_ == 0 || armed_op_ != op || --remaining_ != 0) {
      return Status::OK();
    }
    fired_ = true;
    err = armed_errno_;
  }
  return PosixError(path, err, /*enoent_is_not_found=*/true);
}

Status FaultInjectionEnv::PowerOffError(const std::string& path) const {
  return Status::IOError(path, "power is off (simulated power loss)");
}

void FaultInjectionEnv::SetDirectorySyncHook(
    std::function<void(const std::string&)> hook) {
  std::lock_guard<std::mutex> l(mu_);
  dirsync_hook_ = std::move(hook);
}

void FaultInjectionEnv::RunDirHook(const std::string& dir) {
  std::function<void(const std::string&)> hook;
  {
    std::lock_guard<std::mutex> l(mu_);
    hook = dirsync_hook_;
  }
  if (hook) hook(dir);
}

void FaultInjectionEnv::MarkEverythingDurable() {
  std::lock_guard<std::mutex> l(mu_);
  for (Change& c : changes_) c.durable = true;
  for (auto& n : nodes_) {
    if (n->flushed > n->synced) n->synced = n->flushed;
  }
  DropDurableLocked();
}

void FaultInjectionEnv::MarkDirectorySynced(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  MarkSyncedLocked(path, next_seq_);
}

void FaultInjectionEnv::CutPower() {
  std::lock_guard<std::mutex> l(mu_);
  power_off_ = true;
}

bool FaultInjectionEnv::PowerIsOff() const {
  std::lock_guard<std::mutex> l(mu_);
  return power_off_;
}

size_t FaultInjectionEnv::PendingChanges() const {
  std::lock_guard<std::mutex> l(mu_);
  size_t n = 0;
  for (const Change& c : changes_) {
    if (!c.durable) n++;
  }
  for (const auto& node : nodes_) {
    if (!node->path.empty() && node->size > node->synced) n++;
  }
  return n;
}

std::string FaultInjectionEnv::NewShadowName() {
  return shadow_dir_ + "/saved-" + std::to_string(++shadow_counter_);
}

void FaultInjectionEnv::Record(Kind kind, std::string path, std::string target,
                               std::string shadow) {
  Change c;
  c.seq = next_seq_++;
  c.kind = kind;
  c.path = std::move(path);
  c.target = std::move(target);
  c.shadow = std::move(shadow);
  changes_.push_back(std::move(c));
}

std::shared_ptr<FaultInjectionEnv::Node> FaultInjectionEnv::FindNode(
    const std::string& path) {
  for (auto& n : nodes_) {
    if (n->path == path) return n;
  }
  return nullptr;
}

void FaultInjectionEnv::MarkSyncedLocked(const std::string& dir,
                                         uint64_t upto) {
  for (Change& c : changes_) {
    if (c.durable || c.seq >= upto) continue;
    if (c.kind == Kind::kRename) {
      if (DirOf(c.path) == dir) c.from_synced = true;
      if (DirOf(c.target) == dir) c.to_synced = true;
      c.durable = c.from_synced && c.to_synced;
    } else if (DirOf(c.path) == dir) {
      c.durable = true;
    }
  }
  DropDurableLocked();
}

void FaultInjectionEnv::DropDurableLocked() {
  for (Change& c : changes_) {
    if (!c.durable || c.shadow.empty()) continue;
    // The removal is final: forget the saved inode, and any node that
    // pointed at it (its data no longer matters).
    for (auto& n : nodes_) {
      if (n->path == c.shadow) n->path.clear();
    }
    unlink(c.shadow.c_str());
    c.shadow.clear();
  }
  size_t prefix = 0;
  while (prefix < changes_.size() && changes_[prefix].durable) prefix++;
  changes_.erase(changes_.begin(), changes_.begin() + prefix);
}

Status FaultInjectionEnv::SaveAside(const std::string& path, bool keep_original,
                                    std::string* shadow) {
  *shadow = NewShadowName();
  const int r = keep_original ? link(path.c_str(), shadow->c_str())
                              : rename(path.c_str(), shadow->c_str());
  if (r != 0) {
    const int err = errno;
    shadow->clear();
    return PosixError(path, err, /*enoent_is_not_found=*/true);
  }
  std::shared_ptr<Node> n = FindNode(path);
  if (n != nullptr) n->path = *shadow;
  return Status::OK();
}

Status FaultInjectionEnv::NewSequentialFile(const std::string& f,
                                            SequentialFile** r) {
  *r = nullptr;
  Status s = Check(EnvOp::kOpen, f);
  if (!s.ok()) return s;
  return target()->NewSequentialFile(f, r);
}

Status FaultInjectionEnv::NewRandomAccessFile(const std::string& f,
                                              RandomAccessFile** r) {
  *r = nullptr;
  Status s = Check(EnvOp::kOpen, f);
  if (!s.ok()) return s;
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
  Status s = Check(EnvOp::kOpen, f);
  if (!s.ok()) return s;
  if (PowerIsOff()) return PowerOffError(f);
  // Serialised with the record so that the log's order is the disk's.
  std::lock_guard<std::mutex> l(mu_);
  const bool existed = PathExists(f);
  std::shared_ptr<Node> node;
  std::string replaced;
  if (existed && append) {
    node = FindNode(f);
    if (node == nullptr) {
      // Written before the wrapper knew it: all of it counts as durable.
      struct stat st;
      if (stat(f.c_str(), &st) != 0)
        return PosixError(f, errno, /*enoent_is_not_found=*/true);
      node = std::make_shared<Node>();
      node->path = f;
      node->size = node->flushed = node->synced =
          static_cast<uint64_t>(st.st_size);
      nodes_.push_back(node);
    }
  } else {
    if (existed) {
      // Truncating a file loses its old contents for good only once the
      // new ones are durable; keep the old inode aside instead.
      s = SaveAside(f, /*keep_original=*/false, &replaced);
      if (!s.ok()) return s;
      Record(Kind::kRemove, f, "", replaced);
    }
    node = std::make_shared<Node>();
    node->path = f;
  }
  WritableFile* base = nullptr;
  s = append ? target()->NewAppendableFile(f, &base)
             : target()->NewWritableFile(f, &base);
  if (!s.ok()) {
    if (!replaced.empty() && rename(replaced.c_str(), f.c_str()) == 0) {
      changes_.pop_back();  // the kRemove recorded above: undone
      std::shared_ptr<Node> n = FindNode(replaced);
      if (n != nullptr) n->path = f;
    }
    return s;
  }
  if (!existed || !append) {
    Record(Kind::kCreate, f);
    nodes_.push_back(node);
  }
  *r = new FaultInjectionWritableFile(this, base, node, f);
  return Status::OK();
}

Status FaultInjectionEnv::RemoveFile(const std::string& f) {
  Status s = Check(EnvOp::kRemove, f);
  if (!s.ok()) return s;
  if (PowerIsOff()) return PowerOffError(f);
  std::lock_guard<std::mutex> l(mu_);
  std::string shadow;
  s = SaveAside(f, /*keep_original=*/true, &shadow);
  if (!s.ok()) {
    // Nothing to keep (it does not exist): let the real call report it.
    return s.IsNotFound() ? target()->RemoveFile(f) : s;
  }
  s = target()->RemoveFile(f);
  if (!s.ok()) {
    std::shared_ptr<Node> n = FindNode(shadow);
    if (n != nullptr) n->path = f;
    unlink(shadow.c_str());
    return s;
  }
  Record(Kind::kRemove, f, "", shadow);
  return s;
}

Status FaultInjectionEnv::RenameFile(const std::string& src,
                                     const std::string& target_name) {
  Status s = Check(EnvOp::kRename, src + " -> " + target_name);
  if (!s.ok()) return s;
  if (PowerIsOff()) return PowerOffError(src);
  {
    std::lock_guard<std::mutex> l(mu_);
    std::string replaced;
    if (PathExists(target_name)) {
      s = SaveAside(target_name, /*keep_original=*/true, &replaced);
      if (!s.ok()) return s;
    }
    s = target()->RenameFile(src, target_name);
    if (!s.ok()) {
      if (!replaced.empty()) {
        std::shared_ptr<Node> n = FindNode(replaced);
        if (n != nullptr) n->path = target_name;
        unlink(replaced.c_str());
      }
      return s;
    }
    std::shared_ptr<Node> moved = FindNode(src);
    if (moved != nullptr) moved->path = target_name;
    Record(Kind::kRename, src, target_name, replaced);
    if (!rename_syncs_dir_) return s;
    MarkSyncedLocked(DirOf(target_name), next_seq_);
    MarkSyncedLocked(DirOf(src), next_seq_);
  }
  RunDirHook(DirOf(target_name));
  if (DirOf(src) != DirOf(target_name)) RunDirHook(DirOf(src));
  return s;
}

Status FaultInjectionEnv::CreateDir(const std::string& d) {
  if (PowerIsOff()) return PowerOffError(d);
  std::lock_guard<std::mutex> l(mu_);
  const bool existed = PathExists(d);
  Status s = target()->CreateDir(d);
  if (s.ok() && !existed) Record(Kind::kMkdir, d);
  return s;
}

Status FaultInjectionEnv::RemoveDir(const std::string& d) {
  if (PowerIsOff()) return PowerOffError(d);
  std::lock_guard<std::mutex> l(mu_);
  Status s = target()->RemoveDir(d);
  if (s.ok()) Record(Kind::kRmdir, d);
  return s;
}

Status FaultInjectionEnv::SimulatePowerLoss() {
  std::lock_guard<std::mutex> l(mu_);
  Status result = model_error_;
  auto note = [&result](const std::string& what, int err) {
    if (result.ok())
      result = PosixError(what, err, /*enoent_is_not_found=*/true);
  };
  // Data first: each tracked inode back to its durable length, wherever
  // its entry (or the shadow link keeping it) is now.
  for (auto& n : nodes_) {
    if (n->path.empty()) continue;
    struct stat st;
    if (stat(n->path.c_str(), &st) != 0) {
      if (errno != ENOENT) note(n->path, errno);
      continue;
    }
    if (static_cast<uint64_t>(st.st_size) > n->synced &&
        truncate(n->path.c_str(), static_cast<off_t>(n->synced)) != 0) {
      note(n->path, errno);
    }
  }
  for (size_t k = changes_.size(); k-- > 0;) {
    Change& c = changes_[k];
    if (c.durable) continue;
    switch (c.kind) {
      case Kind::kCreate:
        if (unlink(c.path.c_str()) != 0 && !Benign(errno)) note(c.path, errno);
        break;
      case Kind::kRemove:
        if (link(c.shadow.c_str(), c.path.c_str()) != 0 && !Benign(errno)) {
          note(c.shadow + " -> " + c.path, errno);
        }
        break;
      case Kind::kRename:
        if (rename(c.target.c_str(), c.path.c_str()) != 0 && !Benign(errno)) {
          note(c.target + " -> " + c.path, errno);
        }
        if (!c.shadow.empty() &&
            link(c.shadow.c_str(), c.target.c_str()) != 0 && !Benign(errno)) {
          note(c.shadow + " -> " + c.target, errno);
        }
        break;
      case Kind::kMkdir: {
        const int err = RemoveTreeAt(c.path);
        if (err != 0) note(c.path, err);
        break;
      }
      case Kind::kRmdir:
        if (mkdir(c.path.c_str(), 0755) != 0 && !Benign(errno)) {
          note(c.path, errno);
        }
        break;
    }
  }
  changes_.clear();
  nodes_.clear();
  Status emptied = UnlinkDirectoryEntries(shadow_dir_);
  if (result.ok()) result = emptied;
  model_error_ = Status::OK();
  power_off_ = false;
  return result;
}

}  // namespace leveldb
