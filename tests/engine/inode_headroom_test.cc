// Inode headroom seen coming: DeLSM projects how many further values fit
// before the file system's inodes run out and before its space does (at
// the database's own allocated bytes per inode), shows it as the property
// delsm.inode-headroom, and warns in its LOG once when inodes would run out
// first: at Open, or when a flush crosses over (or first measures a
// value's size); not at every flush.
//
// The file system's free space and inodes come through the FileSystem
// seam (FileSystem::GetSpace), so a wrapper here can present an ext4 short
// of inodes, or a btrfs that reports none, on any file system; one test
// reads the real file system under the test directory.
#include "fs/inode_headroom.h"

#include <sys/statfs.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/forwarding_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kGiB = 1 << 30;

FileSystemSpace Space(const std::string& type, bool dynamic,
                      uint64_t total_inodes, uint64_t free_inodes,
                      uint64_t free_bytes) {
  FileSystemSpace s;
  s.block_size = 4096;
  s.type = type;
  s.dynamic_inodes = dynamic;
  s.total_inodes = total_inodes;
  s.free_inodes = free_inodes;
  s.free_bytes = free_bytes;
  return s;
}

// ext4's default: an inode per 16 KiB. With 4 KiB values in files, a GiB
// free with its share of inodes holds a quarter as many values by inodes
// as by space.
TEST(InodeHeadroomProjection, Ext4DefaultRatioRunsOutOfInodesFirst) {
  const FileSystemSpace ext4 = Space("ext4", false, 1 << 16, 1 << 16, 1 * kGiB);
  const InodeHeadroom h = ProjectInodeHeadroom(ext4, 4096 * 1000, 1000);
  EXPECT_EQ(4096u, h.bytes_per_value);
  EXPECT_FALSE(h.assumed);
  EXPECT_EQ(65536u, h.values_until_inodes);
  EXPECT_EQ(262144u, h.values_until_space);
  EXPECT_TRUE(h.inodes_first());
  EXPECT_EQ(65536u, h.values());
  const std::string text = h.ToString();
  EXPECT_NE(std::string::npos, text.find("values: 65536\n")) << text;
  EXPECT_NE(std::string::npos, text.find("first-limit: inodes\n")) << text;
  EXPECT_NE(std::string::npos, text.find("inodes: fixed (ext4)\n")) << text;
}

// Values of 64 KiB on the same file system: space runs out first.
TEST(InodeHeadroomProjection, LargeValuesRunOutOfSpaceFirst) {
  const FileSystemSpace ext4 = Space("ext4", false, 1 << 16, 1 << 16, 1 * kGiB);
  const InodeHeadroom h = ProjectInodeHeadroom(ext4, 65536 * 10, 10);
  EXPECT_EQ(16384u, h.values_until_space);
  EXPECT_FALSE(h.inodes_first());
  EXPECT_EQ(16384u, h.values());
}

// btrfs reports no inode counts (f_files and f_ffree 0): inodes are no
// limit of their own, and a free inode count of 0 is not "none left".
TEST(InodeHeadroomProjection, BtrfsReportsNoInodesAndSpaceIsTheLimit) {
  const FileSystemSpace btrfs = Space("btrfs", true, 0, 0, 1 * kGiB);
  const InodeHeadroom h = ProjectInodeHeadroom(btrfs, 4096 * 10, 10);
  EXPECT_EQ(InodeHeadroom::kUnlimited, h.values_until_inodes);
  EXPECT_FALSE(h.inodes_first());
  EXPECT_EQ(262144u, h.values());
  bool warned = false;
  EXPECT_FALSE(InodeHeadroomWarns(h, &warned));
  const std::string text = h.ToString();
  EXPECT_NE(std::string::npos, text.find("values-until-inodes: unlimited\n"))
      << text;
  EXPECT_NE(std::string::npos, text.find("inodes: dynamic (btrfs)\n")) << text;
}

// A database with no values in files yet is projected at one block a value
// (the fewest bytes a KV file allocates), and says so.
TEST(InodeHeadroomProjection, EmptyDatabaseAssumesOneBlockAValue) {
  const FileSystemSpace ext4 = Space("ext4", false, 1000, 1000, 100 * kMiB);
  const InodeHeadroom h = ProjectInodeHeadroom(ext4, 0, 0);
  EXPECT_TRUE(h.assumed);
  EXPECT_EQ(4096u, h.bytes_per_value);
  EXPECT_EQ(25600u, h.values_until_space);
  EXPECT_TRUE(h.inodes_first());
  EXPECT_NE(std::string::npos, h.ToString().find("(assumed"));
  // No warning on a guess: the values may all be inline.
  bool warned = false;
  EXPECT_FALSE(InodeHeadroomWarns(h, &warned));
}

// One warning per crossing: repeated checks while inodes stay first warn
// once; a headroom hovering at the crossing does not re-arm the warning;
// space clearly first again does, and the next crossing warns again.
TEST(InodeHeadroomProjection, WarnsOncePerCrossing) {
  bool warned = false;
  auto at = [](uint64_t free_inodes) {
    return ProjectInodeHeadroom(
        Space("ext4", false, 1 << 20, free_inodes, 4096 * 1000), 4096, 1);
  };
  EXPECT_FALSE(InodeHeadroomWarns(at(5000), &warned));  // space first
  EXPECT_TRUE(InodeHeadroomWarns(at(900), &warned));    // crossed
  EXPECT_FALSE(InodeHeadroomWarns(at(800), &warned));
  EXPECT_FALSE(InodeHeadroomWarns(at(1100), &warned));  // hovering
  EXPECT_FALSE(InodeHeadroomWarns(at(950), &warned));
  EXPECT_FALSE(InodeHeadroomWarns(at(2000), &warned));  // clearly space
  EXPECT_TRUE(InodeHeadroomWarns(at(700), &warned));    // crossed again
}

// Passes everything to FileSystem::Default() but reports the free space
// and inodes the test sets.
class SpaceFileSystem : public delsm_test::ForwardingFileSystem {
 public:
  void Set(const FileSystemSpace& space) {
    std::lock_guard<std::mutex> l(mu_);
    space_ = space;
  }
  Status GetSpace(const std::string& path, FileSystemSpace* space) override {
    std::lock_guard<std::mutex> l(mu_);
    *space = space_;
    return Status::OK();
  }

 private:
  std::mutex mu_;
  FileSystemSpace space_;
};

class InodeHeadroomDbTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
  void TearDown() override { delete db_; }

  void Open() {
    delete db_;
    db_ = nullptr;
    Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 256 << 10;
    delsm::Tuning tuning;
    tuning.inline_threshold = 0;  // every value in a KV file of its own
    ASSERT_OK(OpenWithFileSystem(options, tuning, dbname(), &fs_, &db_));
  }
  // `n` values of 4 KiB, then a flush.
  void WriteAndFlush(int n) {
    for (int i = 0; i < n; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), "key" + std::to_string(next_++),
                         std::string(4096, 'v')));
    }
    ASSERT_OK(static_cast<DBImpl*>(db_)->TEST_FlushMemTable());
  }
  int Warnings() {
    std::string log;
    EXPECT_TRUE(ReadFileToString(Env::Default(), dbname() + "/LOG", &log).ok());
    int n = 0;
    for (size_t at = log.find("Inode headroom:"); at != std::string::npos;
         at = log.find("Inode headroom:", at + 1)) {
      n++;
    }
    return n;
  }
  std::string Headroom() {
    std::string v;
    EXPECT_TRUE(db_->GetProperty("delsm.inode-headroom", &v));
    return v;
  }
  std::string dbname() const { return dir_.path() + "/db"; }

  TempDir dir_{"inode_headroom"};
  SpaceFileSystem fs_;
  DB* db_ = nullptr;
  int next_ = 0;
};

TEST_F(InodeHeadroomDbTest, OpenOnAFileSystemShortOfInodesWarnsOnce) {
  // An ext4 with 10,000 free inodes and 1 GiB free: 4 KiB values run out
  // of inodes at a twenty-sixth of the space.
  // The first flush measures what a value takes and warns; later flushes
  // do not.
  fs_.Set(Space("ext4", false, 1 << 20, 10000, 1 * kGiB));
  Open();
  EXPECT_EQ(0, Warnings());  // an empty database: nothing measured
  WriteAndFlush(50);
  EXPECT_EQ(1, Warnings());
  for (int flush = 0; flush < 3; flush++) WriteAndFlush(50);
  EXPECT_EQ(1, Warnings());
  const std::string h = Headroom();
  EXPECT_NE(std::string::npos, h.find("first-limit: inodes\n")) << h;
  EXPECT_NE(std::string::npos, h.find("values: 10000\n")) << h;
  EXPECT_NE(std::string::npos, h.find("inodes: fixed (ext4)\n")) << h;
  // Opening the database again warns at Open, once (in the new LOG; the
  // old one is LOG.old).
  Open();
  EXPECT_EQ(1, Warnings());
  WriteAndFlush(50);
  EXPECT_EQ(1, Warnings());
}

TEST_F(InodeHeadroomDbTest, FlushCrossingToInodesFirstWarnsOnce) {
  fs_.Set(Space("ext4", false, 1 << 20, 1 << 20, 1 * kGiB));
  Open();
  WriteAndFlush(50);
  EXPECT_EQ(0, Warnings());
  std::string h = Headroom();
  EXPECT_NE(std::string::npos, h.find("first-limit: space\n")) << h;
  // The inodes go (another user's small files): the next flush warns.
  fs_.Set(Space("ext4", false, 1 << 20, 5000, 1 * kGiB));
  EXPECT_EQ(0, Warnings());  // nothing until a flush looks
  WriteAndFlush(50);
  EXPECT_EQ(1, Warnings());
  WriteAndFlush(50);
  WriteAndFlush(50);
  EXPECT_EQ(1, Warnings());
  h = Headroom();
  EXPECT_NE(std::string::npos, h.find("first-limit: inodes\n")) << h;
}

TEST_F(InodeHeadroomDbTest, BtrfsWithNoInodeCountsNeverWarns) {
  fs_.Set(Space("btrfs", true, 0, 0, 1 * kGiB));
  Open();
  WriteAndFlush(50);
  EXPECT_EQ(0, Warnings());
  const std::string h = Headroom();
  EXPECT_NE(std::string::npos, h.find("first-limit: space\n")) << h;
  EXPECT_NE(std::string::npos, h.find("values-until-inodes: unlimited\n")) << h;
  EXPECT_NE(std::string::npos, h.find("inodes: dynamic (btrfs)\n")) << h;
}

// The property on the real file system under the test directory (whatever
// DELSM_TEST_DIR names): it names that file system's kind, as statfs does.
TEST(InodeHeadroomRealFs, PropertyNamesTheFileSystem) {
  TempDir dir("inode_headroom_real");
  ASSERT_FALSE(dir.path().empty());
  Options options;
  options.create_if_missing = true;
  DB* db = nullptr;
  ASSERT_OK(DB::Open(options, dir.path() + "/db", &db));
  std::unique_ptr<DB> owner(db);
  ASSERT_OK(db->Put(WriteOptions(), "k", std::string(8192, 'v')));
  std::string h;
  ASSERT_TRUE(db->GetProperty("delsm.inode-headroom", &h));
  EXPECT_EQ(0u, h.find("values: ")) << h;
  struct statfs fs;
  ASSERT_EQ(0, statfs(dir.path().c_str(), &fs));
  const uint32_t magic = static_cast<uint32_t>(fs.f_type);
  const char* want = magic == 0xef53u       ? "inodes: fixed (ext4)\n"
                     : magic == 0x58465342u ? "inodes: dynamic (xfs)\n"
                     : magic == 0x9123683eu ? "inodes: dynamic (btrfs)\n"
                     : magic == 0x01021994u ? "inodes: fixed (tmpfs)\n"
                                            : "inodes: ";
  EXPECT_NE(std::string::npos, h.find(want)) << h;
  std::printf("delsm.inode-headroom on %s:\n%s", dir.path().c_str(), h.c_str());
}

}  // namespace
}  // namespace leveldb
