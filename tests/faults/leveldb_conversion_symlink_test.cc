// Converting a LevelDB database (DB::Open on a directory Debian's LevelDB
// wrote, compat/leveldb/conversion.h) follows no symbolic link out of the
// database. A link is planted, pointing into a directory outside the
// database, at each name the conversion creates, writes or clears: the
// staging directory leveldb-conversion/ (and, in a staging directory an
// earlier attempt left, its PLAN file and its staged SST directories),
// DeLSM's manifest, the temporary file CURRENT is written through, and the
// level directories the staged SSTs are moved into. Each time DB::Open
// either fails with an IOError naming the link ("a symbolic link, not
// followed") or goes on without following it; nothing outside the database
// is created, changed or removed; and the data is not lost: while CURRENT
// is still LevelDB's, Debian's LevelDB (tests/leveldb_oracle, its own
// process) reads every key of a copy, and once the links are gone DeLSM
// opens the database (converting it) with every key.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using Contents = std::map<std::string, std::string>;
using delsm_test::ListDir;
using delsm_test::TreeSnapshot;

constexpr char kStaging[] = "leveldb-conversion";
constexpr unsigned kKeys = 3300;  // written by kCommands
constexpr size_t kValueSize = 100;
// Tables on disk (a compaction of the whole range), and a WAL tail.
constexpr char kCommands[] = "fill 0 3000 100\nflush\nfill 3000 300 100\n";

bool IsLink(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "MANIFEST-000012", "000012.dbtmp": a numbered name as both engines
// spell it.
std::string Numbered(const char* prefix, uint64_t n, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%06llu%s", prefix,
                static_cast<unsigned long long>(n), suffix);
  return buf;
}

// The paths whose state differs between two TreeSnapshots, "" if none.
std::string Changed(const std::map<std::string, std::string>& a,
                    const std::map<std::string, std::string>& b) {
  std::string out;
  for (const auto& e : a) {
    auto it = b.find(e.first);
    if (it == b.end()) {
      out += " " + e.first + " removed;";
    } else if (it->second != e.second) {
      out += " " + e.first + " changed;";
    }
  }
  for (const auto& e : b) {
    if (a.count(e.first) == 0) out += " " + e.first + " added;";
  }
  return out;
}

// What kCommands leaves in the database.
Contents Expected() {
  Contents c;
  for (unsigned i = 0; i < kKeys; i++) {
    c[delsm_test::OracleFillKey(i)] =
        delsm_test::OracleFillValue(i, kValueSize);
  }
  return c;
}

class LevelDbConversionSymlinkTest : public testing::Test {
 protected:
  LevelDbConversionSymlinkTest()
      : db_(tmp_.path() + "/db"), outside_(tmp_.path() + "/outside") {}

  // The LevelDB database at db_ (not closed: the last writes are in its
  // WAL only), and outside_ holding a file, and a directory named and
  // filled as a staging directory of DeLSM's would be: what a followed
  // link would overwrite or clear.
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    const delsm_test::OracleRun made = Oracle(
        {"create", db_, "--write_buffer_size=65536", "--no_close"}, kCommands);
    ASSERT_TRUE(made.ok) << made.err;
    for (const std::string& name : ListDir(db_)) {
      uint64_t n;
      if (EndsWith(name, ".ldb") && ParseNumber(name, &n)) tables_.push_back(n);
    }
    ASSERT_FALSE(tables_.empty());
    current_ = delsm_test::ReadWholeFile(db_ + "/CURRENT");
    ASSERT_FALSE(current_.empty());

    ASSERT_EQ(0, mkdir(outside_.c_str(), 0755));
    ASSERT_TRUE(
        delsm_test::WriteWhole(outside_ + "/file", "the user's own file"));
    const std::string dir = outside_ + "/dir";
    ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
    ASSERT_TRUE(delsm_test::WriteWhole(dir + "/PLAN", "the user's PLAN"));
    ASSERT_EQ(0, mkdir((dir + "/000009.sst").c_str(), 0755));
    ASSERT_TRUE(delsm_test::WriteWhole(dir + "/000009.sst/META", "a META"));
    outside_before_ = TreeSnapshot(outside_);
  }

  static bool ParseNumber(const std::string& name, uint64_t* n) {
    char* end = nullptr;
    *n = std::strtoull(name.c_str(), &end, 10);
    return end != name.c_str();
  }

  delsm_test::OracleRun Oracle(const std::vector<std::string>& args,
                               const std::string& input = "") {
    return delsm_test::RunOracle(
        args, input, tmp_.path() + "/oracle" + std::to_string(n_++));
  }

  // Puts a link at db_/`name` to `target`.
  void PlantLink(const std::string& name, const std::string& target) {
    ASSERT_EQ(0, symlink(target.c_str(), (db_ + "/" + name).c_str())) << name;
    links_.push_back(name);
  }

  // L0 to L6, links to empty directories of the same names outside_.
  void LinkLevelDirectoriesOutside() {
    for (int level = 0; level < 7; level++) {
      const std::string name = "L" + std::to_string(level);
      ASSERT_EQ(0, mkdir((outside_ + "/" + name).c_str(), 0755));
      ASSERT_NO_FATAL_FAILURE(PlantLink(name, outside_ + "/" + name));
    }
  }

  // Links at every name prefix+number+suffix not already taken, from 1 to
  // 1000 past the highest number a name in db_ has, each to a name
  // outside_ does not hold (following one would create it).
  void PlantNumberedLinks(const char* prefix, const char* suffix) {
    uint64_t highest = 0;
    for (const std::string& name : ListDir(db_)) {
      const size_t digits = name.find_first_of("0123456789");
      if (digits != std::string::npos) {
        highest = std::max<uint64_t>(
            highest, std::strtoull(name.c_str() + digits, nullptr, 10));
      }
    }
    for (uint64_t n = 1; n <= highest + 1000; n++) {
      const std::string name = Numbered(prefix, n, suffix);
      struct stat st;
      if (lstat((db_ + "/" + name).c_str(), &st) == 0) continue;
      ASSERT_NO_FATAL_FAILURE(PlantLink(name, outside_ + "/" + name));
    }
  }

  // DB::Open, as a user opening the LevelDB database with DeLSM; closes it.
  leveldb::Status OpenAndClose() {
    leveldb::DB* raw = nullptr;
    leveldb::Status s = leveldb::DB::Open(leveldb::Options(), db_, &raw);
    delete raw;
    return s;
  }

  // `s` is OK, or refuses a link in the database directory whose name
  // holds `name` (all of it for a fixed name, a part for a numbered one).
  static void ExpectOkOrRefused(const leveldb::Status& s, const std::string& db,
                                const std::string& name) {
    if (s.ok()) return;
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    const std::string text = s.ToString();
    const size_t at = text.find(": a symbolic link, not followed");
    if (at == std::string::npos) {
      ADD_FAILURE() << "not a refusal of a link: " << text;
      return;
    }
    EXPECT_NE(std::string::npos, text.find(db + "/")) << text;
    EXPECT_NE(std::string::npos, text.rfind(name, at)) << text;
  }

  // What every planted link must leave: outside_ as it was; then, with
  // the links that are still links removed, the data: read whole by
  // LevelDB from a copy while CURRENT is still LevelDB's, and by DeLSM's
  // Open, which converts what is left to convert.
  void ExpectNothingOutsideAndDataKept(const char* after) {
    EXPECT_EQ("", Changed(outside_before_, TreeSnapshot(outside_)))
        << after << " changed what is outside the database";
    for (const std::string& name : links_) {
      const std::string path = db_ + "/" + name;
      if (IsLink(path)) ASSERT_EQ(0, unlink(path.c_str())) << path;
    }
    links_.clear();
    const Contents want = Expected();
    if (delsm_test::ReadWholeFile(db_ + "/CURRENT") == current_) {
      const std::string copy = tmp_.path() + "/leveldb-copy";
      ASSERT_EQ("", delsm_test::CopyTree(db_, copy));
      const delsm_test::OracleRun dump =
          Oracle({"dump", copy, "--paranoid_checks", "--verify_checksums"});
      ASSERT_TRUE(dump.ok) << "LevelDB no longer reads the database: "
                           << dump.err;
      Contents got;
      ASSERT_TRUE(delsm_test::ParseOracleDump(dump.out, &got)) << dump.out;
      EXPECT_TRUE(got == want)
          << "LevelDB reads " << got.size() << " entries, not the "
          << want.size() << " written";
      delsm_test::RemoveTree(copy);
    }
    leveldb::DB* raw = nullptr;
    leveldb::Status s = leveldb::DB::Open(leveldb::Options(), db_, &raw);
    ASSERT_TRUE(s.ok()) << "once the links are gone: " << s.ToString();
    std::unique_ptr<leveldb::DB> db(raw);
    Contents got;
    std::unique_ptr<leveldb::Iterator> it(
        db->NewIterator(leveldb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      got[it->key().ToString()] = it->value().ToString();
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_TRUE(got == want)
        << "DeLSM reads " << got.size() << " entries, not the " << want.size()
        << " written";
    struct stat st;
    EXPECT_NE(0, lstat((db_ + "/" + kStaging).c_str(), &st))
        << "the conversion left its staging directory";
  }

  delsm_test::TempDir tmp_{"delsm_leveldb_conversion_symlink"};
  const std::string db_;
  const std::string outside_;
  std::vector<uint64_t> tables_;  // LevelDB's tables' numbers
  std::string current_;           // LevelDB's CURRENT
  std::map<std::string, std::string> outside_before_;
  std::vector<std::string> links_;  // planted, by name under db_
  int n_ = 0;
};

// The staging directory a link: to a directory outside holding a PLAN and
// an SST directory (which the removal of an earlier attempt's staging
// would take), to a file, or to nothing (mkdir would not make it). Open
// refuses it before it stages anything; LevelDB's database is untouched.
TEST_F(LevelDbConversionSymlinkTest, LinkedStagingDirectoryRefused) {
  const std::string pristine = tmp_.path() + "/pristine";
  ASSERT_EQ("", delsm_test::CopyTree(db_, pristine));
  for (const std::string target : {"dir", "file", "nothing"}) {
    SCOPED_TRACE(target);
    ASSERT_TRUE(delsm_test::RemoveTree(db_));
    ASSERT_EQ("", delsm_test::CopyTree(pristine, db_));
    ASSERT_NO_FATAL_FAILURE(PlantLink(kStaging, outside_ + "/" + target));
    const leveldb::Status s = OpenAndClose();
    EXPECT_FALSE(s.ok()) << "Open took " << kStaging << ", a link";
    ASSERT_NO_FATAL_FAILURE(ExpectOkOrRefused(s, db_, kStaging));
    EXPECT_EQ(current_, delsm_test::ReadWholeFile(db_ + "/CURRENT"));
    ASSERT_NO_FATAL_FAILURE(ExpectNothingOutsideAndDataKept("Open"));
  }
}

// A staging directory an earlier attempt left, holding links where its
// PLAN and its staged SST directories (at LevelDB's tables' numbers, the
// ones the conversion stages) were: clearing it removes a link, or stops
// at one, and never clears what it points at.
TEST_F(LevelDbConversionSymlinkTest, LinksInLeftoverStagingNotFollowed) {
  ASSERT_EQ(0, mkdir((db_ + "/" + kStaging).c_str(), 0755));
  ASSERT_NO_FATAL_FAILURE(
      PlantLink(std::string(kStaging) + "/PLAN", outside_ + "/dir/PLAN"));
  for (uint64_t n : tables_) {
    ASSERT_NO_FATAL_FAILURE(
        PlantLink(std::string(kStaging) + "/" + Numbered("", n, ".sst"),
                  outside_ + "/dir/000009.sst"));
  }
  const leveldb::Status s = OpenAndClose();
  ASSERT_NO_FATAL_FAILURE(ExpectOkOrRefused(s, db_, kStaging));
  if (!s.ok()) EXPECT_EQ(current_, delsm_test::ReadWholeFile(db_ + "/CURRENT"));
  ASSERT_NO_FATAL_FAILURE(ExpectNothingOutsideAndDataKept("Open"));
}

// DeLSM's manifest, and the temporary file CURRENT is written through,
// made at numbers LevelDB never used: with a link at every number either
// could take, Open fails naming the link before its commit (CURRENT still
// LevelDB's), and converts once the links are gone.
TEST_F(LevelDbConversionSymlinkTest, LinkedManifestOrCurrentTempRefused) {
  const struct {
    const char* prefix;
    const char* suffix;
  } kinds[] = {{"MANIFEST-", ""}, {"", ".dbtmp"}};
  const std::string pristine = tmp_.path() + "/pristine";
  ASSERT_EQ("", delsm_test::CopyTree(db_, pristine));
  for (const auto& kind : kinds) {
    SCOPED_TRACE(std::string(kind.prefix) + kind.suffix);
    ASSERT_TRUE(delsm_test::RemoveTree(db_));
    ASSERT_EQ("", delsm_test::CopyTree(pristine, db_));
    ASSERT_NO_FATAL_FAILURE(PlantNumberedLinks(kind.prefix, kind.suffix));
    const leveldb::Status s = OpenAndClose();
    EXPECT_FALSE(s.ok()) << "Open wrote through a link";
    ASSERT_NO_FATAL_FAILURE(ExpectOkOrRefused(
        s, db_, *kind.prefix != '\0' ? kind.prefix : kind.suffix));
    EXPECT_EQ(current_, delsm_test::ReadWholeFile(db_ + "/CURRENT"));
    ASSERT_NO_FATAL_FAILURE(ExpectNothingOutsideAndDataKept("Open"));
  }
}

// The level directories the staged SSTs are moved into, links to empty
// directories outside: the moves would put the converted data outside the
// database. Open refuses them.
TEST_F(LevelDbConversionSymlinkTest, LinkedLevelDirectoriesRefused) {
  ASSERT_NO_FATAL_FAILURE(LinkLevelDirectoriesOutside());
  outside_before_ = TreeSnapshot(outside_);
  const leveldb::Status s = OpenAndClose();
  EXPECT_FALSE(s.ok()) << "Open took a level directory that is a link";
  ASSERT_NO_FATAL_FAILURE(ExpectOkOrRefused(s, db_, "/L"));
  ASSERT_NO_FATAL_FAILURE(ExpectNothingOutsideAndDataKept("Open"));
}

// The same after the commit: a conversion stopped there (CURRENT names
// DeLSM's manifest, the SSTs and PLAN still staged: a refused temporary
// file of CURRENT stops it just before, and CURRENT is then switched as
// the commit does) is finished by the next Open, which moves the staged
// SSTs into their level directories. Links there are refused before
// anything moves, and the next Open once they are gone finishes it.
TEST_F(LevelDbConversionSymlinkTest, LinkedLevelDirectoriesAfterCommitRefused) {
  ASSERT_NO_FATAL_FAILURE(PlantNumberedLinks("", ".dbtmp"));
  ASSERT_FALSE(OpenAndClose().ok());
  for (const std::string& name : links_) {
    const std::string path = db_ + "/" + name;
    if (IsLink(path)) ASSERT_EQ(0, unlink(path.c_str())) << path;
  }
  links_.clear();
  const std::string plan =
      delsm_test::ReadWholeFile(db_ + "/" + kStaging + "/PLAN");
  const size_t at = plan.find("\nmanifest ");
  ASSERT_NE(std::string::npos, at) << plan;
  const uint64_t manifest = std::strtoull(plan.c_str() + at + 10, nullptr, 10);
  ASSERT_TRUE(delsm_test::WriteWhole(
      db_ + "/CURRENT", Numbered("MANIFEST-", manifest, "") + "\n"));
  ASSERT_NO_FATAL_FAILURE(LinkLevelDirectoriesOutside());
  outside_before_ = TreeSnapshot(outside_);
  const leveldb::Status s = OpenAndClose();
  EXPECT_FALSE(s.ok()) << "Open moved staged SSTs into a link";
  ASSERT_NO_FATAL_FAILURE(ExpectOkOrRefused(s, db_, "/L"));
  ASSERT_NO_FATAL_FAILURE(ExpectNothingOutsideAndDataKept("Open"));
}

}  // namespace
