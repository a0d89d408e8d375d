// Tests of the log format: round trips through log::Writer and log::Reader
// over an in-memory file (so bytes can be damaged at will) and over a real
// file.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "db/log_format.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "gtest/gtest.h"
#include "leveldb/env.h"
#include "tests/test_support.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/random.h"

namespace leveldb {
namespace log {
namespace {

// `n` bytes repeating `pattern`.
std::string Repeat(const std::string& pattern, size_t n) {
  std::string out;
  out.reserve(n + pattern.size());
  while (out.size() < n) out += pattern;
  out.resize(n);
  return out;
}

// A record whose content identifies record `i`, of a random size that is
// usually small but sometimes spans several blocks.
std::string NthRecord(int i, Random* rnd) {
  return Repeat("<" + std::to_string(i) + ">", rnd->Skewed(17));
}

// In-memory WritableFile.
class MemoryFile : public WritableFile {
 public:
  Status Append(const Slice& data) override {
    if (fail_appends) return Status::IOError("injected append failure");
    bytes.append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }

  std::string bytes;
  bool fail_appends = false;
};

// In-memory SequentialFile over a string owned elsewhere.
class MemorySource : public SequentialFile {
 public:
  explicit MemorySource(const std::string& bytes) : rest_(bytes) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    if (fail_next_read) {
      fail_next_read = false;
      return Status::IOError("injected read failure");
    }
    n = std::min(n, rest_.size());
    std::memcpy(scratch, rest_.data(), n);
    *result = Slice(scratch, n);
    rest_.remove_prefix(n);
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    if (n > rest_.size()) {
      rest_.clear();
      return Status::IOError("skip past end");
    }
    rest_.remove_prefix(n);
    return Status::OK();
  }

  bool fail_next_read = false;

 private:
  Slice rest_;
};

// Collects what the reader reports.
class Collector : public Reader::Reporter {
 public:
  void Corruption(size_t bytes, const Status& status) override {
    dropped += bytes;
    reports++;
    messages += status.ToString() + ";";
  }
  bool Mentions(const std::string& text) const {
    return messages.find(text) != std::string::npos;
  }
  size_t dropped = 0;
  int reports = 0;
  std::string messages;
};

// Writes records, remembering where each starts, then reads them back.
class LogTest : public testing::Test {
 protected:
  LogTest() : writer_(new Writer(&file_)) {}

  // Appends a record; returns its expected start offset.
  uint64_t Append(const std::string& record) {
    uint64_t start = file_.bytes.size();
    // A record never starts in a block's trailer.
    if (kBlockSize - start % kBlockSize < kHeaderSize) {
      start += kBlockSize - start % kBlockSize;
    }
    EXPECT_TRUE(writer_->AddRecord(record).ok());
    written_.push_back(record);
    starts_.push_back(start);
    return start;
  }

  // Reads every record from `initial_offset` on.
  std::vector<std::string> ReadAll(uint64_t initial_offset = 0,
                                   bool checksum = true,
                                   std::vector<uint64_t>* offsets = nullptr) {
    MemorySource source(file_.bytes);
    source.fail_next_read = fail_first_read_;
    Reader reader(&source, &collector_, checksum, initial_offset);
    std::vector<std::string> out;
    Slice record;
    std::string scratch;
    while (reader.ReadRecord(&record, &scratch)) {
      out.push_back(record.ToString());
      if (offsets != nullptr) offsets->push_back(reader.LastRecordOffset());
    }
    // End of log is sticky.
    EXPECT_FALSE(reader.ReadRecord(&record, &scratch));
    return out;
  }

  // Rewrites the checksum of the physical record at `pos` with payload
  // length `len`, so that deliberate edits of its type survive verification.
  void Reseal(size_t pos, size_t len) {
    const uint32_t crc = crc32c::Value(&file_.bytes[pos + 6], 1 + len);
    EncodeFixed32(&file_.bytes[pos], crc32c::Mask(crc));
  }

  MemoryFile file_;
  std::unique_ptr<Writer> writer_;
  Collector collector_;
  bool fail_first_read_ = false;
  std::vector<std::string> written_;
  std::vector<uint64_t> starts_;
};

TEST_F(LogTest, EmptyLogHasNoRecords) {
  EXPECT_TRUE(ReadAll().empty());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, SmallRecordsRoundTrip) {
  Append("alpha");
  Append("");
  Append("gamma");
  Append(std::string("\0\xff\0", 3));
  EXPECT_EQ(written_, ReadAll());
  EXPECT_EQ(0, collector_.reports);
  // One header per record, nothing else.
  EXPECT_EQ(4 * kHeaderSize + 5 + 0 + 5 + 3, file_.bytes.size());
}

TEST_F(LogTest, ManyRecordsAcrossManyBlocks) {
  for (int i = 0; i < 50000; i++) Append(std::to_string(i));
  EXPECT_GT(file_.bytes.size(), 10u * kBlockSize);
  EXPECT_EQ(written_, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, RandomSizesRoundTrip) {
  Random rnd(42);
  for (int i = 0; i < 400; i++) Append(NthRecord(i, &rnd));
  std::vector<uint64_t> offsets;
  EXPECT_EQ(written_, ReadAll(0, true, &offsets));
  EXPECT_EQ(starts_, offsets);
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, LargeRecordIsFragmented) {
  const std::string big = Repeat("0123456789", 2 * kBlockSize + 5000);
  Append("head");
  Append(big);
  Append("tail");
  // On disk: FULL, then FIRST in block 0, MIDDLE filling block 1, LAST in
  // block 2, then FULL.
  EXPECT_EQ(kFullType, file_.bytes[6]);
  EXPECT_EQ(kFirstType, file_.bytes[kHeaderSize + 4 + 6]);
  EXPECT_EQ(kMiddleType, file_.bytes[kBlockSize + 6]);
  EXPECT_EQ(kLastType, file_.bytes[2 * kBlockSize + 6]);
  EXPECT_EQ(kFullType, file_.bytes[starts_[2] + 6]);
  EXPECT_EQ(written_, ReadAll());
}

TEST_F(LogTest, TrailerTooSmallForHeaderIsZeroPadded) {
  // Leave 5 bytes (< kHeaderSize) at the end of block 0.
  Append(std::string(kBlockSize - kHeaderSize - 5, 'a'));
  ASSERT_EQ(kBlockSize - 5u, file_.bytes.size());
  const uint64_t start = Append("next");
  EXPECT_EQ(static_cast<uint64_t>(kBlockSize), start);
  EXPECT_EQ(std::string(5, '\0'), file_.bytes.substr(kBlockSize - 5, 5));
  EXPECT_EQ(written_, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, ExactlyHeaderSizedRoomGetsAnEmptyFragment) {
  Append(std::string(kBlockSize - 2 * kHeaderSize, 'a'));
  ASSERT_EQ(static_cast<size_t>(kBlockSize - kHeaderSize), file_.bytes.size());
  Append("spill");  // Empty FIRST at the end of block 0, LAST in block 1.
  Append("");
  EXPECT_EQ(written_, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, RecordFillingBlockExactly) {
  Append(std::string(kBlockSize - kHeaderSize, 'f'));
  ASSERT_EQ(static_cast<size_t>(kBlockSize), file_.bytes.size());
  Append("after");
  EXPECT_EQ(written_, ReadAll());
}

TEST_F(LogTest, ReopenedWriterContinuesTheBlockLayout) {
  Append("first");
  writer_.reset(new Writer(&file_, file_.bytes.size()));
  Append(Repeat("second", kBlockSize + 10));
  writer_.reset(new Writer(&file_, file_.bytes.size()));
  Append("third");
  EXPECT_EQ(written_, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, WriteErrorIsReturned) {
  file_.fail_appends = true;
  EXPECT_TRUE(writer_->AddRecord("x").IsIOError());
}

// --- Crash tails: never reported as corruption. ---

TEST_F(LogTest, TruncatedPayloadAtEndIsATornWrite) {
  Append("kept");
  Append("lost record");
  file_.bytes.resize(file_.bytes.size() - 3);
  EXPECT_EQ(std::vector<std::string>{"kept"}, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, TruncatedHeaderAtEndIsATornWrite) {
  Append("kept");
  Append("lost");
  file_.bytes.resize(starts_[1] + 4);  // Part of the second header only.
  EXPECT_EQ(std::vector<std::string>{"kept"}, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

TEST_F(LogTest, MissingLastFragmentsAtEndIsATornWrite) {
  Append("kept");
  Append(Repeat("big", 3 * kBlockSize));
  for (size_t cut : {kBlockSize / 2, kBlockSize + 100, 2 * kBlockSize + 7}) {
    SCOPED_TRACE(cut);
    const std::string saved = file_.bytes;
    file_.bytes.resize(starts_[1] + cut);
    EXPECT_EQ(std::vector<std::string>{"kept"}, ReadAll());
    EXPECT_EQ(0, collector_.reports) << collector_.messages;
    file_.bytes = saved;
  }
}

TEST_F(LogTest, ZeroFilledSpaceIsSkippedSilently) {
  Append("one");
  file_.bytes.append(kBlockSize - file_.bytes.size(), '\0');  // Preallocated.
  writer_.reset(new Writer(&file_, file_.bytes.size()));
  Append("two");
  file_.bytes.append(1000, '\0');
  EXPECT_EQ(written_, ReadAll());
  EXPECT_EQ(0, collector_.reports);
}

// --- Damage: reported, and reading resumes at the next intact record. ---

TEST_F(LogTest, ChecksumMismatchDropsTheRestOfTheBlock) {
  Append("good");
  Append("damaged");
  Append("same block, also lost");
  Append(std::string(kBlockSize, 'p'));  // Ends in block 1.
  Append("survivor");
  file_.bytes[starts_[1] + kHeaderSize + 2] ^= 0x20;
  const std::vector<std::string> got = ReadAll();
  EXPECT_EQ((std::vector<std::string>{"good", "survivor"}), got);
  EXPECT_TRUE(collector_.Mentions("checksum mismatch"));
  // Everything from the damaged record to the end of block 0, plus the
  // LAST fragment of the record whose FIRST fragment was in that block.
  const size_t first_part = kBlockSize - starts_[3] - kHeaderSize;
  EXPECT_TRUE(collector_.Mentions("missing start"));
  EXPECT_EQ(kBlockSize - starts_[1] + (kBlockSize - first_part),
            collector_.dropped);
}

TEST_F(LogTest, ChecksumIgnoredWhenDisabled) {
  Append("abc");
  file_.bytes[kHeaderSize] = 'x';
  EXPECT_EQ(std::vector<std::string>{"xbc"}, ReadAll(0, false));
  EXPECT_EQ(0, collector_.reports);
  EXPECT_TRUE(ReadAll(0, true).empty());
  EXPECT_TRUE(collector_.Mentions("checksum mismatch"));
}

TEST_F(LogTest, LengthBeyondBlockIsCorruptionInsideTheFile) {
  Append(std::string(kBlockSize - kHeaderSize, 'a'));  // Fills block 0.
  Append("next block");
  file_.bytes[4] = static_cast<char>(file_.bytes[4] + 1);  // Length + 1.
  EXPECT_EQ(std::vector<std::string>{"next block"}, ReadAll());
  EXPECT_TRUE(collector_.Mentions("bad record length"));
  EXPECT_EQ(static_cast<size_t>(kBlockSize), collector_.dropped);
}

TEST_F(LogTest, UnknownTypeIsReported) {
  Append("abc");
  Append("def");
  file_.bytes[6] = 9;
  Reseal(0, 3);
  EXPECT_EQ(std::vector<std::string>{"def"}, ReadAll());
  EXPECT_TRUE(collector_.Mentions("unknown record type"));
  EXPECT_EQ(3u, collector_.dropped);
}

TEST_F(LogTest, OrphanMiddleOrLastFragmentIsReported) {
  for (char type :
       {static_cast<char>(kMiddleType), static_cast<char>(kLastType)}) {
    SCOPED_TRACE(static_cast<int>(type));
    file_.bytes.clear();
    written_.clear();
    starts_.clear();
    collector_ = Collector();
    writer_.reset(new Writer(&file_));
    Append("orphan");
    Append("fine");
    file_.bytes[6] = type;
    Reseal(0, 6);
    EXPECT_EQ(std::vector<std::string>{"fine"}, ReadAll());
    EXPECT_TRUE(collector_.Mentions("missing start"));
    EXPECT_EQ(6u, collector_.dropped);
  }
}

TEST_F(LogTest, FirstFragmentWithoutEndIsReported) {
  Append("unfinished");
  Append("whole");
  Append(Repeat("long", 2 * kBlockSize));
  file_.bytes[6] = kFirstType;
  Reseal(0, 10);
  // The dangling FIRST is dropped when the next record begins.
  const std::vector<std::string> got = ReadAll();
  EXPECT_EQ((std::vector<std::string>{"whole", written_[2]}), got);
  EXPECT_TRUE(collector_.Mentions("partial record without end"));
  EXPECT_EQ(10u, collector_.dropped);
}

TEST_F(LogTest, DamageInsideFragmentedRecordDoesNotGlueRecords) {
  // Two records each spanning a block boundary; wreck the whole of the
  // block where the first ends and the second begins.
  Append(Repeat("A", kBlockSize));
  Append(Repeat("B", kBlockSize));
  Append("intact");
  for (int i = kBlockSize; i < 2 * kBlockSize; i++) file_.bytes[i] = 'z';
  EXPECT_EQ(std::vector<std::string>{"intact"}, ReadAll());
  EXPECT_GT(collector_.reports, 0);
  EXPECT_GE(collector_.dropped, static_cast<size_t>(kBlockSize));
}

TEST_F(LogTest, ReadErrorIsReportedAndEndsTheLog) {
  Append("unreadable");
  fail_first_read_ = true;
  EXPECT_TRUE(ReadAll().empty());
  EXPECT_TRUE(collector_.Mentions("injected read failure"));
}

// --- Starting at an initial offset. ---

TEST_F(LogTest, InitialOffsetStartsAtFirstRecordAtOrAfterIt) {
  const size_t sizes[] = {
      100,
      kBlockSize - 100 - 3 * kHeaderSize - 3,  // To trailer.
      1,
      3 * kBlockSize + 17,
      0,
      kBlockSize - kHeaderSize,
      500};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    Append(std::string(sizes[i], static_cast<char>('a' + i)));
  }
  const uint64_t end = file_.bytes.size();

  std::vector<uint64_t> probes = {0, end, end + 1, end + kBlockSize};
  for (uint64_t s : starts_) {
    probes.push_back(s);
    probes.push_back(s + 1);
    if (s > 0) probes.push_back(s - 1);
  }
  for (uint64_t b = kBlockSize; b < end; b += kBlockSize) {
    probes.push_back(b - 1);
    probes.push_back(b);
  }
  Random rnd(7);
  for (int i = 0; i < 50; i++) probes.push_back(rnd.Uniform(end));

  for (uint64_t probe : probes) {
    SCOPED_TRACE(probe);
    size_t first = 0;
    while (first < starts_.size() && starts_[first] < probe) first++;
    std::vector<uint64_t> offsets;
    const std::vector<std::string> got = ReadAll(probe, true, &offsets);
    const std::vector<std::string> want(written_.begin() + first,
                                        written_.end());
    ASSERT_EQ(want.size(), got.size());
    EXPECT_TRUE(want == got);
    EXPECT_EQ(std::vector<uint64_t>(starts_.begin() + first, starts_.end()),
              offsets);
    EXPECT_EQ(0, collector_.reports) << collector_.messages;
  }
}

// The same format through real files: write, "crash" by truncating the
// file inside the last record, and read back what survived.
TEST(LogFileTest, RealFileWithTornTail) {
  const std::string dir = delsm_test::MakeTestDir("delsm_log_test");
  ASSERT_FALSE(dir.empty());
  const std::string fname = dir + "/000001.log";
  Env* env = Env::Default();

  std::vector<std::string> records;
  for (int i = 0; i < 50; i++) {
    records.push_back(Repeat(std::to_string(i) + ",", 1000 + i * 997));
  }
  {
    WritableFile* file;
    ASSERT_TRUE(env->NewWritableFile(fname, &file).ok());
    Writer writer(file);
    for (const std::string& r : records) ASSERT_TRUE(writer.AddRecord(r).ok());
    ASSERT_TRUE(file->Sync().ok());
    ASSERT_TRUE(file->Close().ok());
    delete file;
  }
  uint64_t size;
  ASSERT_TRUE(env->GetFileSize(fname, &size).ok());
  ASSERT_EQ(0, truncate(fname.c_str(), static_cast<off_t>(size - 500)));

  SequentialFile* file;
  ASSERT_TRUE(env->NewSequentialFile(fname, &file).ok());
  Collector collector;
  Reader reader(file, &collector, true, 0);
  Slice record;
  std::string scratch;
  size_t n = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    ASSERT_LT(n, records.size());
    EXPECT_EQ(records[n], record.ToString());
    n++;
  }
  EXPECT_EQ(records.size() - 1, n);
  EXPECT_EQ(0, collector.reports) << collector.messages;
  delete file;

  ASSERT_TRUE(env->RemoveFile(fname).ok());
  ASSERT_EQ(0, rmdir(dir.c_str()));
}

}  // namespace
}  // namespace log
}  // namespace leveldb
