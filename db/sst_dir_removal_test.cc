// RemoveRetiredSst on a real directory: exactly the names the retired SST
// owns and no live SST of the directory owns go, whatever kind of name
// (readable, compressed 'z', hashed long key, meta, LONGKEYS) they are.
#include "db/sst_dir_removal.h"

#include <stdlib.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

std::string NameOf(const std::string& user_key, SequenceNumber sequence,
                   bool compressed) {
  return KvStoredFileName(user_key, sequence, compressed);
}

class SstDirRemovalTest : public testing::Test {
 protected:
  void SetUp() override {
    path_ = delsm_test::MakeTestDir("sst_dir_removal_test");
    ASSERT_FALSE(path_.empty());
    ASSERT_TRUE(FileSystem::Default()->OpenDirectory(path_, &dir_).ok());
  }
  void TearDown() override {
    dir_.reset();
    RemoveSstDirectory(FileSystem::Default(), path_, nullptr);
  }

  void Create(const std::vector<std::string>& names) {
    for (const std::string& n : names) {
      ASSERT_TRUE(dir_->WriteFile(n, "v", false).ok()) << n;
    }
  }
  std::set<std::string> Listing() {
    std::vector<std::string> names;
    EXPECT_TRUE(dir_->List(&names).ok());
    return std::set<std::string>(names.begin(), names.end());
  }

  // An index entry whose key this fixture holds.
  MetaIndexEntry Entry(const std::string& user_key, SequenceNumber sequence,
                       ValueStorage storage) {
    keys_.push_back(
        InternalKey(user_key, sequence,
                    storage == ValueStorage::kNone ? kTypeDeletion : kTypeValue)
            .Encode()
            .ToString());
    MetaIndexEntry e;
    e.internal_key = keys_.back();
    e.storage = storage;
    return e;
  }

  std::string path_;
  std::unique_ptr<Directory> dir_;
  std::deque<std::string> keys_;  // Entry()'s keys; a deque never moves them
};

TEST_F(SstDirRemovalTest, RemovesExactlyWhatNoLiveSstOwns) {
  const std::string long_kept(300, 'k');  // hashed KV file names
  const std::string long_gone(300, 'g');
  ASSERT_TRUE(KvFileNameIsHashed(long_kept));

  MetaIndex retired;
  retired.entries = {Entry("a", 5, ValueStorage::kFile),
                     Entry("b", 6, ValueStorage::kFileSnappy),
                     Entry("c", 7, ValueStorage::kFile),
                     Entry("d", 8, ValueStorage::kInline),
                     Entry("e", 9, ValueStorage::kNone),
                     Entry(long_gone, 10, ValueStorage::kFile),
                     Entry(long_kept, 11, ValueStorage::kFileSnappy)};
  // The replacement holds a and the long key; b at the same sequence but
  // stored uncompressed is another file (no 'z').
  MetaIndex replacement;
  replacement.entries = {Entry("a", 5, ValueStorage::kFile),
                         Entry("b", 6, ValueStorage::kFile),
                         Entry(long_kept, 11, ValueStorage::kFileSnappy)};
  // A neighbour SST of the same directory holding c at another sequence.
  MetaIndex neighbour;
  neighbour.entries = {Entry("c", 4, ValueStorage::kFile)};

  const std::vector<std::string> kept = {
      NameOf("a", 5, false), NameOf("b", 6, false), NameOf(long_kept, 11, true),
      NameOf("c", 4, false), "000012.meta",         "000012.longkeys",
      "000013.meta"};
  const std::vector<std::string> gone = {
      NameOf("b", 6, true), NameOf("c", 7, false), NameOf(long_gone, 10, false),
      "000011.meta", "000011.longkeys"};
  Create(kept);
  Create(gone);

  uint64_t unlinked = 0;
  ASSERT_TRUE(
      RemoveRetiredSst(dir_.get(), {&retired, "000011.meta", "000011.longkeys"},
                       {{&replacement, "000012.meta", "000012.longkeys"},
                        {&neighbour, "000013.meta", "000013.longkeys"}},
                       &unlinked)
          .ok());
  EXPECT_EQ(unlinked, gone.size());
  EXPECT_EQ(Listing(), std::set<std::string>(kept.begin(), kept.end()));
}

TEST_F(SstDirRemovalTest, NamesAlreadyGoneAreNotErrors) {
  MetaIndex retired;
  retired.entries = {Entry("x", 1, ValueStorage::kFile),
                     Entry("y", 2, ValueStorage::kFile)};
  Create({NameOf("y", 2, false)});
  uint64_t unlinked = 0;
  ASSERT_TRUE(RemoveRetiredSst(dir_.get(),
                               {&retired, "000020.meta", "000020.longkeys"}, {},
                               &unlinked)
                  .ok());
  EXPECT_EQ(unlinked, 1u);
  EXPECT_TRUE(Listing().empty());
}

// A retired SST owning only its meta file (and, were there one, LONGKEYS):
// those go, and nothing else of the directory, whatever it names.
TEST_F(SstDirRemovalTest, MetaOnlySstRemovesItsMetaFileAlone) {
  const std::vector<std::string> kept = {NameOf("a", 5, false), "META",
                                         "META-000012", "LONGKEYS-000012"};
  Create(kept);
  Create({"META-000011", "LONGKEYS-000011"});
  uint64_t unlinked = 0;
  ASSERT_TRUE(
      RemoveMetaOnlySst(dir_.get(), "META-000011", "LONGKEYS-000011", &unlinked)
          .ok());
  EXPECT_EQ(2u, unlinked);
  EXPECT_EQ(Listing(), std::set<std::string>(kept.begin(), kept.end()));
  // Again, with both gone: not an error.
  ASSERT_TRUE(
      RemoveMetaOnlySst(dir_.get(), "META-000011", "LONGKEYS-000011", &unlinked)
          .ok());
  EXPECT_EQ(2u, unlinked);
}

TEST_F(SstDirRemovalTest, SweepRemovesUnownedEntriesAndLeavesForeignNames) {
  MetaIndex live;
  live.entries = {Entry("a", 5, ValueStorage::kFile)};
  const std::vector<std::string> owned = {NameOf("a", 5, false), "META",
                                          "LONGKEYS"};
  // What a crash leaves that is DeLSM's and no live SST owns.
  const std::vector<std::string> unowned = {NameOf("b", 6, false),
                                            NameOf("c", 7, true), "META-000031",
                                            "LONGKEYS-000031"};
  // Names DeLSM never gives an entry, some starting as its own do: not the
  // sweep's to remove.
  const std::vector<std::string> foreign = {"META-x",   "META-12junk", "META-",
                                            "METADATA", "LONGKEYS-7z", "stray",
                                            "a@b"};
  Create(owned);
  Create(unowned);
  Create(foreign);

  std::vector<std::string> names;
  ASSERT_TRUE(dir_->List(&names).ok());
  uint64_t unlinked = 0;
  ASSERT_TRUE(RemoveUnownedEntries(dir_.get(), names,
                                   {{&live, "META", "LONGKEYS"}}, &unlinked)
                  .ok());
  EXPECT_EQ(unlinked, unowned.size());
  std::set<std::string> expected(owned.begin(), owned.end());
  expected.insert(foreign.begin(), foreign.end());
  EXPECT_EQ(Listing(), expected);
}

}  // namespace
}  // namespace leveldb
