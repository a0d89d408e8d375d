// NewMemEnv: an Env whose files and directories live in process memory.
// File-system operations are served from a map under one mutex; threads,
// scheduling, clocks and sleeping are delegated to the base Env.
//
// Semantics follow the POSIX Env where practical: missing files give
// NotFound, a locked file cannot be locked again until unlocked, removing a
// non-empty directory fails. As in LevelDB's in-memory Env, creating a file
// does not require its parent directory to exist.
//
// Each memory Env holds one attachment (util/memenv_attachment.h): the
// memory FileSystem where databases using this Env keep their SST
// directories, so that nothing of such a database is on disk and two
// memory Envs never see each other's files.
#include "leveldb/helpers/memenv.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "leveldb/env.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"
#include "port/port.h"
#include "port/thread_annotations.h"
#include "util/memenv_attachment.h"
#include "util/mutexlock.h"

namespace leveldb {

namespace {

// The bytes of one file. Open file objects share it with the directory
// map, so a file removed or replaced while open stays readable through
// the handles that already had it (as an unlinked file does on POSIX).
class FileData {
 public:
  size_t Size() const {
    MutexLock guard(&mu_);
    return bytes_.size();
  }

  // Copies up to n bytes at offset into scratch; returns how many.
  size_t Read(uint64_t offset, size_t n, char* scratch) const {
    MutexLock guard(&mu_);
    if (offset >= bytes_.size()) return 0;
    size_t avail = bytes_.size() - static_cast<size_t>(offset);
    size_t count = std::min(n, avail);
    std::memcpy(scratch, bytes_.data() + offset, count);
    return count;
  }

  void Append(const Slice& data) {
    MutexLock guard(&mu_);
    bytes_.append(data.data(), data.size());
  }

 private:
  mutable port::Mutex mu_;
  std::string bytes_ GUARDED_BY(mu_);
};

using FileRef = std::shared_ptr<FileData>;

class MemSequentialFile final : public SequentialFile {
 public:
  explicit MemSequentialFile(FileRef file) : file_(std::move(file)), pos_(0) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    size_t got = file_->Read(pos_, n, scratch);
    pos_ += got;
    *result = Slice(scratch, got);
    return Status::OK();
  }

  Status Skip(uint64_t n) override {
    // Skipping past the end leaves the position at the end, as lseek then
    // read on POSIX would read nothing.
    uint64_t size = file_->Size();
    pos_ = std::min<uint64_t>(pos_ + n, std::max<uint64_t>(size, pos_));
    return Status::OK();
  }

 private:
  const FileRef file_;
  uint64_t pos_;
};

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  explicit MemRandomAccessFile(FileRef file) : file_(std::move(file)) {}

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    *result = Slice(scratch, file_->Read(offset, n, scratch));
    return Status::OK();
  }

 private:
  const FileRef file_;
};

class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(FileRef file, std::string fname)
      : file_(std::move(file)), fname_(std::move(fname)), closed_(false) {}

  Status Append(const Slice& data) override {
    if (closed_) return Status::IOError(fname_, "append to closed file");
    file_->Append(data);
    return Status::OK();
  }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }

 private:
  const FileRef file_;
  const std::string fname_;
  bool closed_;
};

// Writes each message as one line to an in-memory file.
class MemLogger final : public Logger {
 public:
  explicit MemLogger(FileRef file) : file_(std::move(file)) {}

  void Logv(const char* format, std::va_list ap) override {
    std::va_list measure;
    va_copy(measure, ap);
    int len = std::vsnprintf(nullptr, 0, format, measure);
    va_end(measure);
    if (len < 0) return;
    std::string line(static_cast<size_t>(len) + 1, '\0');
    std::vsnprintf(&line[0], line.size(), format, ap);
    line.resize(len);
    if (line.empty() || line.back() != '\n') line.push_back('\n');
    file_->Append(line);
  }

 private:
  const FileRef file_;
};

class MemFileLock final : public FileLock {
 public:
  explicit MemFileLock(std::string fname) : fname_(std::move(fname)) {}
  const std::string& fname() const { return fname_; }

 private:
  const std::string fname_;
};

// "a/b/" and "a/b" name the same directory.
std::string Normalize(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

class InMemoryEnv final : public EnvWrapper {
 public:
  explicit InMemoryEnv(Env* base) : EnvWrapper(base) {}

  MemEnvAttachment* Attachment(MemEnvAttachment* (*make)()) {
    MutexLock guard(&attachment_mu_);
    if (attachment_ == nullptr) attachment_.reset(make());
    return attachment_.get();
  }

  Status NewSequentialFile(const std::string& fname,
                           SequentialFile** result) override {
    MutexLock guard(&mu_);
    auto it = files_.find(fname);
    if (it == files_.end()) {
      *result = nullptr;
      return Status::NotFound(fname, "File not found");
    }
    *result = new MemSequentialFile(it->second);
    return Status::OK();
  }

  Status NewRandomAccessFile(const std::string& fname,
                             RandomAccessFile** result) override {
    MutexLock guard(&mu_);
    auto it = files_.find(fname);
    if (it == files_.end()) {
      *result = nullptr;
      return Status::NotFound(fname, "File not found");
    }
    *result = new MemRandomAccessFile(it->second);
    return Status::OK();
  }

  Status NewWritableFile(const std::string& fname,
                         WritableFile** result) override {
    MutexLock guard(&mu_);
    if (dirs_.count(Normalize(fname)) != 0) {
      *result = nullptr;
      return Status::IOError(fname, "Is a directory");
    }
    // Truncation: the name now refers to fresh, empty data.
    FileRef file = std::make_shared<FileData>();
    files_[fname] = file;
    *result = new MemWritableFile(file, fname);
    return Status::OK();
  }

  Status NewAppendableFile(const std::string& fname,
                           WritableFile** result) override {
    MutexLock guard(&mu_);
    if (dirs_.count(Normalize(fname)) != 0) {
      *result = nullptr;
      return Status::IOError(fname, "Is a directory");
    }
    FileRef& file = files_[fname];
    if (file == nullptr) file = std::make_shared<FileData>();
    *result = new MemWritableFile(file, fname);
    return Status::OK();
  }

  bool FileExists(const std::string& fname) override {
    MutexLock guard(&mu_);
    return files_.count(fname) != 0 || dirs_.count(Normalize(fname)) != 0;
  }

  // Lists files and directories directly inside dir. A directory that was
  // never created but has files under it lists those files (files do not
  // require their parent to be created); an unknown, empty one lists
  // nothing.
  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override {
    result->clear();
    MutexLock guard(&mu_);
    std::set<std::string> names;
    const std::string prefix = ChildPrefix(dir);
    auto collect = [&](const std::string& path) {
      if (path.size() <= prefix.size() ||
          path.compare(0, prefix.size(), prefix) != 0) {
        return;
      }
      std::string rest = path.substr(prefix.size());
      if (rest.find('/') == std::string::npos) names.insert(rest);
    };
    for (const auto& entry : files_) collect(entry.first);
    for (const std::string& d : dirs_) collect(d);
    result->assign(names.begin(), names.end());
    return Status::OK();
  }

  Status RemoveFile(const std::string& fname) override {
    MutexLock guard(&mu_);
    if (files_.erase(fname) == 0) {
      return Status::NotFound(fname, "File not found");
    }
    return Status::OK();
  }

  Status CreateDir(const std::string& dirname) override {
    MutexLock guard(&mu_);
    const std::string dir = Normalize(dirname);
    if (dirs_.count(dir) != 0 || files_.count(dir) != 0) {
      return Status::IOError(dirname, "File exists");
    }
    dirs_.insert(dir);
    return Status::OK();
  }

  Status RemoveDir(const std::string& dirname) override {
    MutexLock guard(&mu_);
    const std::string dir = Normalize(dirname);
    if (HasChildren(dir))
      return Status::IOError(dirname, "Directory not empty");
    if (dirs_.erase(dir) == 0) {
      return Status::NotFound(dirname, "Directory not found");
    }
    return Status::OK();
  }

  Status GetFileSize(const std::string& fname, uint64_t* file_size) override {
    MutexLock guard(&mu_);
    auto it = files_.find(fname);
    if (it == files_.end()) {
      *file_size = 0;
      return Status::NotFound(fname, "File not found");
    }
    *file_size = it->second->Size();
    return Status::OK();
  }

  // Renames a file (replacing any file at target) or a directory together
  // with everything below it.
  Status RenameFile(const std::string& src,
                    const std::string& target) override {
    MutexLock guard(&mu_);
    auto it = files_.find(src);
    if (it != files_.end()) {
      if (dirs_.count(Normalize(target)) != 0) {
        return Status::IOError(target, "Is a directory");
      }
      FileRef file = it->second;
      files_.erase(it);
      files_[target] = file;
      return Status::OK();
    }
    const std::string from = Normalize(src);
    const std::string to = Normalize(target);
    if (dirs_.count(from) == 0) return Status::NotFound(src, "File not found");
    if (files_.count(to) != 0)
      return Status::IOError(target, "Not a directory");
    if (dirs_.count(to) != 0 && HasChildren(to)) {
      return Status::IOError(target, "Directory not empty");
    }
    if (to.compare(0, from.size() + 1, from + "/") == 0) {
      return Status::InvalidArgument(target, "rename into own subdirectory");
    }
    const std::string from_prefix = from + "/";
    std::map<std::string, FileRef> moved_files;
    for (auto f = files_.begin(); f != files_.end();) {
      if (f->first.compare(0, from_prefix.size(), from_prefix) == 0) {
        moved_files[to + "/" + f->first.substr(from_prefix.size())] = f->second;
        f = files_.erase(f);
      } else {
        ++f;
      }
    }
    std::set<std::string> moved_dirs;
    for (auto d = dirs_.begin(); d != dirs_.end();) {
      if (*d == from || d->compare(0, from_prefix.size(), from_prefix) == 0) {
        moved_dirs.insert(to + d->substr(from.size()));
        d = dirs_.erase(d);
      } else {
        ++d;
      }
    }
    files_.insert(moved_files.begin(), moved_files.end());
    dirs_.insert(moved_dirs.begin(), moved_dirs.end());
    return Status::OK();
  }

  Status LockFile(const std::string& fname, FileLock** lock) override {
    *lock = nullptr;
    MutexLock guard(&mu_);
    if (locked_.count(fname) != 0) {
      return Status::IOError("lock " + fname, "already held by process");
    }
    FileRef& file = files_[fname];  // Locking creates the file, as on POSIX.
    if (file == nullptr) file = std::make_shared<FileData>();
    locked_.insert(fname);
    *lock = new MemFileLock(fname);
    return Status::OK();
  }

  Status UnlockFile(FileLock* lock) override {
    MemFileLock* mem_lock = static_cast<MemFileLock*>(lock);
    {
      MutexLock guard(&mu_);
      locked_.erase(mem_lock->fname());
    }
    delete mem_lock;
    return Status::OK();
  }

  Status GetTestDirectory(std::string* path) override {
    *path = "/test";
    return Status::OK();
  }

  Status NewLogger(const std::string& fname, Logger** result) override {
    MutexLock guard(&mu_);
    FileRef& file = files_[fname];
    if (file == nullptr) file = std::make_shared<FileData>();
    *result = new MemLogger(file);
    return Status::OK();
  }

 private:
  static std::string ChildPrefix(const std::string& dir) {
    std::string d = Normalize(dir);
    return d == "/" ? d : d + "/";
  }

  bool HasChildren(const std::string& dir) const EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::string prefix = ChildPrefix(dir);
    auto under = [&](const std::string& path) {
      return path.size() > prefix.size() &&
             path.compare(0, prefix.size(), prefix) == 0;
    };
    auto f = files_.lower_bound(prefix);
    if (f != files_.end() && under(f->first)) return true;
    auto d = dirs_.upper_bound(prefix);
    return d != dirs_.end() && under(*d);
  }

  port::Mutex mu_;
  std::map<std::string, FileRef> files_ GUARDED_BY(mu_);
  std::set<std::string> dirs_ GUARDED_BY(mu_);  // normalized
  std::set<std::string> locked_ GUARDED_BY(mu_);

  port::Mutex attachment_mu_;
  // Made on first use.
  std::unique_ptr<MemEnvAttachment> attachment_ GUARDED_BY(attachment_mu_);
};

}  // namespace

Env* NewMemEnv(Env* base_env) { return new InMemoryEnv(base_env); }

MemEnvAttachment* MemEnvAttachmentOf(Env* env, MemEnvAttachment* (*make)()) {
  // A wrapper's files are its target's unless it overrides them; one that
  // wraps a memory Env keeps them in memory, so its SST directories belong
  // there too.
  while (env != nullptr) {
    if (InMemoryEnv* mem = dynamic_cast<InMemoryEnv*>(env)) {
      return mem->Attachment(make);
    }
    EnvWrapper* wrapper = dynamic_cast<EnvWrapper*>(env);
    if (wrapper == nullptr) break;
    env = wrapper->target();
  }
  return nullptr;
}

}  // namespace leveldb
