// Read-ahead of a scan over one SST directory's KV files: the
// reads ahead stay within read_ahead_files files and read_ahead_bytes bytes
// past the cursor, each value is read once (by the pool or by the scan, not
// both), a scan that stops (its iterator destroyed, or a seek elsewhere)
// starts no further read, a failed read ahead is the iterator's error and
// never a value; files in the page cache are read by the scan and one pool
// thread beside it, files that wait for the device by every pool thread.
//
// The read-ahead pool has one worker, which the test holds on a gate while
// the scan schedules its reads; then it releases the gate and waits for a
// marker task submitted last. The pool runs tasks in submission order, so
// when the marker has run every read scheduled before it has run or been
// dropped: the counts below do not depend on timing.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db/dbformat.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "table/key_codec.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"
#include "table/sst_dir_options.h"
#include "tests/counting_file_system.h"
#include "tests/test_support.h"
#include "util/thread_pool.h"

namespace leveldb {
namespace {

constexpr int kEntries = 40;
constexpr size_t kValueSize = 4000;

std::string UserKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%04d", i);
  return buf;
}

// Distinct incompressible-enough bytes per entry.
std::string Value(int i) {
  std::string v(kValueSize, 'a');
  uint32_t x = 2654435761u * static_cast<uint32_t>(i + 1);
  for (char& c : v) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>('a' + (x >> 16) % 26);
  }
  return v;
}

// Holds the pool's only worker until Release() (or destruction, so a failed
// assertion never leaves the pool's destructor waiting forever). The state
// is shared with the task, which may still be waking when the Gate is gone.
class Gate {
 public:
  explicit Gate(ThreadPool* pool) : state_(std::make_shared<State>()) {
    std::shared_ptr<State> state = state_;
    pool->Submit([state] {
      std::unique_lock<std::mutex> l(state->mu);
      state->cv.wait(l, [&state] { return state->open; });
    });
  }
  ~Gate() { Release(); }
  void Release() {
    std::lock_guard<std::mutex> l(state_->mu);
    state_->open = true;
    state_->cv.notify_all();
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
  };
  const std::shared_ptr<State> state_;
};

// Returns once every task submitted to `pool` before this call has run.
void Drain(ThreadPool* pool) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool ran = false;
  };
  auto state = std::make_shared<State>();
  pool->Submit([state] {
    std::lock_guard<std::mutex> l(state->mu);
    state->ran = true;
    state->cv.notify_all();
  });
  std::unique_lock<std::mutex> l(state->mu);
  state->cv.wait(l, [&state] { return state->ran; });
}

class ValuePrefetcherTest : public testing::Test {
 protected:
  ValuePrefetcherTest()
      : icmp_(BytewiseComparator()),
        bloom_(NewBloomFilterPolicy(10)),
        path_(tmp_.path() + "/000007.sst") {
    EXPECT_TRUE(ThreadPool::Start(1, &pool_).ok());
    options_.comparator = &icmp_;
    options_.filter_policy = bloom_.get();
    options_.fs = &fs_;
    options_.compression = kNoCompression;
    options_.inline_threshold = 0;  // every value a KV file
    options_.read_ahead_pool = pool_.get();
    SstDirBuilder b(options_, path_);
    EXPECT_TRUE(b.Begin().ok());
    for (int i = 0; i < kEntries; i++) {
      const std::string ikey =
          InternalKey(UserKey(i), 100 + i, kTypeValue).Encode().ToString();
      EXPECT_TRUE(b.Add(ikey, Value(i)).ok());
    }
    EXPECT_TRUE(b.Finish().ok());
  }

  std::unique_ptr<SstDir> Open() {
    std::unique_ptr<SstDir> dir;
    Status s = SstDir::Open(options_, path_, &dir);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return dir;
  }

  // KV file reads made by the pool (every other thread than this one).
  uint64_t PoolReads() { return fs_.FileReadsNotOn(me_); }
  // KV file reads by every thread.
  uint64_t AllReads() { return fs_.FileReadsNotOn(other_); }

  // The user key and value at the iterator's position, checked.
  static void ExpectEntry(Iterator* it, int i) {
    ASSERT_TRUE(it->Valid()) << i;
    ParsedInternalKey parsed;
    ASSERT_TRUE(ParseInternalKey(it->key(), &parsed));
    ASSERT_EQ(parsed.user_key.ToString(), UserKey(i));
    ASSERT_TRUE(it->value() == Slice(Value(i))) << i;
  }

  delsm_test::TempDir tmp_;
  delsm_test::CountingFileSystem fs_;
  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> bloom_;
  std::unique_ptr<ThreadPool> pool_;
  const std::string path_;
  SstDirOptions options_;
  const std::thread::id me_ = std::this_thread::get_id();
  // A thread that never reads: FileReadsNotOn(other_) counts every read.
  const std::thread::id other_ = std::thread().get_id();
};

TEST_F(ValuePrefetcherTest, ReadsAheadAtMostReadAheadFilesPastTheCursor) {
  options_.read_ahead_files = 5;
  options_.read_ahead_bytes = 1 << 20;
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  {
    Gate gate(pool_.get());
    it->SeekToFirst();
    ExpectEntry(it.get(), 0);
    it->Next();
    ExpectEntry(it.get(), 1);  // the second value in a row: a scan
    EXPECT_EQ(PoolReads(), 0u);
  }
  Drain(pool_.get());
  // Entries 2..6 were read ahead, nothing further.
  EXPECT_EQ(PoolReads(), 5u);
  for (int i = 2; i < kEntries; i++) {
    it->Next();
    ExpectEntry(it.get(), i);
    Drain(pool_.get());
    // Never more than five entries past the cursor.
    const uint64_t ahead_end = std::min(i + 5, kEntries - 1);
    EXPECT_LE(PoolReads(), ahead_end - 1) << "at " << i;
  }
  it->Next();
  EXPECT_FALSE(it->Valid());
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  // The pool read all but the first two, and no value was read twice.
  EXPECT_EQ(PoolReads(), static_cast<uint64_t>(kEntries - 2));
  EXPECT_EQ(AllReads(), static_cast<uint64_t>(kEntries));
}

TEST_F(ValuePrefetcherTest, ReadsAheadAtMostReadAheadBytesPastTheCursor) {
  options_.read_ahead_files = 100;
  options_.read_ahead_bytes = 10000;  // two and a half values
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  {
    Gate gate(pool_.get());
    it->SeekToFirst();
    ExpectEntry(it.get(), 0);
    it->Next();
    ExpectEntry(it.get(), 1);
  }
  Drain(pool_.get());
  // Reads start while less than read_ahead_bytes are ahead: the third
  // 4000-byte value is the one that crosses 10,000 bytes.
  EXPECT_EQ(PoolReads(), 3u);
  // Backwards too, after a change of direction.
  uint64_t before;
  {
    Gate gate(pool_.get());
    it->SeekToLast();
    ExpectEntry(it.get(), kEntries - 1);
    it->Prev();
    ExpectEntry(it.get(), kEntries - 2);
    before = PoolReads();
  }
  Drain(pool_.get());
  EXPECT_EQ(PoolReads() - before, 3u);
}

TEST_F(ValuePrefetcherTest, NoReadStartsAfterTheScanStops) {
  options_.read_ahead_files = 8;
  options_.read_ahead_bytes = 1 << 20;
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  // The scan moves elsewhere: the reads ahead of its old position are
  // dropped (only the new position's read-ahead may run).
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  {
    Gate gate(pool_.get());
    it->SeekToFirst();
    ExpectEntry(it.get(), 0);
    it->Next();
    ExpectEntry(it.get(), 1);  // entries 2..9 scheduled
    it->Seek(InternalKey(UserKey(30), kMaxSequenceNumber, kValueTypeForSeek)
                 .Encode());
    ExpectEntry(it.get(), 30);
  }
  Drain(pool_.get());
  EXPECT_EQ(PoolReads(), 0u);
  // The iterator goes away with reads scheduled: none of them runs.
  {
    Gate gate(pool_.get());
    it->Next();
    ExpectEntry(it.get(), 31);  // a scan again: 32..39 scheduled
    it.reset();
  }
  Drain(pool_.get());
  EXPECT_EQ(PoolReads(), 0u);
  EXPECT_EQ(AllReads(), 4u);  // 0, 1, 30, 31, by the scan itself
}

// Writes every KV file's pages back (so no writeback holds them while the
// test reads) and, with `drop`, drops them from the page cache, so the next
// read of each waits for the device. False on a file system that keeps
// files only in memory (tmpfs), where no read ever waits.
bool WriteBackKvFiles(const std::string& path, bool drop) {
  struct statfs fs;
  if (statfs(path.c_str(), &fs) != 0 || fs.f_type == TMPFS_MAGIC) return false;
  for (int i = 0; i < kEntries; i++) {
    const std::string name =
        path + "/" + KvStoredFileName(UserKey(i), 100 + i, false);
    const int fd = open(name.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0) << name;
    if (fd < 0) return false;
    EXPECT_EQ(0, fdatasync(fd)) << name;
    if (drop) {
      EXPECT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) << name;
    }
    close(fd);
  }
  return true;
}

TEST_F(ValuePrefetcherTest, ScanOfFilesInThePageCacheReadsWithOnePoolThread) {
  // Files in memory: the scan reads on two cores, its own and one pool
  // thread's, and never more at once.
  std::unique_ptr<ThreadPool> pool;
  ASSERT_TRUE(ThreadPool::Start(4, &pool).ok());
  options_.read_ahead_pool = pool.get();
  fs_.report_page_cache = true;  // as the POSIX file system reports it
  options_.read_ahead_files = 5;
  // The files were just written: their pages are in memory.
  WriteBackKvFiles(path_, false);
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  it->SeekToFirst();
  for (int i = 0; i < kEntries; i++, it->Next()) {
    ExpectEntry(it.get(), i);
    Drain(pool.get());
  }
  EXPECT_FALSE(it->Valid());
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  it.reset();
  Drain(pool.get());
  EXPECT_GT(PoolReads(), 0u);
  EXPECT_LE(fs_.MaxFileReadsInFlight(), 2);
  EXPECT_EQ(AllReads(), static_cast<uint64_t>(kEntries));
}

TEST_F(ValuePrefetcherTest, ReadsAheadInParallelAtMostReadAheadFilesAtOnce) {
  // Four pool threads, three files ahead: the three reads ahead run at the
  // same time (held until all three are in flight), and never more than
  // three run at once however many threads the pool has.
  std::unique_ptr<ThreadPool> pool;
  ASSERT_TRUE(ThreadPool::Start(4, &pool).ok());
  options_.read_ahead_pool = pool.get();
  options_.read_ahead_files = 3;
  fs_.simulate_device = true;
  fs_.reads_waiting_for_device = 1 << 30;  // every read waits
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  it->SeekToFirst();
  ExpectEntry(it.get(), 0);
  fs_.HoldFileReads(me_);  // the scan's own reads go on
  it->Next();
  ExpectEntry(it.get(), 1);  // a scan now: its read waited, read-ahead starts
  const bool three_at_once = fs_.WaitForFileReadsInFlight(3);
  EXPECT_TRUE(three_at_once);
  EXPECT_EQ(3, fs_.MaxFileReadsInFlight());
  fs_.ReleaseFileReads();
  for (int i = 2; i < kEntries; i++) {
    it->Next();
    ExpectEntry(it.get(), i);
  }
  it.reset();
  Drain(pool.get());
  // One read in flight on the scan's thread (a read not yet started that it
  // takes over) plus the reads ahead left in the window: at most
  // read_ahead_files at once.
  EXPECT_LE(fs_.MaxFileReadsInFlight(), 3);
  EXPECT_EQ(AllReads(), static_cast<uint64_t>(kEntries));
}

TEST_F(ValuePrefetcherTest, AFailedReadAheadIsTheIteratorsErrorNeverAValue) {
  // Entry 10's KV file is gone after the SST was opened: a scan in either
  // direction, whose read-ahead reads entry 10, returns every value before
  // it and then stops with Corruption naming the file, never an empty or
  // another entry's value.
  options_.read_ahead_files = 4;
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  const std::string gone =
      path_ + "/" + KvStoredFileName(UserKey(10), 110, false);
  ASSERT_EQ(0, unlink(gone.c_str())) << gone;
  for (int direction : {1, -1}) {
    std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
    int i = direction > 0 ? 0 : kEntries - 1;
    if (direction > 0) {
      it->SeekToFirst();
    } else {
      it->SeekToLast();
    }
    for (; i != 10; i += direction) {
      ExpectEntry(it.get(), i);
      Drain(pool_.get());  // entry 10 is read by the pool, ahead
      if (direction > 0) {
        it->Next();
      } else {
        it->Prev();
      }
    }
    ASSERT_TRUE(it->Valid());
    const Slice value = it->value();
    EXPECT_TRUE(value.empty());
    EXPECT_FALSE(it->Valid());
    EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
    EXPECT_NE(it->status().ToString().find(gone), std::string::npos)
        << it->status().ToString();
  }
  EXPECT_GT(PoolReads(), 0u);
}

TEST_F(ValuePrefetcherTest, ScanThatWaitsForTheDeviceReadsAhead) {
  fs_.report_page_cache = true;
  options_.read_ahead_files = 5;
  if (!WriteBackKvFiles(path_, true)) {
    GTEST_SKIP() << "no page cache to drop (tmpfs?) under " << path_;
  }
  std::unique_ptr<SstDir> dir = Open();
  ASSERT_TRUE(dir != nullptr);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  it->SeekToFirst();
  for (int i = 0; i < kEntries; i++, it->Next()) {
    ExpectEntry(it.get(), i);
    Drain(pool_.get());  // so each value is taken from a finished read
  }
  EXPECT_FALSE(it->Valid());
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  it.reset();
  // The kernel may still have had a page or two, so read-ahead need not
  // start at the first read of the scan; but it starts, and from then on
  // the pool reads the files.
  EXPECT_GE(PoolReads(), static_cast<uint64_t>(kEntries / 2));
  EXPECT_EQ(AllReads(), static_cast<uint64_t>(kEntries));
}

}  // namespace
}  // namespace leveldb
