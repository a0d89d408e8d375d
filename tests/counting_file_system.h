// A FileSystem for tests that passes every call to FileSystem::Default()
// and counts what the engine reads: the bytes every read returned, the
// number of reads, and which threads read KV files (Directory::ReadFileAt),
// so a test can tell how much of a file a read touched and whether reads
// ran on the read-ahead pool. Thread-safe.
#ifndef DELSM_TESTS_COUNTING_FILE_SYSTEM_H_
#define DELSM_TESTS_COUNTING_FILE_SYSTEM_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fs/file_system.h"
#include "tests/forwarding_file_system.h"

namespace delsm_test {

class CountingFileSystem : public ForwardingFileSystem {
 public:
  // Bytes returned by every read (ReadFile, ReadFileAt, ReadOnlyFile::ReadAt).
  std::atomic<uint64_t> bytes{0};
  // Number of such reads.
  std::atomic<uint64_t> reads{0};
  // Whether ReadFileAtNoting says when a read came from the page cache
  // (as the POSIX file system does). Off: every read "waited", so scans
  // read ahead whatever the cache holds, as tests of read-ahead need.
  bool report_page_cache = false;
  // When simulate_device is set (and report_page_cache is off): the next
  // reads_waiting_for_device reads through ReadFileAtNoting report that
  // they waited for the device, every later one that it came from memory,
  // whatever the page cache holds; a test's way to make a scan's files
  // "go cold" and "warm up" on demand.
  std::atomic<bool> simulate_device{false};
  std::atomic<int64_t> reads_waiting_for_device{0};

  // While held, KV file reads (ReadFileAt, ReadFileAtNoting) on any thread
  // but `except` wait until ReleaseFileReads(); every KV file read counts
  // towards file_reads_in_flight while it runs, and the most ever in flight
  // at once is kept.
  void HoldFileReads(std::thread::id except) {
    std::lock_guard<std::mutex> l(mu_);
    hold_ = true;
    hold_except_ = except;
  }
  void ReleaseFileReads() {
    std::lock_guard<std::mutex> l(mu_);
    hold_ = false;
    cv_.notify_all();
  }
  // Waits until `n` KV file reads are in flight at once; false if that
  // does not happen within a minute (a test failure, not a timing).
  bool WaitForFileReadsInFlight(int n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::minutes(1),
                        [&] { return in_flight_ >= n; });
  }
  int MaxFileReadsInFlight() {
    std::lock_guard<std::mutex> l(mu_);
    return max_in_flight_;
  }

  // ReadFileAt calls made by threads other than `thread`.
  uint64_t FileReadsNotOn(std::thread::id thread) {
    std::lock_guard<std::mutex> l(mu_);
    uint64_t n = 0;
    for (const auto& t : file_reads_by_thread_) {
      if (t.first != thread) n += t.second;
    }
    return n;
  }

  leveldb::Status OpenDirectory(
      const std::string& path,
      std::unique_ptr<leveldb::Directory>* result) override {
    std::unique_ptr<leveldb::Directory> d;
    leveldb::Status s = base()->OpenDirectory(path, &d);
    if (s.ok()) result->reset(new Dir(this, std::move(d)));
    return s;
  }
  leveldb::Status OpenMovableDirectory(
      const std::string& path, const std::vector<std::string>& moved_to,
      std::unique_ptr<leveldb::Directory>* result) override {
    std::unique_ptr<leveldb::Directory> d;
    leveldb::Status s = base()->OpenMovableDirectory(path, moved_to, &d);
    if (s.ok()) result->reset(new Dir(this, std::move(d)));
    return s;
  }

 private:
  void Count(const std::string& data) {
    bytes += data.size();
    reads++;
  }
  void CountFileRead() {
    std::lock_guard<std::mutex> l(mu_);
    file_reads_by_thread_[std::this_thread::get_id()]++;
  }
  // Brackets a KV file read (see HoldFileReads).
  void BeginFileRead() {
    std::unique_lock<std::mutex> l(mu_);
    in_flight_++;
    if (in_flight_ > max_in_flight_) max_in_flight_ = in_flight_;
    cv_.notify_all();
    cv_.wait(l, [&] {
      return !hold_ || std::this_thread::get_id() == hold_except_;
    });
  }
  void EndFileRead() {
    std::lock_guard<std::mutex> l(mu_);
    in_flight_--;
  }

  class File : public leveldb::ReadOnlyFile {
   public:
    File(CountingFileSystem* fs, std::unique_ptr<leveldb::ReadOnlyFile> f)
        : fs_(fs), f_(std::move(f)) {}
    uint64_t size() const override { return f_->size(); }
    leveldb::Status ReadAt(uint64_t offset, size_t n,
                           std::string* c) const override {
      leveldb::Status s = f_->ReadAt(offset, n, c);
      fs_->Count(*c);
      return s;
    }

   private:
    CountingFileSystem* const fs_;
    const std::unique_ptr<leveldb::ReadOnlyFile> f_;
  };

  class Dir : public leveldb::Directory {
   public:
    Dir(CountingFileSystem* fs, std::unique_ptr<leveldb::Directory> d)
        : fs_(fs), d_(std::move(d)) {}
    const std::string& path() const override { return d_->path(); }
    leveldb::Status WriteFile(const std::string& n, const leveldb::Slice& data,
                              bool sync) override {
      return d_->WriteFile(n, data, sync);
    }
    leveldb::Status ReadFile(const std::string& n, std::string* c) override {
      leveldb::Status s = d_->ReadFile(n, c);
      fs_->Count(*c);
      return s;
    }
    leveldb::Status ReadFileAt(const std::string& n, uint64_t off, size_t len,
                               std::string* c) override {
      fs_->BeginFileRead();
      leveldb::Status s = d_->ReadFileAt(n, off, len, c);
      fs_->EndFileRead();
      fs_->Count(*c);
      fs_->CountFileRead();
      return s;
    }
    leveldb::Status ReadFileAtNoting(const std::string& n, uint64_t off,
                                     size_t len, std::string* c,
                                     bool* from_cache) override {
      leveldb::Status s;
      fs_->BeginFileRead();
      if (fs_->report_page_cache) {
        s = d_->ReadFileAtNoting(n, off, len, c, from_cache);
      } else {
        s = d_->ReadFileAt(n, off, len, c);
        *from_cache = fs_->simulate_device &&
                      fs_->reads_waiting_for_device.fetch_sub(1) <= 0;
      }
      fs_->EndFileRead();
      fs_->Count(*c);
      fs_->CountFileRead();
      return s;
    }
    leveldb::Status OpenFile(
        const std::string& n,
        std::unique_ptr<leveldb::ReadOnlyFile>* r) override {
      std::unique_ptr<leveldb::ReadOnlyFile> f;
      leveldb::Status s = d_->OpenFile(n, &f);
      if (s.ok()) r->reset(new File(fs_, std::move(f)));
      return s;
    }
    leveldb::Status LinkFromAs(leveldb::Directory* source, const std::string& n,
                               const std::string& new_name) override {
      // Every Directory the engine holds came from this file system.
      return d_->LinkFromAs(static_cast<Dir*>(source)->d_.get(), n, new_name);
    }
    leveldb::Status Unlink(const std::string& n) override {
      return d_->Unlink(n);
    }
    leveldb::Status Stat(const std::string& n,
                         leveldb::KvFileInfo* i) override {
      return d_->Stat(n, i);
    }
    leveldb::Status List(std::vector<std::string>* names) override {
      return d_->List(names);
    }
    leveldb::Status Sync() override { return d_->Sync(); }
    leveldb::Status SyncFileSystem() override { return d_->SyncFileSystem(); }

   private:
    CountingFileSystem* const fs_;
    const std::unique_ptr<leveldb::Directory> d_;
  };

  std::mutex mu_;
  std::condition_variable cv_;  // signalled on a hold's release, a read's start
  std::map<std::thread::id, uint64_t> file_reads_by_thread_;  // under mu_
  bool hold_ = false;                                         // under mu_
  std::thread::id hold_except_;                               // under mu_
  int in_flight_ = 0;                                         // under mu_
  int max_in_flight_ = 0;                                     // under mu_
};

}  // namespace delsm_test

#endif  // DELSM_TESTS_COUNTING_FILE_SYSTEM_H_
