// Tests of leveldb::DumpFile on hand-made WAL, manifest and SST-directory
// files (no DB needed).
#include "leveldb/dumpfile.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/log_format.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "leveldb/write_batch.h"
#include "table/sst_dir_builder.h"
#include "table/sst_dir_options.h"
#include "testing/fault_injection_file_system.h"
#include "testing/read_error_env.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

// Collects what DumpFile writes.
class StringSink : public WritableFile {
 public:
  Status Append(const Slice& data) override {
    contents.append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  std::string contents;
};

class DumpFileTest : public testing::Test {
 protected:
  DumpFileTest() : dir_("dumpfile") {}

  // Options for building an SST to dump: bytewise keys, no compression.
  SstDirOptions SstOptions() const {
    SstDirOptions options;
    options.comparator = &icmp_;
    options.fs = FileSystem::Default();
    options.compression = kNoCompression;
    return options;
  }

  // Writes `records` as a log file at `path`.
  void WriteLog(const std::string& path,
                const std::vector<std::string>& records) {
    WritableFile* raw = nullptr;
    ASSERT_TRUE(env_->NewWritableFile(path, &raw).ok());
    std::unique_ptr<WritableFile> file(raw);
    log::Writer writer(file.get());
    for (const std::string& r : records) {
      ASSERT_TRUE(writer.AddRecord(r).ok());
    }
    ASSERT_TRUE(file->Close().ok());
  }

  std::string Dump(const std::string& path, Status* status,
                   Env* env = Env::Default()) {
    StringSink sink;
    *status = DumpFile(env, path, &sink);
    return sink.contents;
  }

  Env* env_ = Env::Default();
  delsm_test::TempDir dir_;
  const InternalKeyComparator icmp_{BytewiseComparator()};
};

TEST_F(DumpFileTest, Wal) {
  WriteBatch b1;
  b1.Put("a", "1");
  b1.Delete("b");
  WriteBatchInternal::SetSequence(&b1, 100);
  WriteBatch b2;
  b2.Put(Slice("\x00\xff", 2), "v");
  WriteBatchInternal::SetSequence(&b2, 102);
  const std::string path = dir_.path() + "/000005.log";
  WriteLog(path, {WriteBatchInternal::Contents(&b1).ToString(),
                  WriteBatchInternal::Contents(&b2).ToString(), "short"});
  Status s;
  std::string out = Dump(path, &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(0u, out.find("--- offset 0; sequence 100\n"
                         "  put 'a' '1'\n"
                         "  del 'b'\n"))
      << out;
  EXPECT_NE(std::string::npos,
            out.find("; sequence 102\n  put '\\x00\\xff' 'v'\n"))
      << out;
  EXPECT_NE(std::string::npos, out.find("too short")) << out;
}

// A WAL whose second block cannot be read (EIO): the dump fails with the
// read's error after the record before it, and the failed read is not
// written as damage. A damaged record is still a line of a dump that
// succeeds, as in LevelDB.
TEST_F(DumpFileTest, WalReadErrorFailsTheDumpDamageDoesNot) {
  WriteBatch small;
  small.Put("a", "1");
  WriteBatchInternal::SetSequence(&small, 100);
  WriteBatch big;  // starts in the first block, ends in the second
  big.Put("b", std::string(log::kBlockSize, 'v'));
  WriteBatchInternal::SetSequence(&big, 101);
  const std::string path = dir_.path() + "/000005.log";
  WriteLog(path, {WriteBatchInternal::Contents(&small).ToString(),
                  WriteBatchInternal::Contents(&big).ToString()});

  ReadErrorEnv failing(Env::Default());
  failing.set_failing_reads(".log", log::kBlockSize);
  Status s;
  std::string out = Dump(path, &s, &failing);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_GT(failing.failed_reads(), 0);
  EXPECT_EQ(0u, out.find("--- offset 0; sequence 100\n  put 'a' '1'\n")) << out;
  EXPECT_EQ(std::string::npos, out.find("sequence 101")) << out;
  EXPECT_EQ(std::string::npos, out.find("corruption")) << out;

  // The same WAL with a byte of the first record changed: damage (the
  // reader skips the rest of the block, and so the second record).
  std::string contents;
  ASSERT_TRUE(ReadFileToString(env_, path, &contents).ok());
  contents[log::kHeaderSize + 1] ^= 0x40;
  ASSERT_TRUE(WriteStringToFile(env_, contents, path).ok());
  out = Dump(path, &s);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(0u, out.find("corruption: 32768 bytes skipped: Corruption: "
                         "checksum mismatch\n"))
      << out;
}

TEST_F(DumpFileTest, Manifest) {
  VersionEdit edit;
  edit.SetComparatorName("leveldb.BytewiseComparator");
  edit.SetLogNumber(5);
  FileMetaData f;
  f.number = 7;
  f.entries = 2;
  f.smallest = InternalKey("k1", 5, kTypeValue);
  f.largest = InternalKey("k2", 4, kTypeDeletion);
  edit.AddFile(0, f);
  std::string encoded;
  edit.EncodeTo(&encoded);
  const std::string path = dir_.path() + "/MANIFEST-000002";
  WriteLog(path, {encoded, "garbage that is no edit"});
  Status s;
  std::string out = Dump(path, &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(0u, out.find("--- offset 0; " + edit.DebugString())) << out;
  EXPECT_NE(std::string::npos, out.find("AddDir: L0 #7")) << out;
  EXPECT_NE(std::string::npos, out.find("; error: ")) << out;
}

TEST_F(DumpFileTest, SstDirectory) {
  const SstDirOptions options = SstOptions();
  const std::string sst = dir_.path() + "/000007.sst";
  {
    SstDirBuilder builder(options, sst);
    ASSERT_TRUE(builder.Begin().ok());
    std::string k1, k2;
    AppendInternalKey(&k1, ParsedInternalKey("k1", 5, kTypeValue));
    AppendInternalKey(&k2, ParsedInternalKey("k2", 4, kTypeDeletion));
    ASSERT_TRUE(builder.Add(k1, "hello").ok());
    ASSERT_TRUE(builder.Add(k2, "").ok());
    ASSERT_TRUE(builder.Finish().ok());
  }
  for (const std::string& path : {sst, sst + "/", sst + "/META"}) {
    Status s;
    std::string out = Dump(path, &s);
    ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
    EXPECT_NE(std::string::npos, out.find("entries: 2\n")) << out;
    EXPECT_NE(std::string::npos,
              out.find("'k1' @ 5 : 1 [file, 5 bytes] => 'hello'\n"))
        << out;
    EXPECT_NE(std::string::npos, out.find("'k2' @ 4 : 0 [none, 0 bytes]\n"))
        << out;
  }
}

// A value whose read fails (EIO) fails the dump; a missing one (damage) is
// a line of a dump that succeeds.
TEST_F(DumpFileTest, ValueReadErrorFailsTheDumpMissingValueDoesNot) {
  const SstDirOptions options = SstOptions();
  const std::string sst = dir_.path() + "/000007.sst";
  {
    SstDirBuilder builder(options, sst);
    ASSERT_TRUE(builder.Begin().ok());
    for (const char* key : {"k1", "k2"}) {
      std::string ikey;
      AppendInternalKey(&ikey, ParsedInternalKey(key, 5, kTypeValue));
      ASSERT_TRUE(builder.Add(ikey, std::string("value of ") + key).ok());
    }
    ASSERT_TRUE(builder.Finish().ok());
  }
  FaultInjectionFileSystem fs(FileSystem::Default());
  FaultSpec spec;
  spec.err = EIO;
  spec.sticky = true;
  spec.path_contains = "k2";  // the KV file of k2's value
  fs.Arm(FsOp::kOpen, spec);
  StringSink sink;
  Status s = DumpFileWithFileSystem(env_, &fs, sst, &sink);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(fs.Fired());
  EXPECT_NE(std::string::npos, sink.contents.find("=> 'value of k1'"))
      << sink.contents;
  EXPECT_EQ(std::string::npos, sink.contents.find("'k2' @ 5 : 1 ["))
      << sink.contents;

  // The same value missing: damage.
  std::vector<std::string> names;
  ASSERT_TRUE(env_->GetChildren(sst, &names).ok());
  int removed = 0;
  for (const std::string& name : names) {
    if (name.find("k2") != std::string::npos) {
      ASSERT_TRUE(env_->RemoveFile(sst + "/" + name).ok());
      removed++;
    }
  }
  ASSERT_EQ(1, removed);
  std::string out = Dump(sst, &s);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_NE(std::string::npos,
            out.find("'k2' @ 5 : 1 [file, 11 bytes] error: "))
      << out;
}

TEST_F(DumpFileTest, UnknownOrMissingFiles) {
  Status s;
  const std::string other = dir_.path() + "/notes.txt";
  ASSERT_TRUE(WriteStringToFile(env_, "hello", other).ok());
  Dump(other, &s);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  Dump(dir_.path() + "/CURRENT", &s);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  Dump(dir_.path() + "/000009.log", &s);
  EXPECT_FALSE(s.ok());
  Dump(dir_.path() + "/000010.sst", &s);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace leveldb
