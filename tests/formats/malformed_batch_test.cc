// A WAL record whose checksum is valid but whose write batch is malformed.
// LevelDB fails Open over it only with paranoid_checks; without, it logs the
// error, keeps the batch's entries decoded before the damage and replays the
// rest of the WAL. The same malformed record is appended to a DeLSM WAL and to
// a real LevelDB WAL (Debian's, through tests/leveldb_oracle), and both engines
// must open to the same contents.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "db/log_writer.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"
#include "util/coding.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::Status;

constexpr int kPuts = 5;  // sequences 1..5

std::string Key(int i) { return "key" + std::to_string(i); }
std::string Value(int i) { return "value" + std::to_string(i); }

void PutOp(std::string* batch, const std::string& key,
           const std::string& value) {
  batch->push_back(1);  // kTypeValue
  leveldb::PutLengthPrefixedSlice(batch, key);
  leveldb::PutLengthPrefixedSlice(batch, value);
}

// Batch of sequence 6 claiming 3 entries: two good puts, then a byte that
// is no WriteBatch tag. Then a good batch of sequence 9.
std::vector<std::string> Records() {
  std::string bad;
  leveldb::PutFixed64(&bad, kPuts + 1);
  leveldb::PutFixed32(&bad, 3);
  PutOp(&bad, "mk1", "mv1");
  PutOp(&bad, "mk2", "mv2");
  bad.push_back(0x37);
  bad.append("garbage");
  std::string good;
  leveldb::PutFixed64(&good, kPuts + 4);
  leveldb::PutFixed32(&good, 1);
  PutOp(&good, "after", "replayed");
  return {bad, good};
}

// Appends the records to the newest WAL of `dbname` with a valid record
// checksum each.
void AppendToNewestWal(const std::string& dbname) {
  std::string newest;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log" &&
        name > newest) {
      newest = name;
    }
  }
  ASSERT_FALSE(newest.empty()) << "no WAL in " << dbname;
  leveldb::Env* env = leveldb::Env::Default();
  const std::string path = dbname + "/" + newest;
  uint64_t size = 0;
  ASSERT_TRUE(env->GetFileSize(path, &size).ok());
  leveldb::WritableFile* raw = nullptr;
  ASSERT_TRUE(env->NewAppendableFile(path, &raw).ok());
  std::unique_ptr<leveldb::WritableFile> file(raw);
  leveldb::log::Writer writer(file.get(), size);
  for (const std::string& r : Records()) {
    ASSERT_TRUE(writer.AddRecord(r).ok());
  }
  ASSERT_TRUE(file->Close().ok());
}

std::string Hex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out.empty() ? "-" : out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Everything in a DeLSM DB, in the oracle's dump format.
Status DumpDelsm(const std::string& dbname, bool paranoid, std::string* out) {
  Options options;
  options.paranoid_checks = paranoid;
  DB* raw = nullptr;
  Status s = DB::Open(options, dbname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<DB> db(raw);
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator({}));
  int n = 0;
  out->clear();
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    *out +=
        Hex(it->key().ToString()) + " " + Hex(it->value().ToString()) + "\n";
  }
  *out += "count " + std::to_string(n) + "\n";
  return it->status();
}

TEST(MalformedBatchTest, OpensWithoutParanoidChecksAsLevelDbDoes) {
  delsm_test::TempDir parent("delsm_badbatch");
  ASSERT_FALSE(parent.path().empty());
  const std::string dbname = parent.path() + "/delsm";
  {
    Options options;
    options.create_if_missing = true;
    DB* raw = nullptr;
    ASSERT_TRUE(DB::Open(options, dbname, &raw).ok());
    std::unique_ptr<DB> db(raw);
    for (int i = 1; i <= kPuts; i++) {
      ASSERT_TRUE(db->Put({}, Key(i), Value(i)).ok());
    }
  }  // closed: the puts are in the WAL only
  ASSERT_NO_FATAL_FAILURE(AppendToNewestWal(dbname));

  std::string dump;
  Status s = DumpDelsm(dbname, /*paranoid=*/true, &dump);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  s = DumpDelsm(dbname, /*paranoid=*/false, &dump);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The puts, the two entries decoded before the damage, the later batch.
  EXPECT_NE(dump.find(Hex("mk2") + " " + Hex("mv2")), std::string::npos)
      << dump;
  EXPECT_NE(dump.find(Hex("after") + " " + Hex("replayed")), std::string::npos)
      << dump;
  EXPECT_NE(dump.find("count 8\n"), std::string::npos) << dump;
  const std::string log =
      ReadAll(dbname + "/LOG.old") + ReadAll(dbname + "/LOG");
  EXPECT_NE(log.find("unknown WriteBatch tag"), std::string::npos) << log;
  // Reopening again (the replay was flushed) gives the same contents.
  std::string again;
  ASSERT_TRUE(DumpDelsm(dbname, /*paranoid=*/true, &again).ok());
  EXPECT_EQ(dump, again);

  // Real LevelDB, same writes, same malformed record.
  const std::string ldb = parent.path() + "/leveldb";
  std::string commands;
  for (int i = 1; i <= kPuts; i++) {
    commands += "put " + Hex(Key(i)) + " " + Hex(Value(i)) + "\n";
  }
  delsm_test::OracleRun run = delsm_test::RunOracle(
      {"create", ldb, "--no_close"}, commands, parent.path() + "/create");
  ASSERT_TRUE(run.ok) << run.err;
  ASSERT_NO_FATAL_FAILURE(AppendToNewestWal(ldb));
  run = delsm_test::RunOracle({"dump", ldb, "--paranoid_checks"}, "",
                              parent.path() + "/paranoid");
  EXPECT_FALSE(run.ok) << "LevelDB opened it with paranoid_checks";
  run = delsm_test::RunOracle({"dump", ldb}, "", parent.path() + "/dump");
  ASSERT_TRUE(run.ok) << run.err;
  EXPECT_EQ(run.out, dump);
}

}  // namespace
