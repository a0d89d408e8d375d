// Env::Default(): the POSIX environment. Every file descriptor is opened
// with O_CLOEXEC so that child processes never inherit database files or
// the LOCK file's lock.
//
// What it creates or opens to write (LockFile, NewWritableFile,
// NewAppendableFile, NewLogger) is never a symbolic link's target: those
// opens carry O_NOFOLLOW, and a link at the path's last component is
// refused with IOError("<path>", "a symbolic link, not followed"), so a
// link planted in a database directory cannot make DeLSM create, truncate
// or write a file outside it. (Links among the path's earlier components,
// such as a database directory that is itself a link, are followed.)
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "leveldb/env.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"
#include "port/port.h"
#include "port/thread_annotations.h"
#include "util/mutexlock.h"
#include "util/posix_error.h"
#include "util/posix_logger.h"
#include "util/posix_write.h"

namespace leveldb {

namespace {

// Writes all of [data, data+size) (WriteAll).
Status WriteFully(int fd, const char* data, size_t size,
                  const std::string& fname) {
  const int err = WriteAll(fd, data, size);
  return err == 0 ? Status::OK() : PosixError(fname, err);
}

// fsync of a directory: makes the entries changed in it durable.
Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError(dir, errno);
  Status s;
  if (::fsync(fd) < 0) s = PosixError(dir, errno);
  ::close(fd);
  return s;
}

// The Status for a failed open of `fname` made with O_NOFOLLOW: a link at
// its last component reads as refused, not as ELOOP's "Too many levels of
// symbolic links".
Status OpenError(const std::string& fname, int err) {
  struct stat st;
  if (err == ELOOP && ::lstat(fname.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return LinkNotFollowed(fname);
  }
  return PosixError(fname, err);
}

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string fname, int fd)
      : fd_(fd), fname_(std::move(fname)) {}
  ~PosixSequentialFile() override { ::close(fd_); }

  Status Read(size_t n, Slice* result, char* scratch) override {
    while (true) {
      ssize_t got = ::read(fd_, scratch, n);
      if (got < 0) {
        if (errno == EINTR) continue;
        *result = Slice(scratch, 0);
        return PosixError(fname_, errno);
      }
      *result = Slice(scratch, static_cast<size_t>(got));
      return Status::OK();
    }
  }

  Status Skip(uint64_t n) override {
    if (::lseek(fd_, static_cast<off_t>(n), SEEK_CUR) ==
        static_cast<off_t>(-1)) {
      return PosixError(fname_, errno);
    }
    return Status::OK();
  }

 private:
  const int fd_;
  const std::string fname_;
};

// Reads with pread(), so it is safe for concurrent use by many threads.
class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string fname, int fd)
      : fd_(fd), fname_(std::move(fname)) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    // Loop so a short read from a signal or a large request still returns
    // everything up to end of file.
    size_t done = 0;
    while (done < n) {
      ssize_t got = ::pread(fd_, scratch + done, n - done,
                            static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;
        *result = Slice(scratch, 0);
        return PosixError(fname_, errno);
      }
      if (got == 0) break;  // End of file.
      done += static_cast<size_t>(got);
    }
    *result = Slice(scratch, done);
    return Status::OK();
  }

 private:
  const int fd_;
  const std::string fname_;
};

// Buffers appends in memory; Flush hands them to the kernel, Sync makes
// them durable.
class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string fname, int fd)
      : fd_(fd), fname_(std::move(fname)), dir_synced_(false) {}

  ~PosixWritableFile() override {
    if (fd_ >= 0) Close();  // Errors here have nowhere to go.
  }

  Status Append(const Slice& data) override {
    if (fd_ < 0) return Status::IOError(fname_, "append to closed file");
    const char* p = data.data();
    size_t left = data.size();
    size_t fits = std::min(left, kBufferSize - buffer_.size());
    buffer_.append(p, fits);
    p += fits;
    left -= fits;
    if (left == 0) return Status::OK();

    Status s = FlushBuffer();
    if (!s.ok()) return s;
    // A write larger than the buffer goes straight to the kernel instead of
    // being copied through the buffer piece by piece.
    if (left >= kBufferSize) return WriteFully(fd_, p, left, fname_);
    buffer_.append(p, left);
    return Status::OK();
  }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status s = FlushBuffer();
    if (::close(fd_) < 0 && s.ok()) s = PosixError(fname_, errno);
    fd_ = -1;
    return s;
  }

  Status Flush() override {
    if (fd_ < 0) return Status::IOError(fname_, "flush of closed file");
    return FlushBuffer();
  }

  Status Sync() override {
    if (fd_ < 0) return Status::IOError(fname_, "sync of closed file");
    // Data synced into a file is only reachable after a crash once the
    // file's directory entry is durable too: a new manifest (CURRENT will
    // point at it right after this sync), and equally a new WAL whose
    // first sync=true write this is. Once per file suffices.
    if (!dir_synced_) {
      Status s = SyncDirectory(ParentOfPath(fname_));
      if (!s.ok()) return s;
      dir_synced_ = true;
    }
    Status s = FlushBuffer();
    if (!s.ok()) return s;
    if (::fdatasync(fd_) < 0) return PosixError(fname_, errno);
    return Status::OK();
  }

 private:
  static constexpr size_t kBufferSize = 64 * 1024;

  Status FlushBuffer() {
    Status s = WriteFully(fd_, buffer_.data(), buffer_.size(), fname_);
    buffer_.clear();
    return s;
  }

  int fd_;  // -1 once closed.
  const std::string fname_;
  bool dir_synced_;
  std::string buffer_;
};

class PosixFileLock final : public FileLock {
 public:
  PosixFileLock(int fd, std::string fname)
      : fd_(fd), fname_(std::move(fname)) {}
  int fd() const { return fd_; }
  const std::string& fname() const { return fname_; }

 private:
  const int fd_;
  const std::string fname_;
};

// fcntl locks are per process: a second F_SETLK from the same process
// succeeds. This set makes a second LockFile of the same path in one
// process fail as well, so two DB objects cannot share a database.
class LockedPaths {
 public:
  bool Insert(const std::string& fname) {
    MutexLock guard(&mu_);
    return paths_.insert(fname).second;
  }
  void Remove(const std::string& fname) {
    MutexLock guard(&mu_);
    paths_.erase(fname);
  }

 private:
  port::Mutex mu_;
  std::set<std::string> paths_ GUARDED_BY(mu_);
};

int LockOrUnlock(int fd, bool lock) {
  struct flock info;
  std::memset(&info, 0, sizeof(info));
  info.l_type = lock ? F_WRLCK : F_UNLCK;
  info.l_whence = SEEK_SET;
  info.l_start = 0;
  info.l_len = 0;  // The whole file.
  return ::fcntl(fd, F_SETLK, &info);
}

// How many times LockFile takes a lock before it gives up on a LOCK file
// that is replaced each time (by other processes' DestroyDB and Open).
constexpr int kLockAttempts = 5;

// Sets *named to whether `fname` (not followed, as LockFile opens it) names
// the file open as `fd`. Not there (ENOENT) is not named; any other failed
// lookup is an error.
Status StillNamed(int fd, const std::string& fname, bool* named) {
  *named = false;
  struct stat held, at_path;
  if (::fstat(fd, &held) < 0) return PosixError("lock " + fname, errno);
  if (::lstat(fname.c_str(), &at_path) < 0) {
    const int err = errno;
    return err == ENOENT ? Status::OK() : PosixError("lock " + fname, err);
  }
  *named = held.st_dev == at_path.st_dev && held.st_ino == at_path.st_ino;
  return Status::OK();
}

class PosixEnv final : public Env {
 public:
  PosixEnv() : background_started_(false) {}
  // Env::Default() is never destroyed; a destructor running would mean
  // the background thread outlives its queue.
  ~PosixEnv() override {
    std::fprintf(stderr, "PosixEnv singleton destroyed; unsupported\n");
    std::abort();
  }

  Status NewSequentialFile(const std::string& fname,
                           SequentialFile** result) override {
    int fd = ::open(fname.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *result = nullptr;
      return PosixError(fname, errno);
    }
    *result = new PosixSequentialFile(fname, fd);
    return Status::OK();
  }

  Status NewRandomAccessFile(const std::string& fname,
                             RandomAccessFile** result) override {
    int fd = ::open(fname.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *result = nullptr;
      return PosixError(fname, errno);
    }
    *result = new PosixRandomAccessFile(fname, fd);
    return Status::OK();
  }

  Status NewWritableFile(const std::string& fname,
                         WritableFile** result) override {
    return OpenForWrite(fname, O_TRUNC, result);
  }

  Status NewAppendableFile(const std::string& fname,
                           WritableFile** result) override {
    return OpenForWrite(fname, O_APPEND, result);
  }

  bool FileExists(const std::string& fname) override {
    return ::access(fname.c_str(), F_OK) == 0;
  }

  // Like LevelDB's POSIX Env, returns every entry readdir() reports,
  // including "." and "..".
  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override {
    result->clear();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return PosixError(dir, errno);
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(d);
      if (entry == nullptr) {
        int err = errno;
        ::closedir(d);
        if (err != 0) return PosixError(dir, err);
        return Status::OK();
      }
      result->emplace_back(entry->d_name);
    }
  }

  Status RemoveFile(const std::string& fname) override {
    if (::unlink(fname.c_str()) < 0) return PosixError(fname, errno);
    return Status::OK();
  }

  Status CreateDir(const std::string& dirname) override {
    if (::mkdir(dirname.c_str(), 0755) < 0) return PosixError(dirname, errno);
    return Status::OK();
  }

  Status RemoveDir(const std::string& dirname) override {
    if (::rmdir(dirname.c_str()) < 0) return PosixError(dirname, errno);
    return Status::OK();
  }

  Status GetFileSize(const std::string& fname, uint64_t* size) override {
    struct stat st;
    if (::stat(fname.c_str(), &st) < 0) {
      *size = 0;
      return PosixError(fname, errno);
    }
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }

  Status RenameFile(const std::string& src,
                    const std::string& target) override {
    if (::rename(src.c_str(), target.c_str()) < 0) {
      return PosixError(src, errno);
    }
    // Make the rename itself durable: switching CURRENT to a new manifest
    // must not be undone by a power failure after the old manifest's
    // successors have been acted upon.
    Status s = SyncDirectory(ParentOfPath(target));
    if (s.ok() && ParentOfPath(src) != ParentOfPath(target)) {
      s = SyncDirectory(ParentOfPath(src));
    }
    return s;
  }

  // The lock is taken on the file the open found, which may no longer be
  // at `fname` once locked: another process's DestroyDB can unlink it
  // between the open and the lock (it removes the LOCK while holding it,
  // then lets go). A lock on a file no directory names keeps nobody out:
  // the next Open would make a new LOCK, lock it and open the database
  // too. So once locked, `fname` must still name the locked file (same
  // device and inode); if not, the lock is let go and taken again on what
  // `fname` names now. A lookup of `fname` that fails otherwise than with
  // ENOENT fails the call.
  Status LockFile(const std::string& fname, FileLock** lock) override {
    *lock = nullptr;
    int fd =
        ::open(fname.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return OpenError(fname, errno);
    if (!locked_.Insert(fname)) {
      ::close(fd);
      return Status::IOError("lock " + fname, "already held by process");
    }
    Status s;
    for (int attempt = 1;; attempt++) {
      if (LockOrUnlock(fd, true) < 0) {
        s = PosixError("lock " + fname, errno);
        break;
      }
      bool named;
      s = StillNamed(fd, fname, &named);
      if (s.ok() && named) {
        *lock = new PosixFileLock(fd, fname);
        return s;
      }
      if (!s.ok()) break;
      if (attempt == kLockAttempts) {
        s = Status::IOError("lock " + fname,
                            "the file was replaced or removed each time it "
                            "was locked");
        break;
      }
      ::close(fd);  // lets go of the lock on the file no longer there
      fd = ::open(fname.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                  0644);
      if (fd < 0) {
        s = OpenError(fname, errno);
        break;
      }
    }
    if (fd >= 0) ::close(fd);
    locked_.Remove(fname);
    return s;
  }

  Status UnlockFile(FileLock* lock) override {
    PosixFileLock* posix_lock = static_cast<PosixFileLock*>(lock);
    Status s;
    if (LockOrUnlock(posix_lock->fd(), false) < 0) {
      s = PosixError("unlock " + posix_lock->fname(), errno);
    }
    locked_.Remove(posix_lock->fname());
    ::close(posix_lock->fd());
    delete posix_lock;
    return s;
  }

  void Schedule(void (*function)(void* arg), void* arg) override {
    MutexLock guard(&background_mu_);
    if (!background_started_) {
      background_started_ = true;
      std::thread(&PosixEnv::BackgroundLoop, this).detach();
    }
    background_queue_.emplace_back(function, arg);
    background_cv_.Signal();
  }

  void StartThread(void (*function)(void* arg), void* arg) override {
    std::thread(function, arg).detach();
  }

  Status GetTestDirectory(std::string* result) override {
    // $TEST_TMPDIR as LevelDB; else a directory of this user's under
    // $DELSM_TEST_DIR (the file system DeLSM's tests run on), else /tmp.
    const char* env_dir = std::getenv("TEST_TMPDIR");
    const char* root = std::getenv("DELSM_TEST_DIR");
    if (env_dir != nullptr && env_dir[0] != '\0') {
      *result = env_dir;
    } else {
      *result =
          std::string(root != nullptr && root[0] != '\0' ? root : "/tmp") +
          "/leveldbtest-" + std::to_string(::geteuid());
    }
    CreateDir(*result);  // Usually exists already; that is fine.
    return Status::OK();
  }

  Status NewLogger(const std::string& fname, Logger** result) override {
    int fd =
        ::open(fname.c_str(),
               O_APPEND | O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      *result = nullptr;
      return OpenError(fname, errno);
    }
    std::FILE* fp = ::fdopen(fd, "w");
    if (fp == nullptr) {
      int err = errno;
      ::close(fd);
      *result = nullptr;
      return PosixError(fname, err);
    }
    *result = new PosixLogger(fp);
    return Status::OK();
  }

  uint64_t NowMicros() override {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count());
  }

  void SleepForMicroseconds(int micros) override {
    std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }

 private:
  Status OpenForWrite(const std::string& fname, int mode_flag,
                      WritableFile** result) {
    int fd =
        ::open(fname.c_str(),
               O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | mode_flag, 0644);
    if (fd < 0) {
      *result = nullptr;
      return OpenError(fname, errno);
    }
    *result = new PosixWritableFile(fname, fd);
    return Status::OK();
  }

  // Runs scheduled work in FIFO order, forever.
  void BackgroundLoop() LOCKS_EXCLUDED(background_mu_) {
    while (true) {
      std::pair<void (*)(void*), void*> work;
      {
        MutexLock lock(&background_mu_);
        while (background_queue_.empty()) background_cv_.Wait();
        work = background_queue_.front();
        background_queue_.pop_front();
      }
      work.first(work.second);
    }
  }

  LockedPaths locked_;

  port::Mutex background_mu_;
  port::CondVar background_cv_{&background_mu_};  // signalled on Schedule
  bool background_started_ GUARDED_BY(background_mu_);
  std::deque<std::pair<void (*)(void*), void*>> background_queue_
      GUARDED_BY(background_mu_);
};

}  // namespace

Env* Env::Default() {
  // Placement-new into static storage: never destroyed, so detached
  // background threads can use it during and after static destruction.
  alignas(PosixEnv) static unsigned char storage[sizeof(PosixEnv)];
  static Env* const instance = new (storage) PosixEnv();
  return instance;
}

}  // namespace leveldb
