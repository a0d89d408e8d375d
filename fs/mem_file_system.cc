// The memory FileSystem: a tree of nodes under one mutex. A node is an
// inode: a file's bytes (written once, immutable after) or a directory's
// entries; directory entries hold nodes by shared_ptr, and so do open
// Directories and ReadOnlyFiles, which is what keeps them valid across a
// rename and keeps an unlinked file readable while it is open.
#include "fs/mem_file_system.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "port/port.h"
#include "port/thread_annotations.h"
#include "util/memenv_attachment.h"
#include "util/mutexlock.h"
#include "util/posix_error.h"

namespace leveldb {

namespace {

struct Node {
  explicit Node(bool dir, uint64_t ino) : is_dir(dir), inode(ino) {}

  const bool is_dir;
  const uint64_t inode;
  // Directory entries naming this node (for a directory: 1 while it is
  // in the tree, 0 once removed).
  uint64_t links = 0;
  // A file's bytes; set once when the file is written, never changed.
  std::shared_ptr<const std::string> data;
  // A directory's entries.
  std::map<std::string, std::shared_ptr<Node>> entries;
};

using NodeRef = std::shared_ptr<Node>;

// The components of `path` (see mem_file_system.h).
std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    const std::string part = path.substr(pos, slash - pos);
    pos = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  return parts;
}

// What a file's size takes on a file system of 4 KiB blocks, in 512-byte
// units (st_blocks).
uint64_t Blocks512(uint64_t size) { return (size + 4095) / 4096 * 8; }

class MemFileSystem;

class MemReadOnlyFile final : public ReadOnlyFile {
 public:
  explicit MemReadOnlyFile(std::shared_ptr<const std::string> data)
      : data_(std::move(data)) {}

  uint64_t size() const override { return data_->size(); }
  // The bytes are immutable (a write makes a new string), so every open
  // file is read in memory.
  const char* mapped() const override { return data_->data(); }

  Status ReadAt(uint64_t offset, size_t n,
                std::string* contents) const override {
    contents->clear();
    if (offset < data_->size()) {
      contents->assign(*data_, static_cast<size_t>(offset), n);
    }
    return Status::OK();
  }

 private:
  const std::shared_ptr<const std::string> data_;
};

class MemDirectory final : public Directory {
 public:
  MemDirectory(MemFileSystem* fs, std::string path, NodeRef node)
      : fs_(fs), path_(std::move(path)), node_(std::move(node)) {}

  const std::string& path() const override { return path_; }

  Status WriteFile(const std::string& name, const Slice& data,
                   bool sync) override;
  Status ReadFile(const std::string& name, std::string* contents) override;
  Status ReadFileAt(const std::string& name, uint64_t offset, size_t n,
                    std::string* contents) override;
  Status OpenFile(const std::string& name,
                  std::unique_ptr<ReadOnlyFile>* result) override;
  Status LinkFromAs(Directory* source, const std::string& name,
                    const std::string& new_name) override;
  Status Unlink(const std::string& name) override;
  Status Stat(const std::string& name, KvFileInfo* info) override;
  Status List(std::vector<std::string>* names) override;
  Status Sync() override { return Status::OK(); }
  Status SyncFileSystem() override { return Status::OK(); }

 private:
  std::string Join(const std::string& name) const { return path_ + "/" + name; }
  // The bytes of the file `name` (null with the error if none).
  Status FileData(const std::string& name,
                  std::shared_ptr<const std::string>* data);

  MemFileSystem* const fs_;
  const std::string path_;
  const NodeRef node_;
};

class MemFileSystem final : public FileSystem {
 public:
  MemFileSystem() : root_(NewNode(true)) { root_->links = 1; }

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override {
    result->reset();
    MutexLock l(&mu_);
    NodeRef node = Find(path);
    if (node == nullptr) return PosixError(path, ENOENT, true);
    if (!node->is_dir) return PosixError(path, ENOTDIR, false);
    result->reset(new MemDirectory(this, path, node));
    return Status::OK();
  }

  Status CreateDir(const std::string& path, bool ok_if_exists) override {
    MutexLock l(&mu_);
    const std::vector<std::string> parts = Components(path);
    if (parts.empty()) return PosixError(path, EEXIST, false);
    NodeRef dir = root_;
    for (size_t i = 0; i + 1 < parts.size(); i++) {
      NodeRef& next = dir->entries[parts[i]];
      if (next == nullptr) {  // a missing ancestor is made
        next = NewNode(true);
        next->links = 1;
      } else if (!next->is_dir) {
        return PosixError(path, ENOTDIR, false);
      }
      dir = next;
    }
    auto it = dir->entries.find(parts.back());
    if (it != dir->entries.end()) {
      if (ok_if_exists && it->second->is_dir) return Status::OK();
      return PosixError(path, EEXIST, false);
    }
    NodeRef node = NewNode(true);
    node->links = 1;
    dir->entries[parts.back()] = node;
    return Status::OK();
  }

  Status RemoveDir(const std::string& path) override {
    MutexLock l(&mu_);
    std::string name;
    NodeRef parent = FindParent(path, &name);
    if (parent == nullptr) return PosixError(path, ENOENT, true);
    if (name.empty()) return PosixError(path, EBUSY, false);  // the root
    auto it = parent->entries.find(name);
    if (it == parent->entries.end()) return PosixError(path, ENOENT, true);
    if (!it->second->is_dir) return PosixError(path, ENOTDIR, false);
    if (!it->second->entries.empty()) {
      return PosixError(path, ENOTEMPTY, false);
    }
    it->second->links = 0;
    parent->entries.erase(it);
    return Status::OK();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    MutexLock l(&mu_);
    const std::string what = from + " -> " + to;
    std::string from_name, to_name;
    NodeRef from_parent = FindParent(from, &from_name);
    NodeRef to_parent = FindParent(to, &to_name);
    if (from_parent == nullptr || to_parent == nullptr) {
      return PosixError(what, ENOENT, true);
    }
    if (from_name.empty() || to_name.empty()) {
      return PosixError(what, EBUSY, false);  // the root
    }
    auto src = from_parent->entries.find(from_name);
    if (src == from_parent->entries.end()) {
      return PosixError(what, ENOENT, true);
    }
    NodeRef node = src->second;
    auto dst = to_parent->entries.find(to_name);
    if (dst != to_parent->entries.end() && dst->second == node) {
      return Status::OK();  // the same entry, or two links of one file
    }
    if (node->is_dir) {
      // Not into itself or below it: `to`'s parent must not be `node`
      // or a descendant of it.
      const std::vector<std::string> f = Components(from);
      const std::vector<std::string> t = Components(to);
      if (t.size() > f.size() && std::equal(f.begin(), f.end(), t.begin())) {
        return PosixError(what, EINVAL, false);
      }
    }
    if (dst != to_parent->entries.end()) {
      const NodeRef& old = dst->second;
      if (node->is_dir && !old->is_dir) {
        return PosixError(what, ENOTDIR, false);
      }
      if (!node->is_dir && old->is_dir) return PosixError(what, EISDIR, false);
      if (old->is_dir && !old->entries.empty()) {
        return PosixError(what, ENOTEMPTY, false);
      }
      old->links--;
      to_parent->entries.erase(dst);
    }
    from_parent->entries.erase(src);
    to_parent->entries[to_name] = node;
    return Status::OK();
  }

  // Its files take the process's memory, which it does not account.
  Status GetSpace(const std::string& path, FileSystemSpace* space) override {
    return Status::NotSupported("a memory file system has no free space", path);
  }

  Status Probe(const std::string& path, bool* exists) override {
    MutexLock l(&mu_);
    *exists = Find(path) != nullptr;
    return Status::OK();
  }

 private:
  friend class MemDirectory;

  NodeRef NewNode(bool dir) EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return std::make_shared<Node>(dir, next_inode_++);
  }

  // The node at `path`, or null.
  NodeRef Find(const std::string& path) EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    NodeRef node = root_;
    for (const std::string& part : Components(path)) {
      if (!node->is_dir) return nullptr;
      auto it = node->entries.find(part);
      if (it == node->entries.end()) return nullptr;
      node = it->second;
    }
    return node;
  }

  // The directory that holds (or would hold) `path`'s last component, and
  // that component in *name (empty for the root); null if there is no
  // such directory.
  NodeRef FindParent(const std::string& path, std::string* name)
      EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<std::string> parts = Components(path);
    name->clear();
    if (parts.empty()) return root_;
    *name = parts.back();
    parts.pop_back();
    NodeRef node = root_;
    for (const std::string& part : parts) {
      auto it = node->entries.find(part);
      if (it == node->entries.end() || !it->second->is_dir) return nullptr;
      node = it->second;
    }
    return node;
  }

  port::Mutex mu_;
  // Its entries are guarded by mu_, as every node's (which the analysis
  // cannot express: nodes are shared_ptrs reached through the tree).
  const NodeRef root_;
  uint64_t next_inode_ GUARDED_BY(mu_) = 1;
};

Status MemDirectory::WriteFile(const std::string& name, const Slice& data,
                               bool sync) {
  auto bytes = std::make_shared<const std::string>(data.data(), data.size());
  MutexLock l(&fs_->mu_);
  // A removed directory takes no new entries (ENOENT, as openat(O_CREAT)
  // in a removed directory): an I/O error, not an absent entry.
  if (node_->links == 0) return PosixError(Join(name), ENOENT, false);
  if (node_->entries.count(name) != 0) {
    return PosixError(Join(name), EEXIST, false);
  }
  NodeRef file = fs_->NewNode(false);
  file->data = std::move(bytes);
  file->links = 1;
  node_->entries[name] = std::move(file);
  return Status::OK();
}

Status MemDirectory::FileData(const std::string& name,
                              std::shared_ptr<const std::string>* data) {
  MutexLock l(&fs_->mu_);
  auto it = node_->entries.find(name);
  if (it == node_->entries.end()) return PosixError(Join(name), ENOENT, true);
  if (it->second->is_dir) return PosixError(Join(name), EISDIR, true);
  *data = it->second->data;
  return Status::OK();
}

Status MemDirectory::ReadFile(const std::string& name, std::string* contents) {
  contents->clear();
  std::shared_ptr<const std::string> data;
  Status s = FileData(name, &data);
  if (s.ok()) *contents = *data;
  return s;
}

Status MemDirectory::ReadFileAt(const std::string& name, uint64_t offset,
                                size_t n, std::string* contents) {
  contents->clear();
  std::shared_ptr<const std::string> data;
  Status s = FileData(name, &data);
  if (s.ok() && offset < data->size()) {
    contents->assign(*data, static_cast<size_t>(offset), n);
  }
  return s;
}

Status MemDirectory::OpenFile(const std::string& name,
                              std::unique_ptr<ReadOnlyFile>* result) {
  result->reset();
  std::shared_ptr<const std::string> data;
  Status s = FileData(name, &data);
  if (s.ok()) result->reset(new MemReadOnlyFile(std::move(data)));
  return s;
}

Status MemDirectory::LinkFromAs(Directory* source, const std::string& name,
                                const std::string& new_name) {
  const std::string what =
      source->path() + "/" + name + " -> " + Join(new_name);
  MemDirectory* src = dynamic_cast<MemDirectory*>(source);
  if (src == nullptr || src->fs_ != fs_) {
    return PosixError(what, EXDEV, false);  // another file system
  }
  MutexLock l(&fs_->mu_);
  auto it = src->node_->entries.find(name);
  if (it == src->node_->entries.end()) return PosixError(what, ENOENT, false);
  if (it->second->is_dir) return PosixError(what, EPERM, false);
  if (node_->links == 0) return PosixError(what, ENOENT, false);
  if (node_->entries.count(new_name) != 0)
    return PosixError(what, EEXIST, false);
  it->second->links++;
  node_->entries[new_name] = it->second;
  return Status::OK();
}

Status MemDirectory::Unlink(const std::string& name) {
  MutexLock l(&fs_->mu_);
  auto it = node_->entries.find(name);
  if (it == node_->entries.end()) return PosixError(Join(name), ENOENT, true);
  if (it->second->is_dir) return PosixError(Join(name), EISDIR, true);
  it->second->links--;
  node_->entries.erase(it);
  return Status::OK();
}

Status MemDirectory::Stat(const std::string& name, KvFileInfo* info) {
  MutexLock l(&fs_->mu_);
  auto it = node_->entries.find(name);
  if (it == node_->entries.end()) return PosixError(Join(name), ENOENT, true);
  const Node& n = *it->second;
  info->inode = n.inode;
  info->directory = n.is_dir;
  if (n.is_dir) {
    uint64_t subdirs = 0;
    for (const auto& e : n.entries) subdirs += e.second->is_dir ? 1 : 0;
    info->size = 4096;
    info->links = 2 + subdirs;
  } else {
    info->size = n.data->size();
    info->links = n.links;
  }
  info->blocks_512 = Blocks512(info->size);
  return Status::OK();
}

Status MemDirectory::List(std::vector<std::string>* names) {
  names->clear();
  MutexLock l(&fs_->mu_);
  for (const auto& e : node_->entries) names->push_back(e.first);
  return Status::OK();
}

// The memory FileSystem a memory Env carries.
class MemFileSystemAttachment final : public MemEnvAttachment {
 public:
  FileSystem* fs() { return &fs_; }

 private:
  MemFileSystem fs_;
};

MemEnvAttachment* MakeAttachment() { return new MemFileSystemAttachment(); }

}  // namespace

std::unique_ptr<FileSystem> NewMemFileSystem() {
  return std::unique_ptr<FileSystem>(new MemFileSystem());
}

FileSystem* FileSystemForEnv(Env* env) {
  MemEnvAttachment* a = MemEnvAttachmentOf(env, &MakeAttachment);
  if (a == nullptr) return FileSystem::Default();
  return static_cast<MemFileSystemAttachment*>(a)->fs();
}

}  // namespace leveldb
