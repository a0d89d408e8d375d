// Tests of leveldb::DumpFile on hand-made WAL, manifest and SST-directory
// files (no DB needed).
#include "leveldb/dumpfile.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "db/dbformat.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "leveldb/write_batch.h"
#include "table/sst_dir_builder.h"
#include "table/sst_dir_options.h"
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

  std::string Dump(const std::string& path, Status* status) {
    StringSink sink;
    *status = DumpFile(env_, path, &sink);
    return sink.contents;
  }

  Env* env_ = Env::Default();
  delsm_test::TempDir dir_;
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
  InternalKeyComparator icmp(BytewiseComparator());
  SstDirOptions options;
  options.comparator = &icmp;
  options.fs = FileSystem::Default();
  options.compression = kNoCompression;
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
