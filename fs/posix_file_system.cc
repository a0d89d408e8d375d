// POSIX FileSystem: every operation on a name inside a directory goes
// through the directory's held descriptor (*at() calls), which is both the
// cheapest way to address it and keeps working after the directory has been
// renamed to another level.
#include "fs/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/posix_error.h"

namespace leveldb {

namespace {

// Retries a system call interrupted by a signal.
template <typename F>
auto RetryEintr(F f) -> decltype(f()) {
  decltype(f()) r;
  do {
    r = f();
  } while (r < 0 && errno == EINTR);
  return r;
}

// Closes fd; returns 0 or the errno of a failed close.
int CloseFd(int fd) {
  // close() is not retried on EINTR: on Linux the descriptor is gone anyway.
  if (close(fd) != 0) return errno;
  return 0;
}

class PosixDirectory final : public Directory {
 public:
  PosixDirectory(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixDirectory() override { close(fd_); }

  const std::string& path() const override { return path_; }

  Status WriteFile(const std::string& name, const Slice& data,
                   bool sync) override {
    int fd = RetryEintr([&] {
      return openat(fd_, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
                    0644);
    });
    // ENOENT here means the directory itself is gone: an I/O error, not an
    // absent entry.
    if (fd < 0) return PosixError(path_ + "/" + name, errno, false, fd_);
    const char* p = data.data();
    size_t left = data.size();
    int err = 0;
    while (left > 0) {
      ssize_t w = write(fd, p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        err = errno;
        break;
      }
      p += w;
      left -= static_cast<size_t>(w);
    }
    if (err == 0 && sync && fsync(fd) != 0) err = errno;
    int close_err = CloseFd(fd);
    if (err == 0) err = close_err;
    if (err != 0) {
      // Leave no partial KV file behind: the name was never handed out.
      unlinkat(fd_, name.c_str(), 0);
      return PosixError(path_ + "/" + name, err, false, fd_);
    }
    return Status::OK();
  }

  Status ReadFile(const std::string& name, std::string* contents) override {
    contents->clear();
    int fd;
    Status s = OpenForRead(name, &fd);
    if (!s.ok()) return s;
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int err = errno;
      close(fd);
      return Error(name, err);
    }
    // Read until EOF rather than trusting st_size alone.
    size_t capacity = static_cast<size_t>(st.st_size) + 1;
    contents->resize(capacity);
    size_t got = 0;
    int err = 0;
    while (true) {
      if (got == contents->size()) contents->resize(contents->size() * 2);
      ssize_t r = pread(fd, &(*contents)[got], contents->size() - got,
                        static_cast<off_t>(got));
      if (r < 0) {
        if (errno == EINTR) continue;
        err = errno;
        break;
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    close(fd);  // read-only: a failed close loses nothing
    if (err != 0) {
      contents->clear();
      return Error(name, err);
    }
    contents->resize(got);
    return Status::OK();
  }

  Status ReadFileAt(const std::string& name, uint64_t offset, size_t n,
                    std::string* contents) override {
    contents->clear();
    int fd;
    Status s = OpenForRead(name, &fd);
    if (!s.ok()) return s;
    contents->resize(n);
    size_t got = 0;
    int err = 0;
    while (got < n) {
      ssize_t r = pread(fd, &(*contents)[got], n - got,
                        static_cast<off_t>(offset + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        err = errno;
        break;
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    close(fd);
    if (err != 0) {
      contents->clear();
      return Error(name, err);
    }
    contents->resize(got);
    return Status::OK();
  }

  Status LinkFrom(Directory* source, const std::string& name) override {
    int r;
    PosixDirectory* src = dynamic_cast<PosixDirectory*>(source);
    if (src != nullptr) {
      r = linkat(src->fd_, name.c_str(), fd_, name.c_str(), 0);
    } else {
      // A foreign Directory: all we have is the path it was opened by.
      std::string from = source->path() + "/" + name;
      r = linkat(AT_FDCWD, from.c_str(), fd_, name.c_str(), 0);
    }
    if (r != 0) {
      int err = errno;
      return PosixError(
          source->path() + "/" + name + " -> " + path_ + "/" + name, err,
          /*enoent_is_not_found=*/false, fd_);
    }
    return Status::OK();
  }

  Status Unlink(const std::string& name) override {
    if (unlinkat(fd_, name.c_str(), 0) != 0) {
      return PosixError(path_ + "/" + name, errno, true, fd_);
    }
    return Status::OK();
  }

  Status Stat(const std::string& name, KvFileInfo* info) override {
    struct stat st;
    if (fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return PosixError(path_ + "/" + name, errno, true, fd_);
    }
    info->size = static_cast<uint64_t>(st.st_size);
    info->inode = static_cast<uint64_t>(st.st_ino);
    info->links = static_cast<uint64_t>(st.st_nlink);
    info->blocks_512 = static_cast<uint64_t>(st.st_blocks);
    return Status::OK();
  }

  Status List(std::vector<std::string>* names) override {
    names->clear();
    // A fresh open file description (not dup(), which would share the read
    // offset) so concurrent List calls do not disturb one another.
    int fd = RetryEintr(
        [&] { return openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    if (fd < 0) return PosixError(path_, errno, false, fd_);
    DIR* d = fdopendir(fd);
    if (d == nullptr) {
      int err = errno;
      close(fd);
      return PosixError(path_, err, false, fd_);
    }
    int err = 0;
    while (true) {
      errno = 0;
      struct dirent* e = readdir(d);
      if (e == nullptr) {
        err = errno;
        break;
      }
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
        continue;
      }
      names->emplace_back(e->d_name);
    }
    closedir(d);  // also closes fd
    if (err != 0) {
      names->clear();
      return PosixError(path_, err, false, fd_);
    }
    return Status::OK();
  }

  Status Sync() override {
    if (RetryEintr([&] { return fsync(fd_); }) != 0) {
      return PosixError(path_, errno, false, fd_);
    }
    return Status::OK();
  }

  Status SyncFileSystem() override {
    if (syncfs(fd_) != 0) return PosixError(path_, errno, false, fd_);
    return Status::OK();
  }

 private:
  Status Error(const std::string& name, int err) {
    return PosixError(path_ + "/" + name, err, true, fd_);
  }

  Status OpenForRead(const std::string& name, int* fd) {
    // O_NOATIME spares a metadata write per read; it is refused (EPERM) on
    // files the process does not own, so fall back to a plain open then.
    *fd = RetryEintr([&] {
      return openat(fd_, name.c_str(), O_RDONLY | O_NOATIME | O_CLOEXEC);
    });
    if (*fd < 0 && errno == EPERM) {
      *fd = RetryEintr(
          [&] { return openat(fd_, name.c_str(), O_RDONLY | O_CLOEXEC); });
    }
    if (*fd < 0) return Error(name, errno);
    return Status::OK();
  }

  const std::string path_;
  const int fd_;  // O_DIRECTORY descriptor, owned; fixed for life.
};

class PosixFileSystem final : public FileSystem {
 public:
  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override {
    result->reset();
    int fd = RetryEintr(
        [&] { return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    if (fd < 0) return PosixError(path, errno, true);
    result->reset(new PosixDirectory(path, fd));
    return Status::OK();
  }

  Status CreateDir(const std::string& path, bool ok_if_exists) override {
    if (mkdir(path.c_str(), 0755) != 0) {
      int err = errno;
      if (err == EEXIST && ok_if_exists) {
        struct stat st;
        if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          return Status::OK();
        }
      }
      return PosixError(path, err, false);
    }
    return Status::OK();
  }

  Status RemoveDir(const std::string& path) override {
    if (rmdir(path.c_str()) != 0) return PosixError(path, errno, true);
    return Status::OK();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) {
      return PosixError(from + " -> " + to, errno, true, -1);
    }
    return Status::OK();
  }

  bool Exists(const std::string& path) override {
    struct stat st;
    return lstat(path.c_str(), &st) == 0;
  }
};

}  // namespace

Status GetFileSystemSpace(const std::string& path, FileSystemSpace* space) {
  struct statvfs vfs;
  if (statvfs(path.c_str(), &vfs) != 0) return PosixError(path, errno, true);
  space->block_size = static_cast<uint64_t>(vfs.f_frsize);
  space->total_inodes = static_cast<uint64_t>(vfs.f_files);
  space->free_inodes = static_cast<uint64_t>(vfs.f_favail);
  space->free_bytes =
      static_cast<uint64_t>(vfs.f_bavail) * static_cast<uint64_t>(vfs.f_frsize);
  return Status::OK();
}

int RemoveTreeAt(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? 0 : errno;
  if (!S_ISDIR(st.st_mode)) {
    return unlink(path.c_str()) != 0 && errno != ENOENT ? errno : 0;
  }
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return errno;
  std::vector<std::string> names;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  int first = 0;
  for (const std::string& name : names) {
    const int err = RemoveTreeAt(path + "/" + name);
    if (first == 0) first = err;
  }
  if (rmdir(path.c_str()) != 0 && errno != ENOENT && first == 0) first = errno;
  return first;
}

Status UnlinkDirectoryEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return PosixError(dir, errno, false);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  Status result;
  if (errno != 0) result = PosixError(dir, errno, false);
  closedir(d);
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    if (unlink(path.c_str()) != 0 && result.ok()) {
      result = PosixError(path, errno, false);
    }
  }
  return result;
}

FileSystem* FileSystem::Default() {
  static FileSystem* const fs = new PosixFileSystem();
  return fs;
}

}  // namespace leveldb
