// A DeLSM database in which a compaction replaced an SST that is still on
// disk: the compaction committed and was killed before it removed what it
// replaced (its unlinks fail here, as a kill after the commit leaves
// them), and the next Open's sweep of L1 failed too (EIO). The replaced
// SST's meta file stays in L1, and only the manifest written before that
// Open records it as replaced. The tests of what LevelDB's RepairDB and
// DeLSM's RepairDB make of such a directory start from it.
#ifndef DELSM_TESTS_REPLACED_SST_LEFT_H_
#define DELSM_TESTS_REPLACED_SST_LEFT_H_

#include <functional>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace delsm_test {

struct ReplacedSstLeft {
  // Key(i) for i in [0, keys) is put with value(i), flushed and compacted
  // to L1; then each key with deleted(i) is deleted, flushed, and the
  // compaction that drops those puts is the one whose removal is cut.
  int keys = 0;
  std::function<std::string(int)> value;
  std::function<bool(int)> deleted;
  // Runs on the first database after that compaction, before it closes.
  std::function<void(leveldb::DBImpl*)> after_compaction;
  // Runs on the database the second Open opened, before it closes.
  std::function<void(leveldb::DB*)> after_open;
};

// Makes the state above in `dbname` (created). Fails the calling test
// (gtest assertions: call through ASSERT_NO_FATAL_FAILURE) if a step does
// not go as described, the sweep's cut included.
inline void MakeReplacedSstLeft(const std::string& dbname,
                                const ReplacedSstLeft& spec) {
  using leveldb::FaultInjectionFileSystem;
  using leveldb::FaultSpec;
  using leveldb::FsOp;
  leveldb::Options options;
  options.create_if_missing = true;
  const delsm::Tuning tuning = ManualCompactionOnly();
  FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  FaultSpec unlinks;
  unlinks.sticky = true;
  {
    leveldb::DB* raw = nullptr;
    ASSERT_TRUE(
        leveldb::OpenWithFileSystem(options, tuning, dbname, &fs, &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    leveldb::DBImpl* impl = static_cast<leveldb::DBImpl*>(raw);
    const leveldb::WriteOptions write;
    for (int i = 0; i < spec.keys; i++) {
      ASSERT_TRUE(db->Put(write, Key(i), spec.value(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
    for (int i = 0; i < spec.keys; i++) {
      if (spec.deleted(i)) ASSERT_TRUE(db->Delete(write, Key(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    fs.Arm(FsOp::kUnlink, unlinks);
    ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
    if (spec.after_compaction) spec.after_compaction(impl);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The next Open removes the dead L0 directory (the deletes' tombstones)
  // but not the replaced meta file in L1 (the puts).
  unlinks.path_contains = "/L1/";
  fs.Arm(FsOp::kUnlink, unlinks);
  {
    leveldb::DB* raw = nullptr;
    leveldb::Status s =
        leveldb::OpenWithFileSystem(options, tuning, dbname, &fs, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<leveldb::DB> db(raw);
    if (spec.after_open) spec.after_open(raw);
    if (::testing::Test::HasFatalFailure()) return;
  }
  ASSERT_TRUE(fs.Fired()) << "the Open's sweep of L1 was not cut";
  fs.Disarm();
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_REPLACED_SST_LEFT_H_
