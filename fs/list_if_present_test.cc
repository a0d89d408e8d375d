// ListDirectoryIfPresent (fs/list_if_present.h): a directory is taken for
// absent only where its listing's NotFound and a lookup (Probe) agree; a
// listing that fails otherwise, a NotFound the lookup contradicts, and a
// lookup that cannot tell are returned as errors.
#include "fs/list_if_present.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/fault_injection_file_system.h"
#include "tests/stat_failing_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

class ListDirectoryIfPresentTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_OK(FileSystem::Default()->CreateDir(dir_, false));
    std::unique_ptr<Directory> d;
    ASSERT_OK(FileSystem::Default()->OpenDirectory(dir_, &d));
    ASSERT_OK(d->WriteFile("a", "1", false));
  }

  // Every call of kind `op` on exactly `path` fails with `err`.
  static void FailOn(FaultInjectionFileSystem* fs, FsOp op,
                     const std::string& path, int err) {
    FaultSpec spec;
    spec.err = err;
    spec.sticky = true;
    spec.path_is = path;
    fs->Arm(op, spec);
  }

  delsm_test::TempDir tmp_{"delsm_list_if_present"};
  const std::string dir_ = tmp_.path() + "/dir";        // holds one file, a
  const std::string absent_ = tmp_.path() + "/absent";  // never made
};

TEST_F(ListDirectoryIfPresentTest, ListsADirectoryThatIsThere) {
  std::vector<std::string> names = {"stale"};
  bool absent = true;
  ASSERT_OK(
      ListDirectoryIfPresent(FileSystem::Default(), dir_, &names, &absent));
  EXPECT_FALSE(absent);
  EXPECT_EQ(std::vector<std::string>({"a"}), names);
}

TEST_F(ListDirectoryIfPresentTest, DirectoryThatIsNotThereIsAbsent) {
  for (const std::string& path : {absent_, absent_ + "/below"}) {
    SCOPED_TRACE(path);
    std::vector<std::string> names = {"stale"};
    bool absent = false;
    ASSERT_OK(
        ListDirectoryIfPresent(FileSystem::Default(), path, &names, &absent));
    EXPECT_TRUE(absent);
    EXPECT_TRUE(names.empty());
  }
}

// The listing says ENOENT (at the open, or at the reading of the entries)
// while the directory is there: the NotFound is returned, not taken for
// absence.
TEST_F(ListDirectoryIfPresentTest, NotFoundOfADirectoryThatIsThereFails) {
  for (FsOp op : {FsOp::kOpen, FsOp::kReaddir}) {
    SCOPED_TRACE(FsOpName(op));
    FaultInjectionFileSystem fs(FileSystem::Default());
    FailOn(&fs, op, dir_, ENOENT);
    std::vector<std::string> names;
    bool absent = true;
    const Status s = ListDirectoryIfPresent(&fs, dir_, &names, &absent);
    EXPECT_TRUE(fs.Fired());
    EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(dir_)) << s.ToString();
    EXPECT_FALSE(absent);
  }
}

// Any other failure of the listing is returned as it is, whether or not
// the directory is there.
TEST_F(ListDirectoryIfPresentTest, OtherListingErrorsFail) {
  for (FsOp op : {FsOp::kOpen, FsOp::kReaddir}) {
    for (int err : {EIO, EACCES, EMFILE}) {
      SCOPED_TRACE(std::string(FsOpName(op)) + " " + std::strerror(err));
      FaultInjectionFileSystem fs(FileSystem::Default());
      FailOn(&fs, op, dir_, err);
      std::vector<std::string> names;
      bool absent = true;
      const Status s = ListDirectoryIfPresent(&fs, dir_, &names, &absent);
      EXPECT_TRUE(fs.Fired());
      EXPECT_TRUE(s.IsIOError()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find(std::strerror(err)))
          << s.ToString();
      EXPECT_FALSE(absent);
    }
  }
}

// The listing says NotFound and the lookup fails (EIO): whether the
// directory is there cannot be told, even where it truly is not.
TEST_F(ListDirectoryIfPresentTest, NotFoundTheLookupCannotConfirmFails) {
  delsm_test::StatFailingFileSystem lookups;
  FaultInjectionFileSystem fs(&lookups);
  for (const std::string& path : {dir_, absent_}) {
    SCOPED_TRACE(path);
    lookups.FailExistsUnder(path);
    if (path == dir_) {
      FailOn(&fs, FsOp::kOpen, path, ENOENT);
    } else {
      fs.Disarm();  // the listing's own NotFound
    }
    std::vector<std::string> names;
    bool absent = true;
    const Status s = ListDirectoryIfPresent(&fs, path, &names, &absent);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.IsNotFound()) << s.ToString();
    EXPECT_FALSE(absent);
  }
}

}  // namespace
}  // namespace leveldb
