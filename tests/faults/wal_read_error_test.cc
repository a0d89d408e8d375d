// Open replays the WALs the manifest does not cover, and once their writes
// are in SSTs the WALs are deleted; RepairDB replays every WAL and then
// moves it to lost/. A WAL read that fails (EIO) is not damage: nothing is
// known of the records past it. Both must fail and change nothing, not
// take the failed read for the end of the WAL, which would lose every
// write past it (acknowledged with sync=true or not) and then put away the
// WAL that held them, whatever paranoid_checks says.
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;
using delsm_test::TempDir;

constexpr int kKeys = 200;

std::string ValueOf(int i) { return std::string(1000, 'a' + i % 26); }

// An Env whose WALs (*.log) read their first 32 KiB block and then fail
// every read with EIO, as a device with a bad sector does.
class FailingWalReadEnv : public EnvWrapper {
 public:
  FailingWalReadEnv() : EnvWrapper(Env::Default()) {}
  int failed_reads = 0;

  Status NewSequentialFile(const std::string& f,
                           SequentialFile** result) override {
    Status s = target()->NewSequentialFile(f, result);
    if (s.ok() && f.size() > 4 && f.compare(f.size() - 4, 4, ".log") == 0) {
      *result = new File(this, *result, f);
    }
    return s;
  }

 private:
  class File : public SequentialFile {
   public:
    File(FailingWalReadEnv* env, SequentialFile* f, std::string name)
        : env_(env), f_(f), name_(std::move(name)) {}
    Status Read(size_t n, Slice* result, char* scratch) override {
      if (read_ >= 32 * 1024) {
        *result = Slice();
        env_->failed_reads++;
        return Status::IOError(name_, "Input/output error");
      }
      Status s = f_->Read(n, result, scratch);
      if (s.ok()) read_ += result->size();
      return s;
    }
    Status Skip(uint64_t n) override { return f_->Skip(n); }

   private:
    FailingWalReadEnv* const env_;
    const std::unique_ptr<SequentialFile> f_;
    const std::string name_;
    uint64_t read_ = 0;
  };
};

void ExpectEveryKey(const Options& options, const std::string& dbname) {
  DB* db = nullptr;
  Status s =
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> owner(db);
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    ASSERT_TRUE(s.ok()) << "acknowledged write of " << Key(i)
                        << " lost: " << s.ToString();
    ASSERT_EQ(ValueOf(i), v) << Key(i);
  }
}

// One memtable, never flushed: Close leaves every write in the WAL (about
// 200 KiB, several blocks).
void WriteKeysToWal(const Options& options, const std::string& dbname) {
  DB* db = nullptr;
  ASSERT_TRUE(
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &db)
          .ok());
  std::unique_ptr<DB> owner(db);
  WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(db->Put(sync, Key(i), ValueOf(i)).ok());
  }
}

class WalReadErrorTest : public testing::TestWithParam<bool> {};

TEST_P(WalReadErrorTest, OpenFailsAndKeepsTheWal) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options = delsm_test::NewDbOptions(8 << 20);
  options.paranoid_checks = GetParam();
  WriteKeysToWal(options, dbname);
  FailingWalReadEnv env;
  Options failing = options;
  failing.env = &env;
  DB* db = nullptr;
  Status s =
      delsm::Open(failing, delsm_test::ManualCompactionOnly(), dbname, &db);
  delete db;
  ASSERT_GT(env.failed_reads, 0) << "no WAL read was failed";
  EXPECT_TRUE(s.IsIOError()) << "Open after a WAL read error: " << s.ToString();
  // Whatever that Open answered, the writes must all be there once the
  // WAL reads again.
  ExpectEveryKey(options, dbname);
}

TEST(WalReadErrorRepairTest, RepairFailsAndKeepsTheWal) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options = delsm_test::NewDbOptions(8 << 20);
  WriteKeysToWal(options, dbname);

  FailingWalReadEnv env;
  Options failing = options;
  failing.env = &env;
  Status s = RepairDBWithFileSystem(dbname, failing, FileSystem::Default());
  ASSERT_GT(env.failed_reads, 0) << "no WAL read was failed";
  EXPECT_TRUE(s.IsIOError())
      << "RepairDB after a WAL read error: " << s.ToString();
  ExpectEveryKey(options, dbname);
}

INSTANTIATE_TEST_SUITE_P(ParanoidChecks, WalReadErrorTest, testing::Bool());

}  // namespace
}  // namespace leveldb
