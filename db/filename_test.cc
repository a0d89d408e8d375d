#include "db/filename.h"

#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/env.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

TEST(FileNameTest, Construction) {
  EXPECT_EQ("db/000123.log", LogFileName("db", 123));
  EXPECT_EQ("db/1234567.log", LogFileName("db", 1234567));
  EXPECT_EQ("db/MANIFEST-000005", DescriptorFileName("db", 5));
  EXPECT_EQ("db/CURRENT", CurrentFileName("db"));
  EXPECT_EQ("db/LOCK", LockFileName("db"));
  EXPECT_EQ("db/LOG", InfoLogFileName("db"));
  EXPECT_EQ("db/LOG.old", OldInfoLogFileName("db"));
  EXPECT_EQ("db/000999.dbtmp", TempFileName("db", 999));
  EXPECT_EQ("/a/b/L0", LevelDirName("/a/b", 0));
  EXPECT_EQ("/a/b/L6", LevelDirName("/a/b", 6));
  EXPECT_EQ("/a/b/L3/000042.sst", SstDirName("/a/b", 3, 42));
  EXPECT_EQ("d/L1/18446744073709551615.sst",
            SstDirName("d", 1, 18446744073709551615ull));
}

TEST(FileNameTest, ParseRecognisesOurNames) {
  struct Case {
    const char* name;
    uint64_t number;
    FileType type;
  };
  const Case cases[] = {
      {"100.log", 100, kLogFile},
      {"0.log", 0, kLogFile},
      {"000123.log", 123, kLogFile},
      {"18446744073709551615.log", 18446744073709551615ull, kLogFile},
      {"CURRENT", 0, kCurrentFile},
      {"LOCK", 0, kDBLockFile},
      {"LOG", 0, kInfoLogFile},
      {"LOG.old", 0, kInfoLogFile},
      {"MANIFEST-2", 2, kDescriptorFile},
      {"MANIFEST-000007", 7, kDescriptorFile},
      {"000012.dbtmp", 12, kTempFile},
      {"L0", 0, kLevelDir},
      {"L6", 6, kLevelDir},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    uint64_t number = 999;
    FileType type = kTempFile;
    ASSERT_TRUE(ParseFileName(c.name, &number, &type));
    EXPECT_EQ(c.number, number);
    EXPECT_EQ(c.type, type);
  }
}

TEST(FileNameTest, ParseRoundTripsConstructedNames) {
  const std::string db = "x";
  struct Case {
    std::string path;
    uint64_t number;
    FileType type;
  };
  const Case cases[] = {
      {LogFileName(db, 77), 77, kLogFile},
      {DescriptorFileName(db, 1000000), 1000000, kDescriptorFile},
      {TempFileName(db, 3), 3, kTempFile},
      {CurrentFileName(db), 0, kCurrentFile},
      {LockFileName(db), 0, kDBLockFile},
      {InfoLogFileName(db), 0, kInfoLogFile},
      {OldInfoLogFileName(db), 0, kInfoLogFile},
      {LevelDirName(db, 4), 4, kLevelDir},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    ASSERT_EQ(0u, c.path.find(db + "/"));
    uint64_t number;
    FileType type;
    ASSERT_TRUE(ParseFileName(c.path.substr(db.size() + 1), &number, &type));
    EXPECT_EQ(c.number, number);
    EXPECT_EQ(c.type, type);
  }
}

TEST(FileNameTest, ParseRejectsOtherNames) {
  const char* const rejects[] = {"",
                                 "foo",
                                 "foo-dx-100.log",
                                 ".log",
                                 "manifest",
                                 "CURREN",
                                 "CURRENTX",
                                 "MANIFES",
                                 "MANIFEST",
                                 "MANIFEST-",
                                 "XMANIFEST-3",
                                 "MANIFEST-3x",
                                 "LOC",
                                 "LOCKx",
                                 "LO",
                                 "LOGx",
                                 "LOG.older",
                                 "18446744073709551616.log",
                                 "184467440737095516150.log",
                                 "100",
                                 "100.",
                                 "100.lop",
                                 "-1.log",
                                 "100.sst",
                                 "L",
                                 "L7",
                                 "L9",
                                 "L00",
                                 "L01",
                                 "L-1",
                                 "Lx",
                                 "l0",
                                 "L0x"};
  for (const char* name : rejects) {
    uint64_t number;
    FileType type;
    EXPECT_FALSE(ParseFileName(name, &number, &type)) << name;
  }
}

TEST(FileNameTest, ParseSstDirName) {
  uint64_t number = 0;
  ASSERT_TRUE(ParseSstDirName("000042.sst", &number));
  EXPECT_EQ(42u, number);
  // Round trips through SstDirName's last component, below and past six
  // digits.
  for (uint64_t n :
       {uint64_t{0}, uint64_t{7}, uint64_t{999999}, uint64_t{1000000},
        uint64_t{123456789}, uint64_t{18446744073709551615u}}) {
    const std::string full = SstDirName("db", 2, n);
    ASSERT_TRUE(ParseSstDirName(full.substr(full.rfind('/') + 1), &number))
        << full;
    EXPECT_EQ(n, number);
  }

  // Spellings of a number DeLSM never writes: the directory is not
  // DeLSM's, whatever number it spells.
  number = 123;
  for (const char* foreign : {"5.sst", "42.sst", "00042.sst", "0000042.sst",
                              "01000000.sst", "+00042.sst", " 00042.sst"}) {
    EXPECT_FALSE(ParseSstDirName(foreign, &number)) << foreign;
    EXPECT_EQ(123u, number) << foreign;
  }
  for (const char* bad :
       {"", ".sst", "42", "42.ss", "42.sstx", "x42.sst", "000042.log",
        "000042.sst/", "META", "99999999999999999999.sst"}) {
    EXPECT_FALSE(ParseSstDirName(bad, &number)) << bad;
  }
}

class SetCurrentFileTest : public testing::Test {
 protected:
  SetCurrentFileTest() {
    dir_ = delsm_test::MakeTestDir("delsm_filename_test");
    EXPECT_FALSE(dir_.empty());
  }
  ~SetCurrentFileTest() override {
    std::vector<std::string> children;
    if (env_->GetChildren(dir_, &children).ok()) {
      for (const std::string& c : children) {
        if (c != "." && c != "..") env_->RemoveFile(dir_ + "/" + c);
      }
    }
    rmdir(dir_.c_str());
  }

  std::string ReadCurrent() {
    std::string contents;
    EXPECT_TRUE(ReadFileToString(env_, CurrentFileName(dir_), &contents).ok());
    return contents;
  }

  Env* const env_ = Env::Default();
  std::string dir_;
};

TEST_F(SetCurrentFileTest, WritesManifestNameAndLeavesNoTempFile) {
  ASSERT_TRUE(SetCurrentFile(env_, dir_, 5).ok());
  EXPECT_EQ("MANIFEST-000005\n", ReadCurrent());
  // Replaces the old content.
  ASSERT_TRUE(SetCurrentFile(env_, dir_, 1234567).ok());
  EXPECT_EQ("MANIFEST-1234567\n", ReadCurrent());

  std::vector<std::string> children;
  ASSERT_TRUE(env_->GetChildren(dir_, &children).ok());
  for (const std::string& c : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(c, &number, &type)) {
      EXPECT_NE(kTempFile, type) << c;
    }
  }
}

TEST_F(SetCurrentFileTest, FailsInMissingDirectory) {
  const std::string missing = dir_ + "/does-not-exist";
  Status s = SetCurrentFile(env_, missing, 3);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(env_->FileExists(CurrentFileName(missing)));
}

}  // namespace
}  // namespace leveldb
