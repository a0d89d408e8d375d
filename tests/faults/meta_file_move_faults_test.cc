// Moving an SST down by a second name of its meta file (DBImpl::LinkMove)
// under readers and failures, on a real file system:
//  * an iterator and a snapshot taken before the move (the iterator part
//    way through its scan) still read every entry after the move and the
//    removal pass that follows it, and the old name goes once they are
//    released;
//  * a failure of any call that makes the new SST directory (its mkdir,
//    the opens of the old and the new directory, the link, making them
//    durable), out of descriptors, an I/O error or a full disk, fails that
//    move: nothing the database holds is deleted, every key reads, no
//    second name is left, and a later move succeeds (in the same session
//    after running out of descriptors, which is retried; after a reopen
//    otherwise).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_file_system.h"
#include "tests/shared_directories_db.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::ListDir;
namespace shared_dirs = delsm_test::shared_dirs;

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return v.empty() ? 0 : std::stoull(v);
}

// Every meta file under the level directories, by path, with its inode.
std::map<std::string, ino_t> MetaFiles(const std::string& dbname) {
  std::map<std::string, ino_t> out;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = dbname + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(ldir)) {
      for (const std::string& name : ListDir(ldir + "/" + d)) {
        if (name.rfind("META", 0) != 0) continue;
        const std::string path = ldir + "/" + d + "/" + name;
        struct stat st;
        if (stat(path.c_str(), &st) == 0) out[path] = st.st_ino;
      }
    }
  }
  return out;
}

// "" if no two meta files of `dbname` are one file, else the pair.
std::string SecondName(const std::string& dbname) {
  std::map<ino_t, std::string> seen;
  for (const auto& m : MetaFiles(dbname)) {
    auto it = seen.emplace(m.second, m.first);
    if (!it.second) return m.first + " is " + it.first->second;
  }
  return "";
}

// The keys the shared-directories database holds, with their values.
std::map<std::string, std::string> Model() {
  std::map<std::string, std::string> model;
  for (int i = 0; i < shared_dirs::kKeys; i++) {
    if (!shared_dirs::Deleted(i)) {
      model[delsm_test::Key(i)] = shared_dirs::Value(i);
    }
  }
  return model;
}

class MetaFileMoveFaultsTest : public testing::Test {
 protected:
  MetaFileMoveFaultsTest() : dbname_(tmp_.path() + "/db") {}

  void SetUp() override { ASSERT_EQ("", shared_dirs::Build(dbname_)); }
  void TearDown() override { db_.reset(); }

  Status Open() {
    db_.reset();
    DB* raw = nullptr;
    Status s =
        OpenWithFileSystem(shared_dirs::DbOptions(),
                           shared_dirs::MovingTuning(), dbname_, &fs_, &raw);
    db_.reset(raw);
    return s;
  }
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
  FaultInjectionFileSystem fs_{FileSystem::Default()};
  std::unique_ptr<DB> db_;
};

// A gate a background call waits at until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> l(mu_);
    reached_ = true;
    cv_.notify_all();
    cv_.wait(l, [this] { return open_; });
  }
  void AwaitReached() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return reached_; });
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool reached_ = false;
  bool open_ = false;
};

TEST_F(MetaFileMoveFaultsTest, IteratorAndSnapshotFromBeforeTheMoveReadAll) {
  // The first move's open of its new directory waits at the gate (then
  // fails, out of descriptors: the move is retried) while the reader is
  // set up.
  Gate gate;
  FaultSpec spec;
  spec.err = EMFILE;
  spec.path_contains = "/L2/";
  spec.before_failing = [&gate] { gate.Wait(); };
  fs_.Arm(FsOp::kOpen, spec);
  ASSERT_OK(Open());
  gate.AwaitReached();
  ASSERT_EQ(0u, Property(db_.get(), "delsm.meta-file-moves"));

  const std::map<std::string, std::string> model = Model();
  const Snapshot* snapshot = db_->GetSnapshot();
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  // Part way: the first SST open, the later ones not yet.
  auto m = model.begin();
  it->SeekToFirst();
  for (int i = 0; i < 3; i++, ++m) {
    ASSERT_TRUE(it->Valid()) << it->status().ToString();
    ASSERT_EQ(m->first, it->key().ToString());
    ASSERT_EQ(m->second, it->value().ToString());
    it->Next();
  }

  gate.Open();
  ASSERT_OK(impl()->TEST_WaitForBackgroundWork());
  ASSERT_GT(Property(db_.get(), "delsm.meta-file-moves"), 0u);
  // The removal pass ran after each move; the old names are held.
  for (; m != model.end(); ++m, it->Next()) {
    ASSERT_TRUE(it->Valid())
        << "missing " << m->first << ": " << it->status().ToString();
    ASSERT_EQ(m->first, it->key().ToString());
    ASSERT_EQ(m->second, it->value().ToString()) << m->first;
  }
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
  // Backwards, and by snapshot, over the old version still.
  auto r = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
    ASSERT_TRUE(r != model.rend());
    ASSERT_EQ(r->first, it->key().ToString());
    ASSERT_EQ(r->second, it->value().ToString());
  }
  ASSERT_OK(it->status());
  EXPECT_TRUE(r == model.rend());
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  EXPECT_EQ("", shared_dirs::CheckKeys(db_.get()));
  for (int i = 0; i < shared_dirs::kKeys; i++) {
    std::string v;
    Status s = db_->Get(at_snapshot, delsm_test::Key(i), &v);
    if (shared_dirs::Deleted(i)) {
      EXPECT_TRUE(s.IsNotFound()) << delsm_test::Key(i) << ": " << s.ToString();
    } else {
      ASSERT_OK(s);
      EXPECT_EQ(shared_dirs::Value(i), v);
    }
  }
  // Held: some moved meta file still has its old name.
  EXPECT_NE("", SecondName(dbname_));

  // Released, the next removal pass (after a flush) removes the old names.
  it.reset();
  db_->ReleaseSnapshot(snapshot);
  ASSERT_OK(db_->Put(WriteOptions(), "zz", "v"));
  ASSERT_OK(impl()->TEST_FlushMemTable());
  ASSERT_OK(impl()->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", SecondName(dbname_));
  EXPECT_EQ("", shared_dirs::CheckKeys(db_.get()));
  ASSERT_OK(Open());
  EXPECT_EQ("", shared_dirs::CheckKeys(db_.get()));
}

struct MoveFault {
  const char* name;
  FsOp op;
  uint64_t nth;
  const char* path_contains;
};

// The calls LinkMove makes, in order, for the first move (L2 is empty
// before it): the new directory's mkdir, the open of the input's
// directory (or the table cache's open of the input's meta file, the
// first open under L1 after the Open), the open of the new directory,
// the link, the open to make it durable, the syncfs.
const MoveFault kMoveFaults[] = {
    {"Mkdir", FsOp::kMkdir, 1, "/L2/"},
    {"OpenInput", FsOp::kOpen, 1, "/L1/"},
    {"OpenNewDir", FsOp::kOpen, 1, "/L2/"},
    {"Link", FsOp::kLink, 1, "/L2/"},
    {"OpenForSync", FsOp::kOpen, 2, "/L2/"},
    {"Syncfs", FsOp::kSyncfs, 1, "/L2/"},
};

struct FaultCase {
  MoveFault fault;
  int err;
  bool sticky;
};

// Out of descriptors is a failure of the calls that open one; a full disk
// stays full (sticky) for the calls that allocate (mkdir, link, and the
// writes a syncfs flushes).

std::string CaseName(const testing::TestParamInfo<FaultCase>& info) {
  const FaultCase& c = info.param;
  std::string err = c.err == EMFILE ? "EMFILE"
                    : c.err == EIO  ? "EIO"
                                    : "ENOSPC";
  return std::string(c.fault.name) + "_" + err + (c.sticky ? "_Sticky" : "");
}

std::vector<FaultCase> AllCases() {
  std::vector<FaultCase> cases;
  for (const MoveFault& f : kMoveFaults) {
    const bool opens = f.op == FsOp::kOpen;
    for (int err : {EMFILE, EIO, ENOSPC}) {
      if (err == EMFILE && !opens) continue;
      cases.push_back({f, err, false});
    }
    if (!opens) cases.push_back({f, ENOSPC, true});
  }
  return cases;
}

class MoveFaultTest : public MetaFileMoveFaultsTest,
                      public testing::WithParamInterface<FaultCase> {};

TEST_P(MoveFaultTest, FailedMoveDeletesNothingAndALaterOneSucceeds) {
  const FaultCase& c = GetParam();
  const std::map<std::string, ino_t> before = MetaFiles(dbname_);
  FaultSpec spec;
  spec.nth = c.fault.nth;
  spec.err = c.err;
  spec.sticky = c.sticky;
  spec.path_contains = c.fault.path_contains;
  fs_.Arm(c.fault.op, spec);
  ASSERT_OK(Open());
  Status s = impl()->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(fs_.Fired()) << "the fault was not met";
  if (c.err == EMFILE && !c.sticky) {
    // Retried: the moves go on.
    ASSERT_OK(s);
    EXPECT_GT(Property(db_.get(), "delsm.meta-file-moves"), 0u);
  } else {
    EXPECT_FALSE(s.ok()) << "first failure: " << fs_.FirstFailure();
    // Nothing the database holds was deleted: every meta file is still
    // there under its name.
    const std::map<std::string, ino_t> now = MetaFiles(dbname_);
    for (const auto& m : before) {
      auto found = now.find(m.first);
      EXPECT_TRUE(found != now.end()) << m.first << " was removed";
    }
  }
  EXPECT_EQ("", shared_dirs::CheckKeys(db_.get()));

  // Reopened without the fault: the moves succeed.
  db_.reset();
  fs_.Disarm();
  ASSERT_OK(Open());
  ASSERT_OK(impl()->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", shared_dirs::CheckKeys(db_.get()));
  if (c.err != EMFILE || c.sticky) {
    EXPECT_GT(Property(db_.get(), "delsm.meta-file-moves"), 0u);
  }
  EXPECT_EQ("", SecondName(dbname_));
  db_.reset();
  Status r = RepairDB(dbname_, shared_dirs::DbOptions());
  ASSERT_OK(r);
  ASSERT_OK(Open());
  EXPECT_EQ("", shared_dirs::CheckKeys(db_.get()));
}

INSTANTIATE_TEST_SUITE_P(Calls, MoveFaultTest, testing::ValuesIn(AllCases()),
                         CaseName);

}  // namespace
}  // namespace leveldb
