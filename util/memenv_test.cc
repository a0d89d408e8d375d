#include "leveldb/helpers/memenv.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"

namespace leveldb {

class MemEnvTest : public testing::Test {
 public:
  MemEnvTest() : env_(NewMemEnv(Env::Default())) {}
  std::unique_ptr<Env> env_;
};

TEST_F(MemEnvTest, FileLifecycle) {
  uint64_t size;
  std::vector<std::string> children;
  ASSERT_TRUE(env_->CreateDir("/dir").ok());
  EXPECT_FALSE(env_->FileExists("/dir/non_existent"));
  EXPECT_TRUE(env_->GetFileSize("/dir/non_existent", &size).IsNotFound());
  ASSERT_TRUE(env_->GetChildren("/dir", &children).ok());
  EXPECT_TRUE(children.empty());

  WritableFile* file;
  ASSERT_TRUE(env_->NewWritableFile("/dir/f", &file).ok());
  ASSERT_TRUE(env_->GetFileSize("/dir/f", &size).ok());
  EXPECT_EQ(0u, size);
  delete file;

  EXPECT_TRUE(env_->FileExists("/dir/f"));
  ASSERT_TRUE(env_->GetChildren("/dir", &children).ok());
  EXPECT_EQ(std::vector<std::string>{"f"}, children);

  ASSERT_TRUE(env_->NewWritableFile("/dir/f", &file).ok());
  ASSERT_TRUE(file->Append("abc").ok());
  delete file;
  ASSERT_TRUE(env_->NewAppendableFile("/dir/f", &file).ok());
  ASSERT_TRUE(file->Append("hello").ok());
  delete file;
  ASSERT_TRUE(env_->GetFileSize("/dir/f", &size).ok());
  EXPECT_EQ(8u, size);

  EXPECT_FALSE(env_->RenameFile("/dir/non_existent", "/dir/g").ok());
  ASSERT_TRUE(env_->RenameFile("/dir/f", "/dir/g").ok());
  EXPECT_FALSE(env_->FileExists("/dir/f"));
  EXPECT_TRUE(env_->FileExists("/dir/g"));
  ASSERT_TRUE(env_->GetFileSize("/dir/g", &size).ok());
  EXPECT_EQ(8u, size);

  SequentialFile* seq;
  RandomAccessFile* ra;
  EXPECT_TRUE(env_->NewSequentialFile("/dir/non_existent", &seq).IsNotFound());
  EXPECT_EQ(nullptr, seq);
  EXPECT_TRUE(env_->NewRandomAccessFile("/dir/non_existent", &ra).IsNotFound());
  EXPECT_EQ(nullptr, ra);

  EXPECT_TRUE(env_->RemoveFile("/dir/non_existent").IsNotFound());
  ASSERT_TRUE(env_->RemoveFile("/dir/g").ok());
  EXPECT_FALSE(env_->FileExists("/dir/g"));
  ASSERT_TRUE(env_->GetChildren("/dir", &children).ok());
  EXPECT_TRUE(children.empty());
  ASSERT_TRUE(env_->RemoveDir("/dir").ok());
  EXPECT_FALSE(env_->FileExists("/dir"));
}

TEST_F(MemEnvTest, ReadWrite) {
  WritableFile* w;
  ASSERT_TRUE(env_->NewWritableFile("/f", &w).ok());
  ASSERT_TRUE(w->Append("hello ").ok());
  ASSERT_TRUE(w->Append("world").ok());
  delete w;

  SequentialFile* s;
  ASSERT_TRUE(env_->NewSequentialFile("/f", &s).ok());
  char scratch[100];
  Slice result;
  ASSERT_TRUE(s->Read(5, &result, scratch).ok());
  EXPECT_EQ("hello", result.ToString());
  ASSERT_TRUE(s->Skip(1).ok());
  ASSERT_TRUE(s->Read(1000, &result, scratch).ok());
  EXPECT_EQ("world", result.ToString());
  ASSERT_TRUE(s->Read(1000, &result, scratch).ok());
  EXPECT_EQ(0u, result.size());
  ASSERT_TRUE(s->Skip(100).ok());  // Past the end.
  ASSERT_TRUE(s->Read(1000, &result, scratch).ok());
  EXPECT_EQ(0u, result.size());
  delete s;

  RandomAccessFile* r;
  ASSERT_TRUE(env_->NewRandomAccessFile("/f", &r).ok());
  ASSERT_TRUE(r->Read(6, 5, &result, scratch).ok());
  EXPECT_EQ("world", result.ToString());
  ASSERT_TRUE(r->Read(0, 5, &result, scratch).ok());
  EXPECT_EQ("hello", result.ToString());
  ASSERT_TRUE(r->Read(10, 100, &result, scratch).ok());
  EXPECT_EQ("d", result.ToString());
  ASSERT_TRUE(r->Read(1000, 5, &result, scratch).ok());
  EXPECT_EQ(0u, result.size());
  delete r;
}

TEST_F(MemEnvTest, OpenFilesSurviveRemoval) {
  ASSERT_TRUE(WriteStringToFile(env_.get(), "contents", "/f").ok());
  RandomAccessFile* r;
  ASSERT_TRUE(env_->NewRandomAccessFile("/f", &r).ok());
  ASSERT_TRUE(env_->RemoveFile("/f").ok());
  char scratch[16];
  Slice result;
  ASSERT_TRUE(r->Read(0, 8, &result, scratch).ok());
  EXPECT_EQ("contents", result.ToString());
  delete r;
}

TEST_F(MemEnvTest, Locks) {
  FileLock* lock;
  ASSERT_TRUE(env_->LockFile("/LOCK", &lock).ok());
  EXPECT_TRUE(env_->FileExists("/LOCK"));
  FileLock* second;
  Status s = env_->LockFile("/LOCK", &second);
  EXPECT_TRUE(s.IsIOError());
  ASSERT_TRUE(env_->UnlockFile(lock).ok());
  ASSERT_TRUE(env_->LockFile("/LOCK", &second).ok());
  ASSERT_TRUE(env_->UnlockFile(second).ok());
}

TEST_F(MemEnvTest, Directories) {
  ASSERT_TRUE(env_->CreateDir("/db").ok());
  EXPECT_FALSE(env_->CreateDir("/db").ok());
  ASSERT_TRUE(env_->CreateDir("/db/L0").ok());
  ASSERT_TRUE(WriteStringToFile(env_.get(), "v", "/db/L0/k").ok());
  ASSERT_TRUE(WriteStringToFile(env_.get(), "x", "/db/CURRENT").ok());
  std::vector<std::string> children;
  ASSERT_TRUE(env_->GetChildren("/db", &children).ok());
  std::sort(children.begin(), children.end());
  EXPECT_EQ((std::vector<std::string>{"CURRENT", "L0"}), children);
  EXPECT_TRUE(env_->FileExists("/db/L0"));

  EXPECT_FALSE(env_->RemoveDir("/db/L0").ok());  // Not empty.
  EXPECT_TRUE(env_->RemoveDir("/nope").IsNotFound());

  // Renaming a directory moves what is inside it.
  ASSERT_TRUE(env_->RenameFile("/db/L0", "/db/L1").ok());
  EXPECT_FALSE(env_->FileExists("/db/L0/k"));
  std::string value;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/db/L1/k", &value).ok());
  EXPECT_EQ("v", value);

  ASSERT_TRUE(env_->RemoveFile("/db/L1/k").ok());
  ASSERT_TRUE(env_->RemoveDir("/db/L1").ok());
}

TEST_F(MemEnvTest, LargeWrite) {
  const size_t kWriteSize = 300 * 1024;
  std::string data;
  for (size_t i = 0; i < kWriteSize; i++) data.push_back(static_cast<char>(i));
  WritableFile* w;
  ASSERT_TRUE(env_->NewWritableFile("/big", &w).ok());
  ASSERT_TRUE(w->Append("foo").ok());
  ASSERT_TRUE(w->Append(data).ok());
  ASSERT_TRUE(w->Sync().ok());
  ASSERT_TRUE(w->Close().ok());
  delete w;
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/big", &read).ok());
  EXPECT_EQ("foo" + data, read);
}

TEST_F(MemEnvTest, LoggerWritesIntoMemory) {
  Logger* logger;
  ASSERT_TRUE(env_->NewLogger("/LOG", &logger).ok());
  Log(logger, "value=%d", 7);
  delete logger;
  std::string text;
  ASSERT_TRUE(ReadFileToString(env_.get(), "/LOG", &text).ok());
  EXPECT_NE(std::string::npos, text.find("value=7\n"));
}

TEST_F(MemEnvTest, NothingTouchesTheRealFileSystem) {
  const std::string path = "/tmp/delsm_memenv_should_not_exist";
  ASSERT_TRUE(WriteStringToFile(env_.get(), "x", path).ok());
  EXPECT_FALSE(Env::Default()->FileExists(path));
}

}  // namespace leveldb
