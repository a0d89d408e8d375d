// RepairDB salvages an SST directory a compaction added SSTs to entry by
// entry, inline values included. A read of an inline value that fails for
// another reason than damage (EIO here; EMFILE past the descriptor budget
// alike) says nothing about the value: RepairDB must fail and change
// nothing, not rebuild the directory without the entry, which loses an
// acknowledged write (or lets an older version of its key answer). So must
// a failed read of a value in a home that RepairDB takes back by its name.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/forwarding_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;
using delsm_test::ListDir;
using delsm_test::TempDir;

constexpr int kKeys = 200;

// A FileSystem passing every call to the POSIX one, whose meta files of
// SSTs a compaction added to a directory ("META-<n>") are read only
// through ReadOnlyFile (never mapped) and fail every read of their value
// section with EIO while `fail` is set. (Reads at offset 0 are the whole
// file, read to load its index: meta files under 64 KiB are read so.)
class FailingValueSectionFs : public delsm_test::ForwardingFileSystem {
 public:
  bool fail = true;
  int failed_reads = 0;

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override {
    std::unique_ptr<Directory> d;
    Status s = base()->OpenDirectory(path, &d);
    if (s.ok()) result->reset(new Dir(this, std::move(d)));
    return s;
  }
  // Through OpenDirectory, so that every directory's reads are watched.
  Status OpenMovableDirectory(const std::string& path,
                              const std::vector<std::string>& /*moved_to*/,
                              std::unique_ptr<Directory>* result) override {
    return OpenDirectory(path, result);
  }

 private:
  class File : public ReadOnlyFile {
   public:
    File(FailingValueSectionFs* fs, std::unique_ptr<ReadOnlyFile> f,
         bool value_reads_fail)
        : fs_(fs), f_(std::move(f)), value_reads_fail_(value_reads_fail) {}
    uint64_t size() const override { return f_->size(); }
    Status ReadAt(uint64_t offset, size_t n,
                  std::string* contents) const override {
      if (value_reads_fail_ && fs_->fail && offset > 0) {
        contents->clear();
        fs_->failed_reads++;
        return Status::IOError("injected read error", "Input/output error");
      }
      return f_->ReadAt(offset, n, contents);
    }

   private:
    FailingValueSectionFs* const fs_;
    const std::unique_ptr<ReadOnlyFile> f_;
    const bool value_reads_fail_;
  };

  class Dir : public Directory {
   public:
    Dir(FailingValueSectionFs* fs, std::unique_ptr<Directory> d)
        : fs_(fs), d_(std::move(d)) {}
    const std::string& path() const override { return d_->path(); }
    Status WriteFile(const std::string& n, const Slice& data,
                     bool sync) override {
      return d_->WriteFile(n, data, sync);
    }
    Status ReadFile(const std::string& n, std::string* c) override {
      return d_->ReadFile(n, c);
    }
    Status ReadFileAt(const std::string& n, uint64_t off, size_t len,
                      std::string* c) override {
      return d_->ReadFileAt(n, off, len, c);
    }
    Status OpenFile(const std::string& n,
                    std::unique_ptr<ReadOnlyFile>* r) override {
      std::unique_ptr<ReadOnlyFile> f;
      Status s = d_->OpenFile(n, &f);
      if (s.ok()) {
        r->reset(new File(fs_, std::move(f), Slice(n).starts_with("META-")));
      }
      return s;
    }
    Status LinkFromAs(Directory* source, const std::string& n,
                      const std::string& new_name) override {
      return d_->LinkFromAs(static_cast<Dir*>(source)->d_.get(), n, new_name);
    }
    Status Unlink(const std::string& n) override { return d_->Unlink(n); }
    Status Stat(const std::string& n, KvFileInfo* i) override {
      return d_->Stat(n, i);
    }
    Status List(std::vector<std::string>* names) override {
      return d_->List(names);
    }
    Status Sync() override { return d_->Sync(); }
    Status SyncFileSystem() override { return d_->SyncFileSystem(); }

   private:
    FailingValueSectionFs* const fs_;
    const std::unique_ptr<Directory> d_;
  };
};

std::string ValueOf(int i, int version) {
  return "v" + std::to_string(version) + "-" + Key(i);
}

// Every key reads its second version.
void ExpectSecondVersions(
    const Options& options, const std::string& dbname,
    const delsm::Tuning& tuning = delsm_test::ManualCompactionOnly()) {
  DB* db = nullptr;
  Status s = delsm::Open(options, tuning, dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> owner(db);
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    ASSERT_TRUE(s.ok()) << Key(i) << " lost: " << s.ToString();
    ASSERT_EQ(ValueOf(i, 2), v) << Key(i);
  }
}

TEST(SalvageReadErrorTest, InlineValueReadErrorFailsRepairAndKeepsEverything) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options = delsm_test::NewDbOptions(1 << 20);
  {
    // Inline values (the default threshold); the second compaction writes
    // its SST into the first one's directory as META-<n>, and the first
    // one's META goes when it is retired.
    DB* db = nullptr;
    ASSERT_TRUE(
        delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &db)
            .ok());
    std::unique_ptr<DB> owner(db);
    for (int version = 1; version <= 2; version++) {
      for (int i = 0; i < kKeys; i++) {
        ASSERT_TRUE(db->Put(WriteOptions(), Key(i), ValueOf(i, version)).ok());
      }
      db->CompactRange(nullptr, nullptr);
    }
  }
  std::vector<std::string> l1 = ListDir(dbname + "/L1");
  ASSERT_EQ(1u, l1.size());
  std::vector<std::string> names = ListDir(dbname + "/L1/" + l1[0]);
  ASSERT_EQ(1u, names.size()) << "one meta file, inline values only";
  ASSERT_TRUE(Slice(names[0]).starts_with("META-")) << names[0];

  FailingValueSectionFs fs;
  Status s = RepairDBWithFileSystem(dbname, options, &fs);
  ASSERT_GT(fs.failed_reads, 0) << "no inline value read was failed";
  EXPECT_TRUE(s.IsIOError()) << "RepairDB after a read error: " << s.ToString();
  // Whatever RepairDB answered, no key may be lost: failed, it changed
  // nothing; and a repair whose reads succeed keeps every key too.
  ExpectSecondVersions(options, dbname);
  fs.fail = false;
  ASSERT_TRUE(RepairDBWithFileSystem(dbname, options, &fs).ok());
  ExpectSecondVersions(options, dbname);
}

// With values that stay put, a value lives in a home, and when the meta
// file naming it is lost RepairDB takes it back by its name. A read of it
// that fails (EIO) says nothing about the value either: RepairDB must fail,
// not leave the key out of the repaired database (and put its value in
// lost/).
TEST(SalvageReadErrorTest, HomeValueReadErrorFailsRepairAndKeepsEverything) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options = delsm_test::NewDbOptions(1 << 20);
  const delsm::Tuning tuning = delsm_test::ManualCompactionKvFiles(true);
  {
    DB* db = nullptr;
    ASSERT_TRUE(delsm::Open(options, tuning, dbname, &db).ok());
    std::unique_ptr<DB> owner(db);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), ValueOf(i, 2)).ok());
    }
    ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  }
  // The flush's meta files are lost: only the homes' names tell the keys.
  int removed = 0;
  for (const std::string& dir : ListDir(dbname + "/L0")) {
    const std::string path = dbname + "/L0/" + dir;
    for (const std::string& name : ListDir(path)) {
      ASSERT_TRUE(Slice(name).starts_with("META")) << name;
      ASSERT_EQ(0, std::remove((path + "/" + name).c_str()));
      removed++;
    }
  }
  ASSERT_GT(removed, 0);

  FaultInjectionFileSystem fs(FileSystem::Default());
  FaultSpec reads;
  reads.sticky = true;
  // Reads of the values' files, which are all in homes here.
  reads.path_contains = "/key";
  fs.Arm(FsOp::kOpen, reads);
  Status s = RepairDBWithFileSystem(dbname, options, &fs);
  ASSERT_TRUE(fs.Fired()) << "no value in a home was read";
  EXPECT_TRUE(s.IsIOError()) << "RepairDB after a read error: " << s.ToString();
  fs.Disarm();
  // Whatever it answered, a repair whose reads succeed keeps every key.
  s = RepairDBWithFileSystem(dbname, options, &fs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectSecondVersions(options, dbname, tuning);
}

}  // namespace
}  // namespace leveldb
