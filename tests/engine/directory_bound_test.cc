// SST directories below L0 stay within
// delsm::Tuning::max_dir_entries however many keys a level settles into
// (a compaction that would take a directory past it writes to new
// directories), with every write kept, nothing orphaned, across reopens.
//
// Tiny tuning makes the levels settle with few keys; DELSM_DIR_BOUND_KEYS
// runs it at any size (e.g. a few million, by hand). Randomised: prints its
// seed; DELSM_TEST_SEED replays one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

constexpr uint64_t kMaxDirEntries = 300;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%010llu",
                static_cast<unsigned long long>(i));
  return buf;
}

// The largest SST directory under L1..L6 of `dbname`: its path and entries.
std::pair<std::string, size_t> LargestDirectory(const std::string& dbname) {
  std::pair<std::string, size_t> largest("", 0);
  for (int level = 1; level < 7; level++) {
    const std::string level_dir = dbname + "/L" + std::to_string(level);
    for (const std::string& name : delsm_test::ListDir(level_dir)) {
      const std::string path = level_dir + "/" + name;
      const size_t n = delsm_test::ListDir(path).size();
      if (n > largest.second) largest = {path, n};
    }
  }
  return largest;
}

TEST(DirectoryBoundTest, DirectoriesStayWithinTheBound) {
  const uint64_t keys = EnvOr("DELSM_DIR_BOUND_KEYS", 30000);
  const uint64_t seed = EnvOr("DELSM_TEST_SEED", std::random_device()());
  std::printf("seed %llu (DELSM_TEST_SEED), %llu keys\n",
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(keys));
  delsm_test::TempDir parent("delsm_dirbound");
  ASSERT_FALSE(parent.path().empty());
  const std::string dbname = parent.path() + "/db";
  const Options options = delsm_test::NewDbOptions(32 << 10);
  delsm::Tuning tuning;
  const std::string refused = delsm_test::SetTuningFields(
      {// Pure mode: every value a KV file, so directories fill with entries.
       {"inline_threshold", "0"},
       {"sst_entries", "32"},
       {"l0_compaction_entries", "256"},
       {"l1_entries", "600"},
       {"max_dir_entries", std::to_string(kMaxDirEntries)}},
      &tuning);
  ASSERT_TRUE(refused.empty()) << refused;
  auto open = [&](std::unique_ptr<DB>* db) {
    DB* raw = nullptr;
    Status s = delsm::Open(options, tuning, dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db->reset(raw);
  };
  std::unique_ptr<DB> db;
  ASSERT_NO_FATAL_FAILURE(open(&db));

  // Keys in random order, a tenth overwritten and a twentieth deleted
  // later: compactions route into existing directories all the time.
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> order(keys);
  for (uint64_t i = 0; i < keys; i++) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::map<std::string, std::string> model;
  for (uint64_t n = 0; n < keys; n++) {
    const std::string key = Key(order[n]);
    std::string value = key + "-v" + std::to_string(n);
    ASSERT_TRUE(db->Put(WriteOptions(), key, value).ok());
    model[key] = value;
    if (n % 10 == 9) {
      const std::string again = Key(order[rng() % (n + 1)]);
      value = again + "-w" + std::to_string(n);
      ASSERT_TRUE(db->Put(WriteOptions(), again, value).ok());
      model[again] = value;
    }
    if (n % 20 == 19) {
      const std::string gone = Key(order[rng() % (n + 1)]);
      ASSERT_TRUE(db->Delete(WriteOptions(), gone).ok());
      model.erase(gone);
    }
  }

  auto check = [&](DB* d, const char* when) {
    std::unique_ptr<leveldb::Iterator> it(d->NewIterator(ReadOptions()));
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_TRUE(m != model.end())
          << when << ": extra " << it->key().ToString();
      ASSERT_EQ(m->first, it->key().ToString()) << when;
      ASSERT_EQ(m->second, it->value().ToString()) << when;
    }
    ASSERT_TRUE(it->status().ok()) << when << ": " << it->status().ToString();
    ASSERT_TRUE(m == model.end()) << when << ": missing " << m->first;
  };
  ASSERT_NO_FATAL_FAILURE(check(db.get(), "written"));
  // Reopen twice: what is on disk then is what the live version owns (the
  // open sweeps anything retired), and it must read the same.
  for (int round = 0; round < 2; round++) {
    db.reset();
    ASSERT_NO_FATAL_FAILURE(open(&db));
    ASSERT_NO_FATAL_FAILURE(check(db.get(), "reopened"));
  }
  // The orphan check needs the compactions the reopen started finished.
  Status s =
      static_cast<leveldb::DBImpl*>(db.get())->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
  std::string levels;
  for (int level = 0; level < 7; level++) {
    std::string n;
    db->GetProperty("leveldb.num-files-at-level" + std::to_string(level), &n);
    levels += " " + n;
  }
  db.reset();

  const std::pair<std::string, size_t> largest = LargestDirectory(dbname);
  std::printf(
      "SSTs per level:%s; largest directory below L0: %zu entries "
      "(%s), bound %llu\n",
      levels.c_str(), largest.second, largest.first.c_str(),
      static_cast<unsigned long long>(kMaxDirEntries));
  // Values of distinct user keys never make an output exceed sst_entries,
  // so the bound holds exactly.
  EXPECT_LE(largest.second, kMaxDirEntries) << largest.first;
}

}  // namespace
