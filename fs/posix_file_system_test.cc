// FileSystem's contract (fs/file_system.h), checked on both
// implementations: the POSIX one and the memory one (fs/mem_file_system.h).
#include "fs/posix_file_system.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "fs/mem_file_system.h"
#include "gtest/gtest.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

// The parameter names the implementation: "posix" or "memory". The memory
// one works under the same root path (made on disk too, and removed).
class FileSystemContractTest : public testing::TestWithParam<std::string> {
 protected:
  FileSystemContractTest()
      : mem_fs_(GetParam() == "memory" ? NewMemFileSystem() : nullptr),
        fs_(mem_fs_ != nullptr ? mem_fs_.get() : FileSystem::Default()) {
    root_ = delsm_test::MakeTestDir("delsm_fs_test");
    EXPECT_FALSE(root_.empty());
    EXPECT_TRUE(fs_->CreateDir(root_, true).ok());
  }
  ~FileSystemContractTest() override {
    std::string cmd = "rm -rf '" + root_ + "'";
    if (root_ != "/tmp") EXPECT_EQ(system(cmd.c_str()), 0);
  }

  std::unique_ptr<Directory> MakeDir(const std::string& name) {
    const std::string path = root_ + "/" + name;
    EXPECT_TRUE(fs_->CreateDir(path, false).ok());
    std::unique_ptr<Directory> dir;
    Status s = fs_->OpenDirectory(path, &dir);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return dir;
  }

  const std::unique_ptr<FileSystem> mem_fs_;
  FileSystem* const fs_;
  std::string root_;
};

TEST_P(FileSystemContractTest, WriteReadStat) {
  auto dir = MakeDir("d");
  const std::string data(4096, 'v');
  ASSERT_TRUE(dir->WriteFile("a@00000000000001", data, false).ok());
  ASSERT_TRUE(dir->WriteFile("empty", "", true).ok());
  std::string got;
  ASSERT_TRUE(dir->ReadFile("a@00000000000001", &got).ok());
  EXPECT_EQ(got, data);
  ASSERT_TRUE(dir->ReadFile("empty", &got).ok());
  EXPECT_EQ(got, "");
  ASSERT_TRUE(dir->ReadFileAt("a@00000000000001", 4000, 200, &got).ok());
  EXPECT_EQ(got, std::string(96, 'v'));  // short at EOF
  KvFileInfo info;
  ASSERT_TRUE(dir->Stat("a@00000000000001", &info).ok());
  EXPECT_EQ(info.size, 4096u);
  EXPECT_EQ(info.links, 1u);
  EXPECT_NE(info.inode, 0u);
  // The file is really there, at the path the directory was opened by.
  EXPECT_TRUE(fs_->Exists(root_ + "/d/a@00000000000001"));
}

TEST_P(FileSystemContractTest, WriteExistingIsErrorAndKeepsOldData) {
  auto dir = MakeDir("d");
  ASSERT_TRUE(dir->WriteFile("f", "first", false).ok());
  Status s = dir->WriteFile("f", "second", false);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(root_ + "/d/f"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find(strerror(EEXIST)), std::string::npos)
      << s.ToString();
  std::string got;
  ASSERT_TRUE(dir->ReadFile("f", &got).ok());
  EXPECT_EQ(got, "first");
}

TEST_P(FileSystemContractTest, NotFound) {
  auto dir = MakeDir("d");
  std::string got;
  KvFileInfo info;
  EXPECT_TRUE(dir->ReadFile("nope", &got).IsNotFound());
  EXPECT_TRUE(dir->ReadFileAt("nope", 0, 1, &got).IsNotFound());
  EXPECT_TRUE(dir->Stat("nope", &info).IsNotFound());
  EXPECT_TRUE(dir->Unlink("nope").IsNotFound());
  std::unique_ptr<Directory> missing;
  EXPECT_TRUE(fs_->OpenDirectory(root_ + "/missing", &missing).IsNotFound());
  EXPECT_EQ(missing, nullptr);
  EXPECT_FALSE(fs_->Exists(root_ + "/missing"));
}

TEST_P(FileSystemContractTest, LinkKeepsInodeAndCountsLinks) {
  auto a = MakeDir("a");
  auto b = MakeDir("b");
  ASSERT_TRUE(a->WriteFile("k@00000000000001", "value", false).ok());
  KvFileInfo before, in_a, in_b;
  ASSERT_TRUE(a->Stat("k@00000000000001", &before).ok());
  ASSERT_TRUE(b->LinkFrom(a.get(), "k@00000000000001").ok());
  ASSERT_TRUE(a->Stat("k@00000000000001", &in_a).ok());
  ASSERT_TRUE(b->Stat("k@00000000000001", &in_b).ok());
  EXPECT_EQ(in_a.inode, before.inode);
  EXPECT_EQ(in_b.inode, before.inode);
  EXPECT_EQ(in_a.links, 2u);
  EXPECT_EQ(in_b.links, 2u);

  // Linking again onto an existing name: EEXIST as an IOError.
  Status s = b->LinkFrom(a.get(), "k@00000000000001");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(strerror(EEXIST)), std::string::npos);
  // Linking a missing name fails too.
  EXPECT_FALSE(b->LinkFrom(a.get(), "absent").ok());

  ASSERT_TRUE(a->Unlink("k@00000000000001").ok());
  EXPECT_TRUE(a->Stat("k@00000000000001", &in_a).IsNotFound());
  ASSERT_TRUE(b->Stat("k@00000000000001", &in_b).ok());
  EXPECT_EQ(in_b.links, 1u);
  std::string got;
  ASSERT_TRUE(b->ReadFile("k@00000000000001", &got).ok());
  EXPECT_EQ(got, "value");
}

TEST_P(FileSystemContractTest, ListSkipsDots) {
  auto dir = MakeDir("d");
  std::vector<std::string> names;
  ASSERT_TRUE(dir->List(&names).ok());
  EXPECT_TRUE(names.empty());
  for (const char* n : {"x", "y", "..@00000000000001", ".hidden"}) {
    ASSERT_TRUE(dir->WriteFile(n, n, false).ok());
  }
  ASSERT_TRUE(dir->List(&names).ok());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"..@00000000000001", ".hidden",
                                             "x", "y"}));
  // Twice in a row gives the same answer (no shared read offset).
  std::vector<std::string> again;
  ASSERT_TRUE(dir->List(&again).ok());
  EXPECT_EQ(again.size(), 4u);
}

// ListDirectories names the entries an unlink cannot remove, and only
// those: directories, under any name, not files, and (POSIX) not a
// symbolic link to a directory, which an unlink removes. Stat says which
// an entry is.
TEST_P(FileSystemContractTest, ListDirectoriesNamesOnlyDirectories) {
  auto dir = MakeDir("d");
  std::vector<std::string> names;
  ASSERT_TRUE(dir->ListDirectories(&names).ok());
  EXPECT_TRUE(names.empty());
  for (const char* n : {"META", "a@00000000000001", "x"}) {
    ASSERT_TRUE(dir->WriteFile(n, n, false).ok());
  }
  ASSERT_TRUE(fs_->CreateDir(root_ + "/d/META-000009", false).ok());
  ASSERT_TRUE(fs_->CreateDir(root_ + "/d/sub", false).ok());
  ASSERT_TRUE(fs_->CreateDir(root_ + "/elsewhere", false).ok());
  if (GetParam() == "posix") {
    ASSERT_EQ(0, symlink((root_ + "/elsewhere").c_str(),
                         (root_ + "/d/link@00000000000001").c_str()));
  }
  ASSERT_TRUE(dir->ListDirectories(&names).ok());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"META-000009", "sub"}));
  KvFileInfo info;
  ASSERT_TRUE(dir->Stat("sub", &info).ok());
  EXPECT_TRUE(info.directory);
  ASSERT_TRUE(dir->Stat("x", &info).ok());
  EXPECT_FALSE(info.directory);
  if (GetParam() == "posix") {
    ASSERT_TRUE(dir->Stat("link@00000000000001", &info).ok());
    EXPECT_FALSE(info.directory);
  }
}

TEST_P(FileSystemContractTest, RenamedDirectoryStaysUsable) {
  ASSERT_TRUE(fs_->CreateDir(root_ + "/L0", false).ok());
  ASSERT_TRUE(fs_->CreateDir(root_ + "/L1", false).ok());
  ASSERT_TRUE(fs_->CreateDir(root_ + "/L0/000001.sst", false).ok());
  std::unique_ptr<Directory> dir;
  ASSERT_TRUE(fs_->OpenDirectory(root_ + "/L0/000001.sst", &dir).ok());
  ASSERT_TRUE(dir->WriteFile("before", "1", false).ok());
  ASSERT_TRUE(
      fs_->Rename(root_ + "/L0/000001.sst", root_ + "/L1/000001.sst").ok());
  EXPECT_FALSE(fs_->Exists(root_ + "/L0/000001.sst"));
  EXPECT_EQ(dir->path(), root_ + "/L0/000001.sst");  // as opened
  // Reads, writes and syncs still reach the moved directory.
  std::string got;
  ASSERT_TRUE(dir->ReadFile("before", &got).ok());
  EXPECT_EQ(got, "1");
  ASSERT_TRUE(dir->WriteFile("after", "2", false).ok());
  EXPECT_TRUE(fs_->Exists(root_ + "/L1/000001.sst/after"));
  EXPECT_TRUE(dir->Sync().ok());
  EXPECT_TRUE(dir->SyncFileSystem().ok());
  ASSERT_TRUE(dir->Unlink("before").ok());
  ASSERT_TRUE(dir->Unlink("after").ok());
  ASSERT_TRUE(fs_->RemoveDir(root_ + "/L1/000001.sst").ok());
}

TEST_P(FileSystemContractTest, CreateAndRemoveDir) {
  const std::string path = root_ + "/x";
  ASSERT_TRUE(fs_->CreateDir(path, false).ok());
  EXPECT_TRUE(fs_->CreateDir(path, true).ok());
  Status s = fs_->CreateDir(path, false);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  // A regular file in the way is an error even when ok_if_exists.
  {
    std::unique_ptr<Directory> root;
    ASSERT_TRUE(fs_->OpenDirectory(root_, &root).ok());
    ASSERT_TRUE(root->WriteFile("file", "", false).ok());
  }
  EXPECT_FALSE(fs_->CreateDir(root_ + "/file", true).ok());
  // rmdir of a non-empty directory fails and leaves it.
  std::unique_ptr<Directory> dir;
  ASSERT_TRUE(fs_->OpenDirectory(path, &dir).ok());
  ASSERT_TRUE(dir->WriteFile("f", "", false).ok());
  EXPECT_TRUE(fs_->RemoveDir(path).IsIOError());
  EXPECT_TRUE(fs_->Exists(path));
  ASSERT_TRUE(dir->Unlink("f").ok());
  EXPECT_TRUE(fs_->RemoveDir(path).ok());
  EXPECT_FALSE(fs_->Exists(path));
  EXPECT_TRUE(fs_->RemoveDir(path).IsNotFound());
  EXPECT_TRUE(fs_->Rename(path, root_ + "/y").IsNotFound());
}

// Larger than one write() takes (kMaxWriteChunk), and not a multiple of it.
TEST_P(FileSystemContractTest, LargeFileRoundTrip) {
  auto dir = MakeDir("d");
  std::string data;
  for (int i = 0; i < (3 << 20) + 777; i++) {
    data.push_back(static_cast<char>(i * 31));
  }
  ASSERT_TRUE(dir->WriteFile("big", data, true).ok());
  std::string got;
  ASSERT_TRUE(dir->ReadFile("big", &got).ok());
  EXPECT_TRUE(got == data);
  ASSERT_TRUE(dir->ReadFileAt("big", 1 << 20, 10, &got).ok());
  EXPECT_EQ(got, data.substr(1 << 20, 10));
}

INSTANTIATE_TEST_SUITE_P(Implementations, FileSystemContractTest,
                         testing::Values("posix", "memory"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A symbolic link is never followed to read, list or change what it
// points at: a directory opened at one only syncs (a database directory
// may be a link the user made), a file that is one does not read.
TEST(PosixSymlinkTest, LinksAreNotFollowed) {
  const std::string root = delsm_test::MakeTestDir("delsm_fs_symlink");
  ASSERT_FALSE(root.empty());
  FileSystem* fs = FileSystem::Default();
  ASSERT_TRUE(fs->CreateDir(root + "/outside", false).ok());
  ASSERT_TRUE(fs->CreateDir(root + "/sst", false).ok());
  std::unique_ptr<Directory> outside, sst;
  ASSERT_TRUE(fs->OpenDirectory(root + "/outside", &outside).ok());
  ASSERT_TRUE(outside->WriteFile("f", "data", false).ok());
  ASSERT_EQ(symlink((root + "/outside").c_str(), (root + "/link").c_str()), 0);
  ASSERT_EQ(symlink((root + "/outside/f").c_str(), (root + "/sst/k").c_str()),
            0);

  std::unique_ptr<Directory> link;
  ASSERT_TRUE(fs->OpenDirectory(root + "/link", &link).ok());
  EXPECT_TRUE(link->Sync().ok());
  std::vector<std::string> names;
  std::string got;
  KvFileInfo info;
  std::unique_ptr<ReadOnlyFile> file;
  for (const Status& s :
       {link->List(&names), link->Unlink("f"), link->ReadFile("f", &got),
        link->ReadFileAt("f", 0, 4, &got), link->Stat("f", &info),
        link->OpenFile("f", &file), link->WriteFile("new", "", false),
        link->LinkFrom(outside.get(), "f"), outside->LinkFrom(link.get(), "f"),
        UnlinkDirectoryEntries(root + "/link")}) {
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(s.ToString().find(root + "/link"), std::string::npos)
        << s.ToString();
  }
  ASSERT_TRUE(fs->OpenDirectory(root + "/sst", &sst).ok());
  Status s = sst->ReadFile("k", &got);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("a symbolic link, not followed"),
            std::string::npos)
      << s.ToString();
  EXPECT_TRUE(sst->ReadFileAt("k", 0, 4, &got).IsIOError());
  EXPECT_TRUE(sst->OpenFile("k", &file).IsIOError());
  // Unlinking a link removes the link only.
  ASSERT_TRUE(sst->Unlink("k").ok());
  ASSERT_TRUE(outside->ReadFile("f", &got).ok());
  EXPECT_EQ(got, "data");
  link.reset();
  outside.reset();
  sst.reset();
  EXPECT_EQ(RemoveTreeAt(root), 0);
}

// CreateDir never takes a link for a directory, even one pointing at a
// directory: what a caller made in it would be outside its own tree.
TEST(PosixSymlinkTest, CreateDirRefusesALink) {
  const std::string root = delsm_test::MakeTestDir("delsm_fs_symlink");
  ASSERT_FALSE(root.empty());
  FileSystem* fs = FileSystem::Default();
  ASSERT_TRUE(fs->CreateDir(root + "/outside", false).ok());
  ASSERT_EQ(symlink((root + "/outside").c_str(), (root + "/link").c_str()), 0);
  ASSERT_EQ(symlink((root + "/none").c_str(), (root + "/dangling").c_str()), 0);
  for (const char* name : {"/link", "/dangling"}) {
    const Status s = fs->CreateDir(root + name, true);
    EXPECT_EQ("IO error: " + root + name + ": a symbolic link, not followed",
              s.ToString());
    EXPECT_TRUE(fs->CreateDir(root + name, false).IsIOError());
  }
  struct stat st;
  EXPECT_NE(0, lstat((root + "/none").c_str(), &st));
  // A directory that is there is still fine.
  EXPECT_TRUE(fs->CreateDir(root + "/outside", true).ok());
  EXPECT_EQ(RemoveTreeAt(root), 0);
}

TEST(PosixErrorTest, Messages) {
  Status s = PosixError("/some/path", ENOENT, true);
  EXPECT_TRUE(s.IsNotFound());
  s = PosixError("/some/path", ENOENT, false);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("/some/path"), std::string::npos);
  EXPECT_NE(s.ToString().find(strerror(ENOENT)), std::string::npos);
  // /tmp has free inodes, so ENOSPC there is plain "no space".
  s = PosixError("/tmp/x", ENOSPC, true);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.ToString().find("out of inodes"), std::string::npos);
}

}  // namespace
}  // namespace leveldb
