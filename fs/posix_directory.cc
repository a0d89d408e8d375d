// PosixDirectory: names inside the directory are addressed either through
// its held descriptor or, past the descriptor budget, by full path (see
// posix_directory.h).
#include "fs/posix_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include "fs/posix_file_system.h"
#include "port/port.h"
#include "port/thread_annotations.h"
#include "util/mutexlock.h"
#include "util/posix_error.h"
#include "util/posix_write.h"

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

// Reads `n` bytes at `offset` of fd into *contents, stopping early at EOF,
// or as soon as at least `enough` bytes came: a reader that knows a file's
// length asks for one byte more and passes that length as `enough`, so the
// usual read is a single pread whose short count already says "no longer
// than expected" (a second pread would only return 0). Returns 0 or the
// errno of a failed pread (*contents then empty).
int PreadFully(int fd, uint64_t offset, size_t n, std::string* contents,
               size_t enough) {
  contents->resize(n);
  size_t got = 0;
  while (got < n && (got == 0 || got < enough)) {
    ssize_t r =
        pread(fd, &(*contents)[got], n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      contents->clear();
      return errno;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  contents->resize(got);
  return 0;
}

// A count of something the process holds at once, at most `limit`,
// taken and given back without a lock.
class CountBudget {
 public:
  explicit CountBudget(int limit) : limit_(limit), available_(limit) {}

  bool Acquire() {
    int n = available_.load(std::memory_order_relaxed);
    while (n > 0) {
      if (available_.compare_exchange_weak(n, n - 1,
                                           std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }
  void Release() { available_.fetch_add(1, std::memory_order_relaxed); }
  int limit() const { return limit_; }
  int held() const {
    return limit_ - available_.load(std::memory_order_relaxed);
  }

 private:
  const int limit_;
  std::atomic<int> available_;  // limit_ minus what is held
};

// The descriptor budget (DirectoryDescriptorBudget, posix_directory.h).
int DescriptorLimit() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 50;
  if (rl.rlim_cur == RLIM_INFINITY) return INT_MAX;
  return static_cast<int>(
      std::min<rlim_t>(rl.rlim_cur / 5, static_cast<rlim_t>(INT_MAX)));
}

// Mappings of meta files (OpenMappedFile) held by the process, within
// Linux's default vm.max_map_count (65530) with room for everything else;
// past it files are read through descriptors.
constexpr int kMappingLimit = 16384;

CountBudget* Mappings() {
  static CountBudget* const budget = new CountBudget(kMappingLimit);
  return budget;
}

CountBudget* Budget() {
  static CountBudget* const budget = new CountBudget(DescriptorLimit());
  return budget;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

class PosixDirectory final : public Directory {
 public:
  // fd >= 0: a descriptor held under the budget; -1: works by path.
  // `symlink`: `path` is a symbolic link (see file_system.h: only Sync and
  // SyncFileSystem work then).
  PosixDirectory(std::string path, int fd, std::vector<std::string> moved_to,
                 bool symlink)
      : path_(std::move(path)),
        fd_(fd),
        symlink_(symlink),
        moved_to_(std::move(moved_to)),
        current_path_(path_) {}
  ~PosixDirectory() override {
    if (fd_ >= 0) {
      close(fd_);
      Budget()->Release();
    }
  }

  const std::string& path() const override { return path_; }

  Status WriteFile(const std::string& name, const Slice& data,
                   bool sync) override {
    if (symlink_) return LinkNotFollowed(path_);
    int fd = At(name, [](int dirfd, const char* n) {
      return RetryEintr([&] {
        return openat(dirfd, n, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
      });
    });
    // ENOENT here means the directory itself is gone: an I/O error, not an
    // absent entry.
    if (fd < 0) return PosixError(Join(name), errno, false, fd_);
    int err = WriteAll(fd, data.data(), data.size());
    if (err == 0 && sync && fsync(fd) != 0) err = errno;
    int close_err = CloseFd(fd);
    if (err == 0) err = close_err;
    if (err != 0) {
      // Leave no partial KV file behind: the name was never handed out.
      At(name, [](int dirfd, const char* n) { return unlinkat(dirfd, n, 0); });
      return PosixError(Join(name), err, false, fd_);
    }
    return Status::OK();
  }

  Status ReadFile(const std::string& name, std::string* contents) override {
    contents->clear();
    if (symlink_) return LinkNotFollowed(path_);
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
    contents->resize(static_cast<size_t>(st.st_size) + 1);
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
    if (symlink_) return LinkNotFollowed(path_);
    int fd;
    Status s = OpenForRead(name, &fd);
    if (!s.ok()) return s;
    // The caller asked for its known length plus one byte: a single pread
    // returning that length is the whole story (see ReadFileAt's contract).
    int err = PreadFully(fd, offset, n, contents, n > 0 ? n - 1 : 0);
    close(fd);  // read-only: a failed close loses nothing
    if (err != 0) return Error(name, err);
    return Status::OK();
  }

  Status ReadFileAtNoting(const std::string& name, uint64_t offset, size_t n,
                          std::string* contents, bool* from_cache) override {
    *from_cache = false;
    contents->clear();
    if (symlink_) return LinkNotFollowed(path_);
    int fd;
    Status s = OpenForRead(name, &fd);
    if (!s.ok()) return s;
    // First from the page cache only (RWF_NOWAIT: EAGAIN rather than wait
    // for the device); what that did not return, by ReadFileAt's read.
    contents->resize(n);
    struct iovec iov = {n > 0 ? &(*contents)[0] : nullptr, n};
    ssize_t r;
    do {
      r = preadv2(fd, &iov, 1, static_cast<off_t>(offset), RWF_NOWAIT);
    } while (r < 0 && errno == EINTR);
    int err = 0;
    if (r >= 0 && static_cast<size_t>(r) + 1 >= n) {
      *from_cache = true;
      contents->resize(static_cast<size_t>(r));
    } else {
      // Not (wholly) cached (EAGAIN, or a short count), or RWF_NOWAIT not
      // supported here: the ordinary read of the whole range, which also
      // reports any real error.
      err = PreadFully(fd, offset, n, contents, n > 0 ? n - 1 : 0);
    }
    close(fd);  // read-only: a failed close loses nothing
    if (err != 0) return Error(name, err);
    return Status::OK();
  }

  Status OpenFile(const std::string& name,
                  std::unique_ptr<ReadOnlyFile>* result) override;
  Status OpenMappedFile(const std::string& name,
                        std::unique_ptr<ReadOnlyFile>* result) override;

  Status LinkFromAs(Directory* source, const std::string& name,
                    const std::string& new_name) override {
    PosixDirectory* src = dynamic_cast<PosixDirectory*>(source);
    if (symlink_) return LinkNotFollowed(path_);
    if (src != nullptr && src->symlink_) return LinkNotFollowed(src->path_);
    int r;
    if (src != nullptr) {
      // Either side may work by path and have been renamed: At() on this
      // side relocates this directory; on ENOENT the source is relocated
      // and the link tried once more.
      for (int attempt = 0;; attempt++) {
        int src_fd;
        const std::string src_name = src->Locate(name, &src_fd);
        r = At(new_name, [&](int dirfd, const char* n) {
          return linkat(src_fd, src_name.c_str(), dirfd, n, 0);
        });
        if (r == 0 || errno != ENOENT || attempt > 0 || !src->Relocate()) {
          break;
        }
      }
    } else {
      // A foreign Directory: all we have is the path it was opened by.
      const std::string from = source->path() + "/" + name;
      r = At(new_name, [&](int dirfd, const char* n) {
        return linkat(AT_FDCWD, from.c_str(), dirfd, n, 0);
      });
    }
    if (r != 0) {
      int err = errno;
      return PosixError(source->path() + "/" + name + " -> " + Join(new_name),
                        err,
                        /*enoent_is_not_found=*/false, fd_);
    }
    return Status::OK();
  }

  Status Unlink(const std::string& name) override {
    if (symlink_) return LinkNotFollowed(path_);
    if (At(name, [](int dirfd, const char* n) {
          return unlinkat(dirfd, n, 0);
        }) != 0) {
      return PosixError(Join(name), errno, true, fd_);
    }
    return Status::OK();
  }

  Status Stat(const std::string& name, KvFileInfo* info) override {
    if (symlink_) return LinkNotFollowed(path_);
    struct stat st;
    if (At(name, [&](int dirfd, const char* n) {
          return fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW);
        }) != 0) {
      return PosixError(Join(name), errno, true, fd_);
    }
    info->size = static_cast<uint64_t>(st.st_size);
    info->inode = static_cast<uint64_t>(st.st_ino);
    info->links = static_cast<uint64_t>(st.st_nlink);
    info->blocks_512 = static_cast<uint64_t>(st.st_blocks);
    info->directory = S_ISDIR(st.st_mode);
    return Status::OK();
  }

  Status List(std::vector<std::string>* names) override {
    return ReadEntries(false, names);
  }

  Status ListDirectories(std::vector<std::string>* names) override {
    return ReadEntries(true, names);
  }

  Status Sync() override {
    return OnSelf([](int fd) { return RetryEintr([&] { return fsync(fd); }); });
  }

  Status SyncFileSystem() override {
    return OnSelf([](int fd) { return syncfs(fd); });
  }

  // Where `name` is now: returns the name to pass to an *at() call with
  // *dirfd (this directory's descriptor, or AT_FDCWD and a full path).
  std::string Locate(const std::string& name, int* dirfd) {
    if (fd_ >= 0) {
      *dirfd = fd_;
      return name;
    }
    *dirfd = AT_FDCWD;
    MutexLock l(&mu_);
    return current_path_ + "/" + name;
  }

  // Working by path, after a call met ENOENT: if the directory is no longer
  // at its current path but at one of moved_to_, switch to that and return
  // true (the call is worth retrying).
  bool Relocate() {
    if (fd_ >= 0) return false;
    MutexLock l(&mu_);
    if (IsDirectory(current_path_)) return false;
    for (const std::string& p : moved_to_) {
      if (p != current_path_ && IsDirectory(p)) {
        current_path_ = p;
        return true;
      }
    }
    return false;
  }

 private:
  // Runs op(dirfd, name) on `name` in this directory; retried once after a
  // relocation. Returns op's result with errno as op left it.
  template <typename Op>
  int At(const std::string& name, Op op) {
    for (int attempt = 0;; attempt++) {
      int dirfd;
      const std::string where = Locate(name, &dirfd);
      const int r = op(dirfd, where.c_str());
      if (r >= 0 || errno != ENOENT || attempt > 0) return r;
      const int err = errno;
      if (!Relocate()) {
        errno = err;
        return r;
      }
    }
  }

  // The names of this directory's entries but "." and "..", or with
  // `directories_only` those of its entries that are directories: the kind
  // readdir gives, else (DT_UNKNOWN) an fstatat's, not following a link.
  Status ReadEntries(bool directories_only, std::vector<std::string>* names) {
    names->clear();
    if (symlink_) return LinkNotFollowed(path_);
    // A fresh open file description (not dup(), which would share the read
    // offset) so concurrent List calls do not disturb one another.
    int fd = OpenSelf(O_RDONLY);
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
      if (directories_only && e->d_type != DT_DIR) {
        if (e->d_type != DT_UNKNOWN) continue;
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
          if (errno == ENOENT) continue;  // gone since the listing
          err = errno;
          break;
        }
        if (!S_ISDIR(st.st_mode)) continue;
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

  // A new descriptor of this directory, opened with `flags`.
  int OpenSelf(int flags) {
    return At(".", [flags](int dirfd, const char* n) {
      return RetryEintr(
          [&] { return openat(dirfd, n, flags | O_DIRECTORY | O_CLOEXEC); });
    });
  }

  // Runs op on a descriptor of this directory (the held one, or one opened
  // for the call).
  template <typename Op>
  Status OnSelf(Op op) {
    if (fd_ >= 0) {
      if (op(fd_) != 0) return PosixError(path_, errno, false, fd_);
      return Status::OK();
    }
    const int fd = OpenSelf(O_RDONLY);
    if (fd < 0) return PosixError(path_, errno, false, -1);
    int err = op(fd) != 0 ? errno : 0;
    close(fd);
    if (err != 0) return PosixError(path_, err, false, -1);
    return Status::OK();
  }

  std::string Join(const std::string& name) const { return path_ + "/" + name; }

  Status Error(const std::string& name, int err) {
    return PosixError(Join(name), err, true, fd_);
  }

  Status OpenForRead(const std::string& name, int* fd) {
    // O_NOATIME spares a metadata write per read; it is refused (EPERM) on
    // files the process does not own, so fall back to a plain open then.
    // O_NOFOLLOW: a symbolic link in a DeLSM directory is not DeLSM's
    // file, and reading what it points at would take data from outside
    // the database (ELOOP).
    *fd = At(name, [](int dirfd, const char* n) {
      int r = RetryEintr([&] {
        return openat(dirfd, n, O_RDONLY | O_NOATIME | O_NOFOLLOW | O_CLOEXEC);
      });
      if (r < 0 && errno == EPERM) {
        r = RetryEintr([&] {
          return openat(dirfd, n, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        });
      }
      return r;
    });
    if (*fd < 0 && errno == ELOOP) return LinkNotFollowed(Join(name));
    if (*fd < 0) return Error(name, errno);
    return Status::OK();
  }

  const std::string path_;
  const int fd_;        // O_DIRECTORY descriptor, owned, or -1; fixed for life.
  const bool symlink_;  // opened at a symbolic link: Sync only
  const std::vector<std::string> moved_to_;
  port::Mutex mu_;
  // Where the directory is now, when working by path; changed only by
  // Relocate.
  std::string current_path_ GUARDED_BY(mu_);
};

// A file held for repeated reads. Like the directories, it keeps its
// descriptor only within the process-wide budget; past it each read opens
// the file through its Directory (which therefore must outlive it).
class PosixReadOnlyFile final : public ReadOnlyFile {
 public:
  // fd >= 0: a descriptor held under the budget; -1: open per read.
  PosixReadOnlyFile(PosixDirectory* dir, std::string name, int fd,
                    uint64_t size)
      : dir_(dir), name_(std::move(name)), fd_(fd), size_(size) {}
  ~PosixReadOnlyFile() override {
    if (fd_ >= 0) {
      close(fd_);
      Budget()->Release();
    }
  }

  uint64_t size() const override { return size_; }

  Status ReadAt(uint64_t offset, size_t n,
                std::string* contents) const override {
    if (fd_ < 0) return dir_->ReadFileAt(name_, offset, n, contents);
    const int err = PreadFully(fd_, offset, n, contents, n);
    if (err != 0) return PosixError(dir_->path() + "/" + name_, err, false);
    return Status::OK();
  }

 private:
  PosixDirectory* const dir_;  // not owned; outlives this file
  const std::string name_;
  const int fd_;  // owned, or -1; fixed for life
  const uint64_t size_;
};

// A file read from a read-only shared mapping; it holds no descriptor.
class PosixMappedFile final : public ReadOnlyFile {
 public:
  PosixMappedFile(const char* base, uint64_t size) : base_(base), size_(size) {}
  ~PosixMappedFile() override {
    munmap(const_cast<char*>(base_), static_cast<size_t>(size_));
    Mappings()->Release();
  }

  uint64_t size() const override { return size_; }
  const char* mapped() const override { return base_; }

  Status ReadAt(uint64_t offset, size_t n,
                std::string* contents) const override {
    contents->clear();
    if (offset < size_) {
      contents->assign(base_ + offset, static_cast<size_t>(std::min<uint64_t>(
                                           n, size_ - offset)));
    }
    return Status::OK();
  }

 private:
  const char* const base_;
  const uint64_t size_;
};

Status PosixDirectory::OpenMappedFile(const std::string& name,
                                      std::unique_ptr<ReadOnlyFile>* result) {
  result->reset();
  if (symlink_) return LinkNotFollowed(path_);
  if (!Mappings()->Acquire()) return OpenFile(name, result);
  int fd;
  Status s = OpenForRead(name, &fd);
  if (!s.ok()) {
    Mappings()->Release();
    return s;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    Mappings()->Release();
    return Error(name, err);
  }
  void* base = MAP_FAILED;
  if (st.st_size > 0) {
    base = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED,
                fd, 0);
  }
  close(fd);  // read-only: a failed close loses nothing
  if (base == MAP_FAILED) {
    // Empty, or the mapping was refused (ENOMEM, a file system that cannot
    // map): read through a descriptor instead.
    Mappings()->Release();
    return OpenFile(name, result);
  }
  result->reset(new PosixMappedFile(static_cast<const char*>(base),
                                    static_cast<uint64_t>(st.st_size)));
  return Status::OK();
}

Status PosixDirectory::OpenFile(const std::string& name,
                                std::unique_ptr<ReadOnlyFile>* result) {
  result->reset();
  if (symlink_) return LinkNotFollowed(path_);
  int fd;
  Status s = OpenForRead(name, &fd);
  if (!s.ok()) return s;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return Error(name, err);
  }
  if (!Budget()->Acquire()) {
    close(fd);
    fd = -1;
  }
  result->reset(
      new PosixReadOnlyFile(this, name, fd, static_cast<uint64_t>(st.st_size)));
  return Status::OK();
}

}  // namespace

Status OpenPosixDirectory(const std::string& path,
                          const std::vector<std::string>& moved_to,
                          std::unique_ptr<Directory>* result) {
  result->reset();
  // A symbolic link is not followed to list, read or change what it points
  // at (file_system.h); only to sync, for a database directory that is
  // itself a link the user made. O_NOFOLLOW fails on a link (ENOTDIR with
  // O_DIRECTORY on Linux, ELOOP elsewhere); lstat tells it from a file.
  bool symlink = false;
  int fd = RetryEintr([&] {
    return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  });
  if (fd < 0 && (errno == ENOTDIR || errno == ELOOP)) {
    const int err = errno;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      symlink = true;
      fd = RetryEintr([&] {
        return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      });
    } else {
      errno = err;
    }
  }
  if (fd < 0) return PosixError(path, errno, true);
  if (!Budget()->Acquire()) {
    close(fd);  // it only proved the directory exists
    fd = -1;
  }
  result->reset(new PosixDirectory(path, fd, moved_to, symlink));
  return Status::OK();
}

int DirectoryDescriptorBudget() { return Budget()->limit(); }

int DirectoryDescriptorsHeld() { return Budget()->held(); }

}  // namespace leveldb
