// The delsm command-line tool on a real database: its stats
// equal what the file system says (du, find, statvfs), verify finds a
// damaged KV file, a truncated one and orphans (and exits non-zero), every
// read-only command leaves every file of the database as it was, writes
// need --allow-writes, and a WAL that cannot be read fails the tool's view
// of the database (in-process, with an Env that fails reads).
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "testing/read_error_env.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"
#include "tools/db_view.h"

#ifndef DELSM_TOOL
#error "DELSM_TOOL (path of the delsm binary) must be defined"
#endif

namespace {

using delsm_test::RunResult;
using delsm_test::Shell;

std::string Tool(const std::string& args) {
  return std::string(DELSM_TOOL) + " " + args;
}

uint64_t FirstNumber(const std::string& text) {
  return std::strtoull(text.c_str(), nullptr, 10);
}

// The number after "field": inside the object of `area` in stats --json.
bool AreaField(const std::string& json, const std::string& area,
               const std::string& field, uint64_t* value) {
  size_t at = json.find("{\"name\":\"" + area + "\"");
  if (at == std::string::npos) return false;
  const size_t end = json.find('}', at);
  at = json.find("\"" + field + "\":", at);
  if (at == std::string::npos || at > end) return false;
  *value = FirstNumber(json.substr(at + field.size() + 3));
  return true;
}

bool TopField(const std::string& json, const std::string& field,
              uint64_t* value) {
  const size_t at = json.find("\"" + field + "\":");
  if (at == std::string::npos) return false;
  *value = FirstNumber(json.substr(at + field.size() + 3));
  return true;
}

class DelsmToolTest : public testing::Test {
 protected:
  // A database with entries at two levels, inline values, tombstones, and
  // writes only its WAL holds. Closed when this returns.
  void MakeDatabase() {
    ASSERT_FALSE(dir_.path().empty());
    db_ = dir_.path() + "/db";
    leveldb::Options options;
    options.create_if_missing = true;
    delsm::Tuning tuning;
    tuning.inline_threshold = 64;
    {
      leveldb::DB* raw = nullptr;
      ASSERT_TRUE(delsm::Open(options, tuning, db_, &raw).ok());
      std::unique_ptr<leveldb::DB> db(raw);
      for (int i = 0; i < 300; ++i) {
        // Keys 0..99 get 10-byte (inline) values, the rest 1000 bytes.
        const std::string value(i < 100 ? 10 : 1000, 'a' + i % 26);
        ASSERT_TRUE(db->Put({}, delsm_test::IndexKey(i), value).ok());
      }
      db->CompactRange(nullptr, nullptr);  // all of it below L0
      for (int i = 0; i < 50; ++i) {
        ASSERT_TRUE(db->Delete({}, delsm_test::IndexKey(i * 2)).ok());
      }
    }
    {
      // Reopening flushes the deletions from the WAL into L0.
      leveldb::DB* raw = nullptr;
      ASSERT_TRUE(delsm::Open(options, tuning, db_, &raw).ok());
      std::unique_ptr<leveldb::DB> db(raw);
      // Written after the flush: only the WAL holds these.
      ASSERT_TRUE(db->Put({}, "wal-only", "in the log").ok());
      ASSERT_TRUE(db->Delete({}, delsm_test::IndexKey(299)).ok());
    }
  }

  delsm_test::TempDir dir_{"delsm_tool"};
  std::string db_;
};

TEST_F(DelsmToolTest, StatsEqualWhatTheFileSystemSays) {
  MakeDatabase();
  const RunResult r = Shell(Tool("stats --json --quiet " + db_));
  ASSERT_EQ(0, r.exit_code) << r.out;
  uint64_t entries = 0, tombstones = 0, inline_values = 0, kv_files = 0;
  int levels_with_ssts = 0;
  for (int level = 0; level < 7; ++level) {
    const std::string area = "L" + std::to_string(level);
    const std::string dir = db_ + "/" + area;
    // Each figure against the command that counts the same thing.
    const std::pair<const char*, std::string> checks[] = {
        {"apparent_bytes", "du -s -b " + dir},
        {"allocated_bytes", "du -s -B1 " + dir},
        {"inodes", "du -s --inodes " + dir},
        {"extra_link_files",
         "find " + dir +
             " -type f -links +1 -printf '%i\\n' | sort -u | wc -l"},
        {"sst_dirs",
         "find " + dir +
             " -mindepth 1 -maxdepth 1 -type d -name '*.sst' | wc -l"}};
    uint64_t v = 0;
    for (const auto& c : checks) {
      ASSERT_TRUE(AreaField(r.out, area, c.first, &v)) << c.first << r.out;
      EXPECT_EQ(FirstNumber(Shell(c.second).out), v) << area << " " << c.first;
    }
    ASSERT_TRUE(AreaField(r.out, area, "ssts", &v));
    if (v > 0) levels_with_ssts++;
    uint64_t e, t, in, kv;
    ASSERT_TRUE(AreaField(r.out, area, "entries", &e));
    ASSERT_TRUE(AreaField(r.out, area, "tombstones", &t));
    ASSERT_TRUE(AreaField(r.out, area, "inline_values", &in));
    ASSERT_TRUE(AreaField(r.out, area, "kv_files", &kv));
    EXPECT_EQ(e, t + in + kv) << area;
    entries += e, tombstones += t, inline_values += in, kv_files += kv;
    // Each value in a KV file is one file of the level (with the meta
    // files and directories besides).
    uint64_t files =
        FirstNumber(Shell("find " + dir + " -type f -name '*@*' | wc -l").out);
    EXPECT_EQ(files, kv) << area;
  }
  // What was written: 300 puts (100 inline), then 50 deletions flushed; the
  // WAL's last two writes are in no SST.
  EXPECT_EQ(350u, entries);
  EXPECT_EQ(50u, tombstones);
  EXPECT_EQ(100u, inline_values);
  EXPECT_EQ(200u, kv_files);
  EXPECT_EQ(2, levels_with_ssts);
  uint64_t wal_files = 0;
  ASSERT_TRUE(TopField(r.out, "wal_files", &wal_files));
  EXPECT_EQ(1u, wal_files);

  struct statvfs vfs;
  ASSERT_EQ(0, statvfs(db_.c_str(), &vfs));
  uint64_t v = 0;
  ASSERT_TRUE(TopField(r.out, "total_bytes", &v));
  EXPECT_EQ(static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize, v);
  ASSERT_TRUE(TopField(r.out, "total_inodes", &v));
  EXPECT_EQ(static_cast<uint64_t>(vfs.f_files), v);
  // Free space moves with every other process on this file system; it must
  // be the file system's figure, not a made-up one: within 1% of it.
  ASSERT_TRUE(TopField(r.out, "free_inodes", &v));
  EXPECT_NEAR(static_cast<double>(vfs.f_favail), static_cast<double>(v),
              vfs.f_files / 100.0);
  ASSERT_TRUE(TopField(r.out, "free_bytes", &v));
  EXPECT_NEAR(static_cast<double>(vfs.f_bavail) * vfs.f_frsize,
              static_cast<double>(v), vfs.f_blocks * vfs.f_frsize / 100.0);
  // The inode headroom, at the database's allocated bytes per inode.
  uint64_t allocated = 0, inodes = 0, per_value = 0, until_space = 0;
  ASSERT_TRUE(AreaField(r.out, "total", "allocated_bytes", &allocated));
  ASSERT_TRUE(AreaField(r.out, "total", "inodes", &inodes));
  ASSERT_TRUE(TopField(r.out, "bytes_per_value", &per_value)) << r.out;
  ASSERT_GT(inodes, 0u);
  EXPECT_EQ((allocated + inodes - 1) / inodes, per_value);
  ASSERT_TRUE(TopField(r.out, "values_until_space", &until_space));
  EXPECT_NEAR(static_cast<double>(vfs.f_bavail) * vfs.f_frsize / per_value,
              static_cast<double>(until_space),
              vfs.f_blocks * vfs.f_frsize / 100.0 / per_value);
  EXPECT_NE(std::string::npos,
            Shell(Tool("stats --quiet " + db_)).out.find("inode headroom: "));
}

TEST_F(DelsmToolTest, ReadOnlyCommandsChangeNothing) {
  MakeDatabase();
  const auto before = delsm_test::TreeSnapshot(db_);
  const std::string manifest = Shell("cd " + db_ + " && ls MANIFEST-*").out;
  const std::string commands[] = {
      "stats " + db_,
      "stats --json " + db_,
      "verify " + db_,
      "verify --json " + db_,
      "get " + db_ + " wal-only",
      "scan " + db_,
      "scan --reverse --hex --json " + db_,
      "scan --prefix k0000 --limit 3 " + db_,
      "dump " + db_ + "/" + manifest.substr(0, manifest.size() - 1),
      "put " + db_ + " k v",  // refused: no --allow-writes
      "delete " + db_ + " wal-only",
  };
  for (const std::string& c : commands) {
    Shell(Tool(c) + " >/dev/null 2>&1");
    EXPECT_EQ(before, delsm_test::TreeSnapshot(db_))
        << "delsm " << c << " changed the DB";
  }
  EXPECT_EQ(2, Shell(Tool("put " + db_ + " k v")).exit_code);
}

TEST_F(DelsmToolTest, GetAndScanShowWhatTheLibraryShows) {
  MakeDatabase();
  // The WAL-only writes are visible; deleted keys are not.
  RunResult r = Shell(Tool("get " + db_ + " wal-only"));
  EXPECT_EQ(0, r.exit_code);
  EXPECT_EQ("in the log\n", r.out);
  EXPECT_EQ(1, Shell(Tool("get " + db_ + " " + delsm_test::IndexKey(299) +
                          " 2>/dev/null"))
                   .exit_code);
  EXPECT_EQ(1, Shell(Tool("get " + db_ + " " + delsm_test::IndexKey(0) +
                          " 2>/dev/null"))
                   .exit_code);

  std::string expected;
  std::vector<std::string> keys;
  {
    leveldb::DB* raw = nullptr;
    ASSERT_TRUE(leveldb::DB::Open({}, db_, &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator({}));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      keys.push_back(it->key().ToString());
      expected += it->key().ToString() + " => " + it->value().ToString() + "\n";
    }
  }
  ASSERT_EQ(300u - 50 - 1 + 1, keys.size());
  EXPECT_EQ(expected, Shell(Tool("scan " + db_)).out);

  // Range, prefix, reverse, limit.
  std::string want;
  for (size_t i = 10; i < 20; ++i) want += keys[i] + "\n";
  EXPECT_EQ(want, Shell(Tool("scan --keys-only --from " + keys[10] + " --to " +
                             keys[20] + " " + db_))
                      .out);
  want.clear();
  for (size_t i = 19; i >= 17; --i) want += keys[i] + "\n";
  EXPECT_EQ(want, Shell(Tool("scan --keys-only --reverse --limit 3 --to " +
                             keys[20] + " " + db_))
                      .out);
  EXPECT_EQ("wal-only\n",
            Shell(Tool("scan --keys-only --prefix wal " + db_)).out);
  EXPECT_EQ("77616c2d6f6e6c79\n",
            Shell(Tool("scan --keys-only --hex --prefix 77616c " + db_)).out);
}

TEST_F(DelsmToolTest, WritesNeedTheFlagAndThenWork) {
  MakeDatabase();
  EXPECT_EQ(
      2, Shell(Tool("put " + db_ + " newkey newvalue 2>/dev/null")).exit_code);
  EXPECT_EQ(1, Shell(Tool("get " + db_ + " newkey 2>/dev/null")).exit_code);
  EXPECT_EQ(
      0,
      Shell(Tool("put --allow-writes " + db_ + " newkey newvalue")).exit_code);
  EXPECT_EQ("newvalue\n", Shell(Tool("get " + db_ + " newkey")).out);
  EXPECT_EQ(0,
            Shell(Tool("delete --allow-writes " + db_ + " newkey")).exit_code);
  EXPECT_EQ(1, Shell(Tool("get " + db_ + " newkey 2>/dev/null")).exit_code);
  // No database is ever created by a write.
  EXPECT_EQ(2, Shell(Tool("put --allow-writes " + dir_.path() +
                          "/nodb k v 2>/dev/null"))
                   .exit_code);
  EXPECT_NE(0, access((dir_.path() + "/nodb").c_str(), F_OK));
}

TEST_F(DelsmToolTest, RefusesADatabaseInUse) {
  MakeDatabase();
  leveldb::DB* raw = nullptr;
  ASSERT_TRUE(leveldb::DB::Open({}, db_, &raw).ok());
  std::unique_ptr<leveldb::DB> db(raw);
  EXPECT_EQ(2, Shell(Tool("stats " + db_ + " 2>/dev/null")).exit_code);
}

TEST_F(DelsmToolTest, VerifyFindsDamageAndOrphans) {
  MakeDatabase();
  RunResult r = Shell(Tool("verify --json " + db_));
  ASSERT_EQ(0, r.exit_code) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("\"ok\":true"));

  // Two KV files: one with a byte flipped (same length), one cut short.
  std::vector<std::string> kv;
  std::istringstream list(
      Shell("find " + db_ + " -type f -name '*@*' | sort").out);
  for (std::string line; std::getline(list, line);) kv.push_back(line);
  ASSERT_GE(kv.size(), 2u);
  {
    std::fstream f(kv[0], std::ios::in | std::ios::out | std::ios::binary);
    char c;
    f.seekg(5);
    f.get(c);
    f.seekp(5);
    f.put(static_cast<char>(c ^ 1));
  }
  ASSERT_EQ(0, truncate(kv[1].c_str(), 10));
  // An orphan file in a live SST directory and an orphan SST directory.
  const std::string sst_dir = kv[0].substr(0, kv[0].rfind('/'));
  const std::string orphan_file = sst_dir + "/stray@00000000000001";
  ASSERT_TRUE(std::ofstream(orphan_file) << "x");
  const std::string orphan_dir = db_ + "/L0/999999.sst";
  ASSERT_EQ(0, mkdir(orphan_dir.c_str(), 0755));

  r = Shell(Tool("verify --json " + db_));
  EXPECT_EQ(1, r.exit_code) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("\"ok\":false"));
  auto has = [&](const std::string& kind, const std::string& path) {
    return r.out.find("{\"kind\":\"" + kind + "\",\"path\":\"" + path + "\"") !=
           std::string::npos;
  };
  EXPECT_TRUE(has("checksum", kv[0])) << r.out;
  EXPECT_TRUE(has("length", kv[1])) << r.out;
  // The orphans are leftovers the next Open removes, listed apart.
  EXPECT_TRUE(has("leftover", orphan_file)) << r.out;
  EXPECT_TRUE(has("leftover", orphan_dir)) << r.out;
  // Nothing else was reported.
  size_t reported = 0;
  for (size_t at = 0; (at = r.out.find("{\"kind\":", at)) != std::string::npos;
       ++at) {
    reported++;
  }
  EXPECT_EQ(4u, reported) << r.out;
  // The table form reports the same, and fails the same way.
  r = Shell(Tool("verify " + db_));
  EXPECT_EQ(1, r.exit_code);
  EXPECT_NE(std::string::npos, r.out.find("2 problem(s)")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("2 leftover(s)")) << r.out;
}

// A WAL that cannot be read (EIO) fails the view, as it fails DB::Open. It
// is not a damaged record, which verify would report as damage, nor the
// end of the WALs, which would leave get and scan without the WAL's
// writes; the commands fail on the view's error instead (exit 2).
TEST_F(DelsmToolTest, WalReadErrorFailsTheViewAndIsNotDamage) {
  MakeDatabase();
  leveldb::ReadErrorEnv env(leveldb::Env::Default());
  std::unique_ptr<leveldb::DbView> view;
  // Every read succeeds: the view has the WAL's writes.
  leveldb::Status s = leveldb::DbView::Open(db_, &view, &env);
  ASSERT_TRUE(s.ok()) << s.ToString();
  {
    std::unique_ptr<leveldb::Iterator> it(view->NewIterator(true));
    it->Seek("wal-only");
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ("wal-only", it->key().ToString());
    EXPECT_EQ("in the log", it->value().ToString());
  }
  EXPECT_EQ(0u, view->wal_records_skipped());
  view.reset();

  env.set_failing_reads(".log");
  s = leveldb::DbView::Open(db_, &view, &env);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("Input/output error"))
      << s.ToString();
  EXPECT_GT(env.failed_reads(), 0);
  EXPECT_TRUE(view == nullptr) << "the view opened without the WAL";
}

}  // namespace
