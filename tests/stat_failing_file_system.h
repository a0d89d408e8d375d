// A FileSystem whose lookups of chosen paths fail (EIO), as a damaged
// inode or a failing device makes them fail: FileSystem::Probe reports the
// error and Exists answers false, which callers must not take for absence
// where they would forget, skip or remove something because of it. Every
// other call passes to the wrapped file system (FileSystem::Default()
// unless told). Thread-safe.
#ifndef DELSM_TESTS_STAT_FAILING_FILE_SYSTEM_H_
#define DELSM_TESTS_STAT_FAILING_FILE_SYSTEM_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fs/file_system.h"
#include "tests/forwarding_file_system.h"

namespace delsm_test {

class StatFailingFileSystem : public ForwardingFileSystem {
 public:
  explicit StatFailingFileSystem(
      leveldb::FileSystem* base = leveldb::FileSystem::Default())
      : ForwardingFileSystem(base) {}

  // From now on the lstat (Probe, Exists) of every path holding `fragment`
  // fails; "" ends it.
  void FailExistsUnder(const std::string& fragment) {
    std::lock_guard<std::mutex> l(mu_);
    fragment_ = fragment;
    opens_too_ = false;
  }
  // The same, and the opening of those paths as directories (OpenDirectory,
  // ListDirectory) fails too, as it does for an inode that cannot be read.
  void FailLookupsUnder(const std::string& fragment) {
    std::lock_guard<std::mutex> l(mu_);
    fragment_ = fragment;
    opens_too_ = true;
  }
  // The calls failed for a path that exists.
  int Failed() {
    std::lock_guard<std::mutex> l(mu_);
    return failed_;
  }

  // What the POSIX implementation answers when lstat fails with EIO.
  leveldb::Status Probe(const std::string& path, bool* exists) override {
    leveldb::Status s = base()->Probe(path, exists);
    if (!Fails(path, /*open=*/false, s.ok() && *exists)) return s;
    *exists = false;
    return leveldb::Status::IOError(path, "Input/output error");
  }

  leveldb::Status OpenDirectory(
      const std::string& path,
      std::unique_ptr<leveldb::Directory>* result) override {
    if (Fails(path, /*open=*/true, base()->Exists(path))) {
      return leveldb::Status::IOError(path, "Input/output error");
    }
    return base()->OpenDirectory(path, result);
  }
  leveldb::Status OpenMovableDirectory(
      const std::string& path, const std::vector<std::string>& moved_to,
      std::unique_ptr<leveldb::Directory>* result) override {
    if (Fails(path, /*open=*/true, base()->Exists(path))) {
      return leveldb::Status::IOError(path, "Input/output error");
    }
    return base()->OpenMovableDirectory(path, moved_to, result);
  }

 private:
  // Whether a lookup (an open, if `open`) of `path` fails; counts it if
  // `exists`.
  bool Fails(const std::string& path, bool open, bool exists) {
    std::lock_guard<std::mutex> l(mu_);
    if (fragment_.empty() || path.find(fragment_) == std::string::npos ||
        (open && !opens_too_)) {
      return false;
    }
    if (exists) failed_++;
    return true;
  }

  std::mutex mu_;
  std::string fragment_;    // guarded by mu_
  bool opens_too_ = false;  // guarded by mu_
  int failed_ = 0;          // guarded by mu_
};

}  // namespace delsm_test

#endif  // DELSM_TESTS_STAT_FAILING_FILE_SYSTEM_H_
