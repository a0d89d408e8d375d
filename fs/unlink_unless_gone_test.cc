// UnlinkUnlessGone (fs/unlink_unless_gone.h): a name counts as gone only
// where the unlink's NotFound and a lookup (Directory::Stat) agree; an
// unlink that fails with ENOENT while the entry is there, or fails
// otherwise, is an error, and the entry stays.
#include "fs/unlink_unless_gone.h"

#include <cerrno>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "testing/fault_injection_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

class UnlinkUnlessGoneTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_OK(FileSystem::Default()->CreateDir(dir_, false));
    std::unique_ptr<Directory> d;
    ASSERT_OK(FileSystem::Default()->OpenDirectory(dir_, &d));
    ASSERT_OK(d->WriteFile("a", "1", false));
  }

  // Whether `name` is in the directory, by a lookup of the real one.
  bool There(const std::string& name) {
    std::unique_ptr<Directory> d;
    EXPECT_TRUE(FileSystem::Default()->OpenDirectory(dir_, &d).ok());
    KvFileInfo info;
    return d != nullptr && d->Stat(name, &info).ok();
  }

  // Unlinks `name` through a file system whose unlinks of it fail with
  // `err` (0: none fail).
  Status Unlink(const std::string& name, int err, bool* unlinked) {
    FaultInjectionFileSystem fs(FileSystem::Default());
    if (err != 0) {
      FaultSpec spec;
      spec.err = err;
      spec.sticky = true;
      spec.path_is = dir_ + "/" + name;
      fs.Arm(FsOp::kUnlink, spec);
    }
    std::unique_ptr<Directory> d;
    Status s = fs.OpenDirectory(dir_, &d);
    if (!s.ok()) return s;
    s = UnlinkUnlessGone(d.get(), name, unlinked);
    if (err != 0) EXPECT_TRUE(fs.Fired());
    return s;
  }

  delsm_test::TempDir tmp_{"delsm_unlink_unless_gone"};
  const std::string dir_ = tmp_.path() + "/dir";  // holds one file, a
};

TEST_F(UnlinkUnlessGoneTest, UnlinksANameThatIsThere) {
  bool unlinked = false;
  ASSERT_OK(Unlink("a", 0, &unlinked));
  EXPECT_TRUE(unlinked);
  EXPECT_FALSE(There("a"));
}

TEST_F(UnlinkUnlessGoneTest, NameThatIsNotThereIsGone) {
  bool unlinked = true;
  ASSERT_OK(Unlink("b", 0, &unlinked));
  EXPECT_FALSE(unlinked);
}

// The unlink says ENOENT while the entry is there: an error naming it, and
// the entry stays for the caller's next attempt.
TEST_F(UnlinkUnlessGoneTest, NotFoundOfANameThatIsThereFails) {
  bool unlinked = true;
  const Status s = Unlink("a", ENOENT, &unlinked);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(unlinked);
  EXPECT_NE(std::string::npos, s.ToString().find(dir_ + "/a")) << s.ToString();
  EXPECT_TRUE(There("a"));
}

// The unlink says ENOENT and the name is indeed not there: gone.
TEST_F(UnlinkUnlessGoneTest, NotFoundThatALookupConfirmsIsGone) {
  bool unlinked = true;
  ASSERT_OK(Unlink("b", ENOENT, &unlinked));
  EXPECT_FALSE(unlinked);
}

TEST_F(UnlinkUnlessGoneTest, OtherErrorsAreReturned) {
  for (int err : {EIO, EACCES, EMFILE}) {
    SCOPED_TRACE(err);
    bool unlinked = true;
    const Status s = Unlink("a", err, &unlinked);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.IsNotFound()) << s.ToString();
    EXPECT_FALSE(unlinked);
    EXPECT_TRUE(There("a"));
  }
}

}  // namespace
}  // namespace leveldb
