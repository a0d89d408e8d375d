// An Env wrapper whose reads fail with EIO, as a device with a bad sector
// fails them: for the readers of WALs, manifests and LevelDB's files,
// which must tell a failed read (the file may be whole) from damage (the
// file is not). Opens succeed; what fails is chosen by path:
//   * reads of a file whose path contains `set_failing_reads`'s string,
//     once `good_bytes` of it have been read (0: from the first read),
//     for the first `files` such files opened (0: every one);
//   * listing (GetChildren) a directory whose path contains
//     `set_failing_listings`'s string;
//   * with `set_failing_lookups`, also FileExists of such a path, which
//     answers false, as access(2) does whatever its error: a directory
//     whose inode cannot be read (EIO) fails both;
//   * with `set_failing_stats`, also GetFileSize (stat(2)) of such a path:
//     a file whose inode cannot be read fails it, as it fails access(2).
// Each failure is an IOError naming the path and "Input/output error".
// Everything else passes through. Thread-safe; configure before use.
#ifndef DELSM_TESTING_READ_ERROR_ENV_H_
#define DELSM_TESTING_READ_ERROR_ENV_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/env.h"
#include "leveldb/status.h"

namespace leveldb {

class ReadErrorEnv : public EnvWrapper {
 public:
  // `base` is not owned and must outlive this object and its files.
  explicit ReadErrorEnv(Env* base) : EnvWrapper(base) {}

  void set_failing_reads(std::string path_contains, uint64_t good_bytes = 0,
                         int files = 0) {
    read_path_ = std::move(path_contains);
    good_bytes_ = good_bytes;
    failing_files_ = files;
  }
  void set_failing_listings(std::string path_contains) {
    list_path_ = std::move(path_contains);
    lookups_fail_ = false;
    stats_fail_ = false;
  }
  void set_failing_lookups(std::string path_contains) {
    list_path_ = std::move(path_contains);
    lookups_fail_ = true;
    stats_fail_ = false;
  }
  void set_failing_stats(std::string path_contains) {
    list_path_ = std::move(path_contains);
    lookups_fail_ = true;
    stats_fail_ = true;
  }

  // Reads and listings failed so far.
  int failed_reads() const { return failed_reads_.load(); }
  int failed_listings() const { return failed_listings_.load(); }

  Status NewSequentialFile(const std::string& f,
                           SequentialFile** result) override;
  Status NewRandomAccessFile(const std::string& f,
                             RandomAccessFile** result) override;
  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override;
  bool FileExists(const std::string& f) override;
  Status GetFileSize(const std::string& f, uint64_t* size) override;

 private:
  class Sequential;
  class RandomAccess;

  // Whether reads of `f`, being opened, are to fail (past good_bytes_).
  bool FailsReadsOf(const std::string& f);
  Status ReadError(const std::string& f) {
    failed_reads_++;
    return Status::IOError(f, "Input/output error");
  }

  std::string read_path_;
  uint64_t good_bytes_ = 0;
  int failing_files_ = 0;
  std::string list_path_;
  bool lookups_fail_ = false;
  bool stats_fail_ = false;
  std::atomic<int> opened_{0};
  std::atomic<int> failed_reads_{0};
  std::atomic<int> failed_listings_{0};
};

}  // namespace leveldb

#endif  // DELSM_TESTING_READ_ERROR_ENV_H_
