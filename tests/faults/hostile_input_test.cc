// Hostile input: keys that look like paths escaping the DB directory, keys
// holding NUL, overlong keys and keys equal under case folding; a DB path
// that names a regular file; a read-only DB directory (by chmod, or by
// injected EACCES where permissions are not enforced, as for root) and a
// read-only file system (EROFS injected); a file system that
// runs out of space or inodes (ENOSPC injected) while flushing. The
// promises checked: every key keeps its own value through flush,
// compaction and reopen; nothing is created outside the DB directory;
// errors come back as non-OK statuses naming the cause; no acknowledged
// write is lost.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::ListDir;
using delsm_test::TempDir;

Options DbOptions() { return delsm_test::NewDbOptions(64 << 10); }

delsm::Tuning SmallTuning() {
  delsm::Tuning t;
  // Pure mode: every value a KV file, so every hostile key is a file name
  // and every value needs an inode.
  t.inline_threshold = 0;
  t.l0_compaction_entries = 200;
  t.l0_compaction_dirs = 2;
  t.sst_entries = 32;
  t.l1_entries = 200;
  return t;
}

// Climbs from any directory less than 32 levels deep to the root.
std::string UpToRoot() {
  std::string up;
  for (int i = 0; i < 32; i++) up += "../";
  return up;
}

// Keys chosen to break a naive key-to-file-name mapping. The ones that would
// escape the database by a relative or an absolute path point into
// `own_dir` (the test's own directory, absolute), so the test looks for
// escapes there and not in a directory other tests and users share.
std::vector<std::string> HostileKeys(const std::string& own_dir) {
  std::vector<std::string> keys = {
      "../x",
      "../../etc/passwd",
      UpToRoot() + own_dir.substr(1) + "/delsm_hostile_escape",
      own_dir + "/abs/path",
      "/abs/path",
      "/",
      "a/../../b",
      "./",
      ".",
      "..",
      "x/",
      "%2F..%2F",
      "%2f..%2fx",
      "%",
      "%%",
      "@",
      "k@00000000000001",
      "META",
      "LONGKEYS",
      "CURRENT",
      "LOCK",
      "ABC",
      "abc",
      "Abc",
      "\xC3\x84",   // "Ä" in UTF-8
      "\xC3\xA4",   // "ä" in UTF-8
      "A\xCC\x88",  // "Ä" decomposed
      std::string("nul\0inside", 10),
      std::string("\0", 1),
      std::string("\0\0", 2),
      std::string("..\0/..", 6),
      "tab\tnew\nline\r",
      "\xFF\xFE\x80",
      std::string(255, 'L'),
      std::string(256, 'L'),
      std::string(300, '/'),
      std::string(70000, 'x'),
      std::string(70000, 'x') + "1",
      std::string(70000, 'x') + "2",
      std::string(70000, '/') + "..",
  };
  // Long keys whose escaped forms share a long prefix: a name built from a
  // truncated escaped key would collide.
  for (int i = 0; i < 4; i++) {
    keys.push_back(std::string(1000, '.') + "/" + std::to_string(i));
  }
  return keys;
}

std::string ValueFor(const std::string& key, int round) {
  // The value names the key's length and a checksum-like mix of its bytes,
  // so two keys never share a value by accident.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "r%d/len%zu/%016llx/", round, key.size(),
                static_cast<unsigned long long>(h));
  return std::string(buf) + std::string(100 + key.size() % 50, 'v');
}

std::string Printable(const std::string& key) {
  std::string out;
  for (size_t i = 0; i < key.size() && i < 60; i++) {
    unsigned char c = key[i];
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      out += buf;
    }
  }
  if (key.size() > 60) out += "...(" + std::to_string(key.size()) + ")";
  return out;
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// Every name anywhere under `root`, as paths relative to it.
void WalkTree(const std::string& root, const std::string& rel,
              std::vector<std::string>* out) {
  for (const std::string& name : ListDir(root + "/" + rel)) {
    std::string child = rel.empty() ? name : rel + "/" + name;
    out->push_back(child);
    struct stat st;
    if (lstat((root + "/" + child).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      WalkTree(root, child, out);
    }
  }
}

// Checks that `db` holds exactly `model`, by point lookups and by a scan.
void ExpectContents(DB* db, const std::map<std::string, std::string>& model,
                    const std::string& what) {
  for (const auto& kv : model) {
    std::string v;
    Status s = db->Get(ReadOptions(), kv.first, &v);
    ASSERT_TRUE(s.ok()) << what << ": " << Printable(kv.first) << ": "
                        << s.ToString();
    EXPECT_EQ(kv.second, v) << what << ": " << Printable(kv.first);
  }
  Iterator* it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(model.end(), m)
        << what << ": extra key " << Printable(it->key().ToString());
    ASSERT_EQ(m->first, it->key().ToString()) << what;
    ASSERT_EQ(m->second, it->value().ToString()) << what;
  }
  EXPECT_EQ(model.end(), m) << what << ": scan ended early";
  EXPECT_TRUE(it->status().ok()) << what << ": " << it->status().ToString();
  delete it;
}

TEST(HostileInputTest, PathLikeKeysStayInsideTheDbAndKeepTheirValues) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  const std::string escape_probe = tmp.path() + "/delsm_hostile_escape";
  struct stat passwd_before;
  bool have_passwd = stat("/etc/passwd", &passwd_before) == 0;

  const std::vector<std::string> keys = HostileKeys(tmp.path());
  std::map<std::string, std::string> model;
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();

  // Round 0: put everything, flush; round 1: overwrite half, delete a
  // quarter, flush; then compact everything; then plenty of filler keys so
  // automatic compactions move the hostile keys through levels too.
  for (const std::string& k : keys) {
    ASSERT_TRUE(db->Put(WriteOptions(), k, ValueFor(k, 0)).ok());
    model[k] = ValueFor(k, 0);
  }
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  ExpectContents(db, model, "after first flush");
  for (size_t i = 0; i < keys.size(); i++) {
    const std::string& k = keys[i];
    if (i % 4 == 1) {
      ASSERT_TRUE(db->Delete(WriteOptions(), k).ok());
      model.erase(k);
    } else if (i % 2 == 0) {
      ASSERT_TRUE(db->Put(WriteOptions(), k, ValueFor(k, 1)).ok());
      model[k] = ValueFor(k, 1);
    }
  }
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  ExpectContents(db, model, "after second flush");
  db->CompactRange(nullptr, nullptr);
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
  ExpectContents(db, model, "after CompactRange");
  for (int i = 0; i < 600; i++) {
    char key[32];
    std::snprintf(key, sizeof(key), "filler%05d", i);
    ASSERT_TRUE(db->Put(WriteOptions(), key, ValueFor(key, 2)).ok());
    model[key] = ValueFor(key, 2);
  }
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  Slice begin("..");
  Slice end("abd");
  db->CompactRange(&begin, &end);
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
  ExpectContents(db, model, "after filler and ranged compaction");
  delete db;

  db = nullptr;
  s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectContents(db, model, "after reopen");
  delete db;

  // Nothing outside the DB directory: the escaping keys point into tmp.
  std::vector<std::string> top = ListDir(tmp.path());
  ASSERT_EQ(1u, top.size());
  EXPECT_EQ("db", top[0]);
  EXPECT_FALSE(PathExists(escape_probe));
  EXPECT_FALSE(PathExists(tmp.path() + "/abs"));
  if (have_passwd) {
    struct stat passwd_after;
    ASSERT_EQ(0, stat("/etc/passwd", &passwd_after));
    EXPECT_EQ(passwd_before.st_ino, passwd_after.st_ino);
    EXPECT_EQ(passwd_before.st_size, passwd_after.st_size);
    EXPECT_EQ(passwd_before.st_mtim.tv_sec, passwd_after.st_mtim.tv_sec);
    EXPECT_EQ(passwd_before.st_mtim.tv_nsec, passwd_after.st_mtim.tv_nsec);
  }
  // Inside the DB directory, no path component is a fragment of a key: the
  // tree is <db>/<file> or <db>/L<n>/<sst dir>/<file>, nothing deeper, and
  // no name the keys spell out appears at any level.
  std::vector<std::string> tree;
  WalkTree(dbname, "", &tree);
  for (const std::string& rel : tree) {
    size_t depth = 0;
    for (char c : rel) depth += (c == '/');
    EXPECT_LE(depth, 2u) << "unexpected nesting: " << Printable(rel);
    std::string leaf = rel.substr(
        rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/') + 1);
    for (const char* bad : {"x", "b", "a", "etc", "passwd", "abs", "path",
                            "tmp", "delsm_hostile_escape", "..", "."}) {
      EXPECT_NE(std::string(bad), leaf) << "path named by a key: " << rel;
    }
  }
}

TEST(HostileInputTest, DbPathThatIsARegularFileIsRefused) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string path = tmp.path() + "/plainfile";
  const std::string contents = "not a database\n";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(nullptr, f);
  ASSERT_EQ(contents.size(),
            std::fwrite(contents.data(), 1, contents.size(), f));
  ASSERT_EQ(0, std::fclose(f));

  for (bool create : {true, false}) {
    Options o = DbOptions();
    o.create_if_missing = create;
    DB* db = nullptr;
    Status s = delsm::Open(o, SmallTuning(), path, &db);
    EXPECT_FALSE(s.ok()) << "create_if_missing=" << create;
    EXPECT_EQ(nullptr, db);
    delete db;
  }
  // The file is untouched and nothing was created beside it.
  struct stat st;
  ASSERT_EQ(0, stat(path.c_str(), &st));
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(static_cast<off_t>(contents.size()), st.st_size);
  std::vector<std::string> names = ListDir(tmp.path());
  ASSERT_EQ(1u, names.size());
  EXPECT_EQ("plainfile", names[0]);

  // A path below a regular file cannot be created either.
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), SmallTuning(), path + "/db", &db);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(nullptr, db);
  delete db;
}

// Creates a database of 300 flushed keys at `dbname`; returns its contents.
std::map<std::string, std::string> MakeFlushedDb(const std::string& dbname) {
  std::map<std::string, std::string> model;
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return model;
  for (int i = 0; i < 300; i++) {
    std::string k = "ro" + std::to_string(i);
    EXPECT_TRUE(db->Put(WriteOptions(), k, ValueFor(k, 0)).ok());
    model[k] = ValueFor(k, 0);
  }
  EXPECT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  delete db;
  return model;
}

// A database that cannot be changed (`open` opens it so): the open fails,
// or it opens with every key and a write or flush fails, naming `err`;
// either way, nothing is acknowledged that is not kept.
void ExpectNoWriteAcknowledged(const std::function<Status(DB**)>& open,
                               const std::map<std::string, std::string>& model,
                               int err) {
  DB* db = nullptr;
  Status s = open(&db);
  if (s.ok()) {
    ExpectContents(db, model, "opened read-only");
    Status w = db->Put(WriteOptions(), "new", "value");
    if (w.ok()) w = static_cast<DBImpl*>(db)->TEST_FlushMemTable();
    EXPECT_FALSE(w.ok()) << "write into a read-only directory acknowledged";
    s = w;
    delete db;
  } else {
    EXPECT_EQ(nullptr, db);
  }
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(std::strerror(err)))
      << "status does not name the cause: " << s.ToString();
}

void ExpectIntact(const std::string& dbname,
                  const std::map<std::string, std::string>& model) {
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectContents(db, model, "after read-only attempt");
  // Writable again.
  EXPECT_TRUE(db->Put(WriteOptions(), "new", "value").ok());
  EXPECT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  delete db;
}

// Injects `err` into every call that would change the database, the WAL,
// manifest and CURRENT side and the SST directories alike, from the first
// on, as a directory without write permission (EACCES) or a file system
// mounted read-only (EROFS) fails them; reads pass.
void ExpectReadOnlyByInjection(const std::string& tmp, int err) {
  ASSERT_TRUE(mkdir(tmp.c_str(), 0755) == 0 || errno == EEXIST) << tmp;
  const std::string dbname = tmp + "/db";
  std::map<std::string, std::string> model = MakeFlushedDb(dbname);
  FaultInjectionFileSystem fs(FileSystem::Default());
  FaultInjectionEnv env(Env::Default(), tmp + "/env_shadow");
  FaultSpec spec;
  spec.nth = 1;
  spec.err = err;
  spec.sticky = true;
  env.ArmKinds(FaultPlan<EnvOp>::Bit(EnvOp::kAppend) |
                   FaultPlan<EnvOp>::Bit(EnvOp::kFlush) |
                   FaultPlan<EnvOp>::Bit(EnvOp::kSync) |
                   FaultPlan<EnvOp>::Bit(EnvOp::kRename) |
                   FaultPlan<EnvOp>::Bit(EnvOp::kRemove),
               spec);
  uint32_t kinds = 0;
  for (FsOp op : {FsOp::kWrite, FsOp::kFsync, FsOp::kSyncfs, FsOp::kLink,
                  FsOp::kUnlink, FsOp::kRename, FsOp::kMkdir, FsOp::kRmdir}) {
    kinds |= FaultPlan<FsOp>::Bit(op);
  }
  fs.ArmKinds(kinds, spec);
  Options options = DbOptions();
  options.env = &env;
  ExpectNoWriteAcknowledged(
      [&](DB** db) {
        return OpenWithFileSystem(options, SmallTuning(), dbname, &fs, db);
      },
      model, err);
  EXPECT_TRUE(env.Fired() || fs.Fired());
  ExpectIntact(dbname, model);
}

TEST(HostileInputTest, ReadOnlyDbDirectoryIsReportedAndDataSurvives) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  std::map<std::string, std::string> model = MakeFlushedDb(dbname);
  ASSERT_EQ(0, chmod(dbname.c_str(), 0555));
  // Root (CAP_DAC_OVERRIDE) ignores directory permissions; find out whether
  // they apply here.
  const std::string probe = dbname + "/probe";
  FILE* f = std::fopen(probe.c_str(), "w");
  const bool enforced = f == nullptr;
  if (f != nullptr) {
    std::fclose(f);
    ASSERT_EQ(0, unlink(probe.c_str()));
  }
  if (enforced) {
    ExpectNoWriteAcknowledged(
        [&](DB** db) {
          return delsm::Open(DbOptions(), SmallTuning(), dbname, db);
        },
        model, EACCES);
  }
  ASSERT_EQ(0, chmod(dbname.c_str(), 0755));
  if (enforced) {
    ExpectIntact(dbname, model);
  } else {
    // Permissions are not enforced for this user: the fault layer makes
    // every change fail with EACCES as the kernel would.
    ExpectReadOnlyByInjection(tmp.path() + "/injected", EACCES);
  }
}

TEST(HostileInputTest, ReadOnlyFileSystemIsReportedAndDataSurvives) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  ExpectReadOnlyByInjection(tmp.path(), EROFS);
}

// Runs puts on a file system whose `op` call fails with ENOSPC from the
// `nth` call on, until a write fails; then reopens healthily and checks that
// every acknowledged write is present.
void RunOutOfSpace(FsOp op, uint64_t nth) {
  const std::string what =
      std::string(FsOpName(op)) + " #" + std::to_string(nth);
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  FaultInjectionFileSystem fs(FileSystem::Default());
  DB* db = nullptr;
  Status s = OpenWithFileSystem(DbOptions(), SmallTuning(), dbname, &fs, &db);
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  // The disk stays full: every `op` call from the nth on fails.
  FaultSpec full;
  full.nth = nth;
  full.err = ENOSPC;
  full.sticky = true;
  fs.Arm(op, full);

  std::map<std::string, std::string> acked;
  Status failure;
  const int kMaxPuts = 4000;
  for (int i = 0; i < kMaxPuts; i++) {
    char key[32];
    std::snprintf(key, sizeof(key), "full%06d", (i * 7919) % 10007);
    std::string v = ValueFor(key, i);
    s = db->Put(WriteOptions(), key, v);
    if (!s.ok()) {
      failure = s;
      break;
    }
    acked[key] = v;
  }
  if (failure.ok()) {
    // Every put fit before the fault stopped a flush; a forced flush must
    // then report it.
    failure = static_cast<DBImpl*>(db)->TEST_FlushMemTable();
    if (failure.ok()) {
      failure = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
    }
  }
  EXPECT_TRUE(fs.Fired()) << what << ": injected fault never reached";
  ASSERT_FALSE(failure.ok()) << what << ": no write reported the full disk";
  EXPECT_NE(std::string::npos, failure.ToString().find(std::strerror(ENOSPC)))
      << what << ": status does not name the cause: " << failure.ToString();
  // Once the engine has failed, later writes keep failing rather than
  // being acknowledged and lost.
  EXPECT_FALSE(db->Put(WriteOptions(), "after", "failure").ok()) << what;
  delete db;

  db = nullptr;
  s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << what << ": reopen: " << s.ToString();
  for (const auto& kv : acked) {
    std::string v;
    Status g = db->Get(ReadOptions(), kv.first, &v);
    ASSERT_TRUE(g.ok()) << what << ": acknowledged " << kv.first
                        << " lost: " << g.ToString();
    ASSERT_EQ(kv.second, v) << what << ": " << kv.first;
  }
  // Writable again once space is back.
  EXPECT_TRUE(db->Put(WriteOptions(), "after", "recovery").ok()) << what;
  EXPECT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok()) << what;
  delete db;
}

TEST(HostileInputTest, FullFileSystemDuringFlushLosesNothingAcknowledged) {
  for (uint64_t nth : {1, 5, 40}) RunOutOfSpace(FsOp::kWrite, nth);
}

TEST(HostileInputTest, InodeExhaustionDuringFlushLosesNothingAcknowledged) {
  // Creating a file or a directory with no inode left fails with ENOSPC.
  for (uint64_t nth : {1, 5, 40}) RunOutOfSpace(FsOp::kOpen, nth);
  for (uint64_t nth : {1, 3}) RunOutOfSpace(FsOp::kMkdir, nth);
}

}  // namespace
}  // namespace leveldb
