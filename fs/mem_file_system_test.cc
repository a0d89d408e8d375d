// The memory FileSystem beyond the contract both implementations share
// (fs/posix_file_system_test.cc): what rename(2), unlink(2) and rmdir(2)
// do to link counts, open files and open directories, and its binding to
// one memory Env instance.
#include "fs/mem_file_system.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/env.h"
#include "leveldb/helpers/memenv.h"

namespace leveldb {
namespace {

class MemFileSystemTest : public testing::Test {
 protected:
  MemFileSystemTest() : fs_(NewMemFileSystem()) {}

  std::unique_ptr<Directory> Dir(const std::string& path) {
    EXPECT_TRUE(fs_->CreateDir(path, true).ok()) << path;
    std::unique_ptr<Directory> dir;
    Status s = fs_->OpenDirectory(path, &dir);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return dir;
  }

  uint64_t Links(Directory* dir, const std::string& name) {
    KvFileInfo info;
    Status s = dir->Stat(name, &info);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return info.links;
  }

  std::unique_ptr<FileSystem> fs_;
};

TEST_F(MemFileSystemTest, PathsNormalizeAndAncestorsAreMade) {
  ASSERT_TRUE(fs_->CreateDir("/a/b/c", false).ok());
  EXPECT_TRUE(fs_->Exists("/a"));
  EXPECT_TRUE(fs_->Exists("/a/b/"));
  EXPECT_TRUE(fs_->Exists("a//b/./c"));
  EXPECT_TRUE(fs_->Exists("/a/b/c/../c"));
  EXPECT_FALSE(fs_->Exists("/a/x"));
  // A file where an ancestor should be is an error, as mkdir's ENOTDIR.
  auto b = Dir("/a/b");
  ASSERT_TRUE(b->WriteFile("f", "x", false).ok());
  Status s = fs_->CreateDir("/a/b/f/g", true);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(std::strerror(ENOTDIR)), std::string::npos);
  std::unique_ptr<Directory> not_dir;
  EXPECT_TRUE(fs_->OpenDirectory("/a/b/f", &not_dir).IsIOError());
}

TEST_F(MemFileSystemTest, DataLivesWhileALinkOrAnOpenFileDoes) {
  auto a = Dir("/a");
  auto b = Dir("/b");
  ASSERT_TRUE(a->WriteFile("k", "value", false).ok());
  std::unique_ptr<ReadOnlyFile> open;
  ASSERT_TRUE(a->OpenFile("k", &open).ok());
  ASSERT_TRUE(b->LinkFrom(a.get(), "k").ok());
  EXPECT_EQ(Links(b.get(), "k"), 2u);
  ASSERT_TRUE(a->Unlink("k").ok());
  ASSERT_TRUE(b->Unlink("k").ok());
  std::vector<std::string> names;
  ASSERT_TRUE(b->List(&names).ok());
  EXPECT_TRUE(names.empty());
  // No links left, but the open file still reads (an unlinked open file).
  std::string got;
  ASSERT_TRUE(open->ReadAt(0, 100, &got).ok());
  EXPECT_EQ(got, "value");
  EXPECT_EQ(open->size(), 5u);
  ASSERT_TRUE(open->ReadAt(3, 100, &got).ok());
  EXPECT_EQ(got, "ue");
  ASSERT_TRUE(open->ReadAt(9, 1, &got).ok());
  EXPECT_EQ(got, "");
}

TEST_F(MemFileSystemTest, RenameReplacesAFileAndDropsItsLink) {
  auto d = Dir("/d");
  auto e = Dir("/e");
  ASSERT_TRUE(d->WriteFile("old", "1", false).ok());
  ASSERT_TRUE(e->LinkFrom(d.get(), "old").ok());
  ASSERT_TRUE(d->WriteFile("new", "2", false).ok());
  EXPECT_EQ(Links(e.get(), "old"), 2u);
  ASSERT_TRUE(fs_->Rename("/d/new", "/d/old").ok());
  EXPECT_FALSE(fs_->Exists("/d/new"));
  std::string got;
  ASSERT_TRUE(d->ReadFile("old", &got).ok());
  EXPECT_EQ(got, "2");
  EXPECT_EQ(Links(e.get(), "old"), 1u);  // the replaced file lost a link
  ASSERT_TRUE(e->ReadFile("old", &got).ok());
  EXPECT_EQ(got, "1");
  // Two links of one file: rename does nothing, as rename(2).
  ASSERT_TRUE(fs_->Rename("/e/old", "/e/old").ok());
  EXPECT_TRUE(fs_->Exists("/e/old"));
}

TEST_F(MemFileSystemTest, RenameOfDirectories) {
  auto src = Dir("/L0/000005.sst");
  ASSERT_TRUE(src->WriteFile("k", "v", false).ok());
  Dir("/L1/empty.sst");
  Dir("/L1/full.sst")->WriteFile("x", "", false);
  // Onto a file, onto a non-empty directory, into itself: refused.
  Dir("/L1")->WriteFile("file", "", false);
  EXPECT_TRUE(fs_->Rename("/L0/000005.sst", "/L1/file").IsIOError());
  EXPECT_TRUE(fs_->Rename("/L0/000005.sst", "/L1/full.sst").IsIOError());
  Status s = fs_->Rename("/L0", "/L0/000005.sst/inside");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(std::strerror(EINVAL)), std::string::npos);
  // A file onto a directory: EISDIR.
  EXPECT_TRUE(fs_->Rename("/L1/file", "/L1/empty.sst").IsIOError());
  // Onto an empty directory: replaces it; the open handle follows.
  std::unique_ptr<Directory> replaced;
  ASSERT_TRUE(fs_->OpenDirectory("/L1/empty.sst", &replaced).ok());
  ASSERT_TRUE(fs_->Rename("/L0/000005.sst", "/L1/empty.sst").ok());
  EXPECT_FALSE(fs_->Exists("/L0/000005.sst"));
  std::string got;
  ASSERT_TRUE(src->ReadFile("k", &got).ok());
  EXPECT_EQ(got, "v");
  ASSERT_TRUE(src->WriteFile("after", "a", false).ok());
  EXPECT_TRUE(fs_->Exists("/L1/empty.sst/after"));
  // The replaced directory is gone: nothing can be created in it.
  s = replaced->WriteFile("z", "", false);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  // Into a missing directory: NotFound.
  EXPECT_TRUE(fs_->Rename("/L1/empty.sst", "/nowhere/x").IsNotFound());
}

TEST_F(MemFileSystemTest, RemovedDirectoryTakesNoEntries) {
  auto d = Dir("/gone");
  ASSERT_TRUE(fs_->RemoveDir("/gone").ok());
  EXPECT_FALSE(fs_->Exists("/gone"));
  EXPECT_TRUE(d->WriteFile("f", "", false).IsIOError());
  auto other = Dir("/other");
  ASSERT_TRUE(other->WriteFile("f", "", false).ok());
  EXPECT_FALSE(d->LinkFrom(other.get(), "f").ok());
  // A directory is not unlinked as a file.
  Dir("/other/sub");
  EXPECT_TRUE(other->Unlink("sub").IsIOError());
  EXPECT_TRUE(d->Sync().ok());
  EXPECT_TRUE(d->SyncFileSystem().ok());
}

TEST_F(MemFileSystemTest, LinksBetweenFileSystemsAreRefused) {
  std::unique_ptr<FileSystem> other_fs = NewMemFileSystem();
  auto a = Dir("/a");
  ASSERT_TRUE(a->WriteFile("k", "v", false).ok());
  ASSERT_TRUE(other_fs->CreateDir("/a", false).ok());
  std::unique_ptr<Directory> b;
  ASSERT_TRUE(other_fs->OpenDirectory("/a", &b).ok());
  Status s = b->LinkFrom(a.get(), "k");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(std::strerror(EXDEV)), std::string::npos);
}

TEST(FileSystemForEnvTest, OnePerMemEnvAndTheDiskOtherwise) {
  EXPECT_EQ(FileSystemForEnv(Env::Default()), FileSystem::Default());
  EXPECT_EQ(FileSystemForEnv(nullptr), FileSystem::Default());
  std::unique_ptr<Env> one(NewMemEnv(Env::Default()));
  std::unique_ptr<Env> two(NewMemEnv(Env::Default()));
  FileSystem* fs_one = FileSystemForEnv(one.get());
  FileSystem* fs_two = FileSystemForEnv(two.get());
  EXPECT_NE(fs_one, FileSystem::Default());
  EXPECT_NE(fs_one, fs_two);
  EXPECT_EQ(FileSystemForEnv(one.get()), fs_one);  // the same every time
  // A wrapper around a memory Env keeps its files in that Env.
  EnvWrapper wrapper(one.get());
  EXPECT_EQ(FileSystemForEnv(&wrapper), fs_one);
  // A wrapper around the POSIX Env: the disk.
  EnvWrapper posix_wrapper(Env::Default());
  EXPECT_EQ(FileSystemForEnv(&posix_wrapper), FileSystem::Default());
  // What one memory Env's FileSystem holds, the other's does not.
  ASSERT_TRUE(fs_one->CreateDir("/db/L0", false).ok());
  EXPECT_TRUE(fs_one->Exists("/db/L0"));
  EXPECT_FALSE(fs_two->Exists("/db/L0"));
}

}  // namespace
}  // namespace leveldb
